// Patch bytes, stored by content: .roundtable/patches/<sha256>.diff. A file name is never built from
// a caller's id, and storing the same bytes twice is one file.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "./domain/canonical.ts";
import { writeFileAtomic } from "./fsutil.ts";

const PATCHES_DIR = ".roundtable/patches";

export const patchPath = (root: string, digest: string) => join(root, PATCHES_DIR, `${digest}.diff`);

/** Stores the patch (if it is not there yet) and returns its digest and size. */
export function storePatch(root: string, text: string): { sha256: string; size: number } {
	const digest = sha256(text);
	const path = patchPath(root, digest);
	if (!existsSync(path)) {
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
