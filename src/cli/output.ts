// What an operator command prints: the JSON with --json, else its lines (stdout is data only).
import type { Flags } from "./args.ts";

export function print(flags: Flags, json: unknown, lines: string[]): number {
	const text = flags.json ? JSON.stringify(json, null, 2) : lines.join("\n");
	if (text !== "") process.stdout.write(`${text}\n`);
	return 0;
}
