// Where a path named in a test command really leads, for the argument rules (src/test-runs/arg-rules.ts):
// followed one component at a time through the filesystem as the kernel would, so `link/..` leaves
// through the link's target and a symlink out is out, never judged by its spelling.

import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, sep } from "node:path";
import { ToolError } from "../errors.ts";
import { DOT } from "../layout.ts";
import { checkArguments, type PathCheck, type Refusal, rulesFor } from "./arg-rules.ts";

const exists = (p: string) => {
	try {
		lstatSync(p);
		return true;
	} catch {
		return false;
	}
};

/** A PathCheck for paths relative to `root` (the run's directory). */
export function insideOf(root: string): PathCheck {
	const realRoot = realpathSync(root);
	return (value, mustExist) => {
		let at = isAbsolute(value) ? "/" : realRoot;
		let missing = false;
		for (const part of value.split("/")) {
			if (part === "" || part === ".") continue;
			if (part === "..") at = dirname(at);
			else {
				at = join(at, part);
				// A component that exists is replaced by where it leads (a symlink's target).
				if (!missing && exists(at)) at = realpathSync(at);
				else missing = true;
			}
		}
		if (!(at === realRoot || at.startsWith(realRoot + sep)))
			return `leads outside the run's directory (to ${at})`;
		// Agents write there (patches, logs): not test code, whatever its name says.
		const first = at.slice(realRoot.length + 1).split(sep)[0];
		if (first === DOT || first === ".git") return `leads into ${first}/, which holds no tests`;
		if (mustExist && missing) return "does not exist in the run's directory";
		return undefined;
	};
}

/** Why test.run would refuse `argv`'s arguments after its allowed prefix, in words, if it would. */
export function argumentRefusal(argv: string[], prefixLength: number, root: string): string | undefined {
	const rules = rulesFor(argv);
	const refused = rules && checkArguments(rules, argv.slice(prefixLength), insideOf(root));
	return refused && `test.run refuses '${refused.argument}': ${refused.reason}`;
}

/**
 * Throws permission_denied naming the first refused argument after the allowed prefix (its length
 * in words) of `argv`, which runs in `root`.
 */
export function checkTestArguments(argv: string[], prefixLength: number, root: string): void {
	const rules = rulesFor(argv);
	if (!rules) return;
	const refused: Refusal | undefined = checkArguments(rules, argv.slice(prefixLength), insideOf(root));
	if (refused) {
		throw new ToolError("permission_denied", `test.run refuses '${refused.argument}': ${refused.reason}`, {
			field: "command",
			argument: refused.argument,
			reason: refused.reason,
		});
	}
}
