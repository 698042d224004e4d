// A test command as argv: split the way a POSIX shell quotes (shlex), but never run by a shell, so
// `;`, `|`, `&&`, redirects and `$()` stay plain argument text. Its canonical form (each word quoted
// only where needed, joined by spaces) is what allowlists and a proposal's expected_tests compare.
import { join, split } from "shlex";
import { invalidArgument } from "../errors.ts";

export function splitCommand(command: string, field = "command"): string[] {
	let argv: string[];
	try {
		argv = split(command);
	} catch (err) {
		throw invalidArgument(`${field} cannot be split into arguments: ${(err as Error).message}`, { field });
	}
	if (argv.length === 0) throw invalidArgument(`${field} is empty`, { field });
	return argv;
}

export const canonical = (argv: string[]): string => join(argv);

/** The allowlist entry (its canonical form) whose argv `argv` starts with, if any. */
export function allowedBy(argv: string[], allowed: readonly string[]): string | undefined {
	for (const entry of allowed) {
		const prefix = split(entry);
		if (prefix.length > 0 && prefix.length <= argv.length && prefix.every((word, i) => argv[i] === word)) {
			return canonical(prefix);
		}
	}
	return undefined;
}
