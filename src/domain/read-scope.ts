// What repository content an agent's call may see: paths inside its task's operator-authored
// readable_paths, never a credential or configuration location, and (for repo reads) covered by an
// active claim the agent holds. Pure: the guard asks it about each real path it is about to open.
import picomatch from "picomatch";
import { isSensitiveName } from "./paths.ts";

export interface ReadScope {
	/** The task's readable_paths: plain paths (a file, or a folder and all below it) or globs. */
	readable: readonly string[];
	/** The agent's active claims on paths; absent: reading needs no claim (what a claim itself hashes). */
	claimed?: readonly { type: string; path: string | null }[];
	/** The proposal a reviewer's, tester's or security agent's session is bound to: its own files are theirs to read. */
	proposal?: { id: string; files: readonly string[] };
}

const hasGlob = (p: string) => /[*?[\]{}()!+@]/.test(p);
const under = (rel: string, dir: string) => dir === "" || rel === dir || rel.startsWith(`${dir}/`);

const matchers = new Map<string, (rel: string) => boolean>();
function matcherOf(pattern: string): (rel: string) => boolean {
	let m = matchers.get(pattern);
	if (!m) {
		// A wildcard never reaches a dot-file by itself (dot: false); those are named explicitly.
		m = hasGlob(pattern) ? picomatch(pattern, { dot: false }) : (rel: string) => under(rel, pattern);
		if (matchers.size > 1000) matchers.clear();
		matchers.set(pattern, m);
	}
	return m;
}

/** Why `rel` (repo-relative, forward slashes) may not be read under `scope`; undefined when it may. */
export function readRefusal(scope: ReadScope, rel: string): string | undefined {
	if (rel.split("/").some(isSensitiveName)) return `${rel} may hold credentials or configuration`;
	if (scope.proposal?.files.includes(rel)) return undefined;
	if (scope.readable.length === 0) return "its task has no readable_paths";
	if (!scope.readable.some((p) => matcherOf(p)(rel))) return `${rel} is outside its task's readable_paths`;
	if (scope.claimed === undefined) return undefined;
	const covered = scope.claimed.some(
		(c) => c.path !== null && (c.type === "directory" ? under(rel, c.path) : rel === c.path),
	);
	return covered ? undefined : `${rel} is not covered by an active claim of yours`;
}
