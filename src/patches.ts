// Patch bytes, stored by content: .roundtable/patches/<sha256>.diff. A file name is never built from
// a caller's id, and storing the same bytes twice is one file.

import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256 } from "./domain/canonical.ts";
import { writeFileAtomic } from "./fsutil.ts";
import { LAYOUT } from "./layout.ts";

const PATCHES_DIR = LAYOUT.patches;

export const patchPath = (root: string, digest: string) => join(root, PATCHES_DIR, `${digest}.diff`);

/** Stores the patch (unless an intact copy is there already) and returns its digest and size. */
export function storePatch(root: string, text: string): { sha256: string; size: number } {
	const digest = sha256(text);
	const path = patchPath(root, digest);
	// A copy damaged outside Roundtable fails its digest check and is written again.
	if (readPatch(root, digest) === undefined) {
		mkdirSync(join(root, PATCHES_DIR), { recursive: true, mode: 0o700 });
		writeFileAtomic(path, text, 0o600);
	}
	return { sha256: digest, size: Buffer.byteLength(text) };
}

/** The stored bytes of a patch, or undefined when the file is missing or does not match its digest. */
export function readPatch(root: string, digest: string): string | undefined {
	try {
		const text = readFileSync(patchPath(root, digest), "utf8");
		return sha256(text) === digest ? text : undefined;
	} catch {
		return undefined;
	}
}

/**
 * `git apply` of a patch file in `dir` (with `check`, only a trial): undefined when it applies,
 * otherwise git's first lines of complaint.
 *
 * No `--recount`: every stored patch passed parsePatch, which holds each hunk to its announced
 * counts, so git can trust them. Recounting reads a hunk on until a line that starts with neither
 * ' ', '-', '+' nor '@@'/'diff ', so in a plain multi-file diff the next file's `--- a/x` and
 * `+++ b/x` became one more removed and one more added line of the hunk before, and that hunk
 * failed (`patch failed: f1.txt:996`). Only git-style patches, whose `diff --git` ends the count,
 * and the last file of a plain one applied.
 */
export async function gitApply(
	dir: string,
	patchFile: string,
	strip: number,
	check: boolean,
): Promise<string | undefined> {
	const proc = Bun.spawn(["git", "apply", ...(check ? ["--check"] : []), `-p${strip}`, patchFile], {
		cwd: dir,
		stdin: "ignore",
		stdout: "ignore",
		stderr: "pipe",
		// The ceiling keeps git from finding a repository above `dir` (a monorepo around the project,
		// the project around a scratch copy), where it would read the patch's paths from that
		// repository's top and skip them all.
		env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_CEILING_DIRECTORIES: dirname(dir) },
	});
	const timer = setTimeout(() => proc.kill(), 30_000);
	const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
	clearTimeout(timer);
	return code === 0 ? undefined : stderr.trim().split("\n").slice(0, 3).join("; ");
}
