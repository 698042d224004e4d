// The state of repository paths as transactions see it: a file (bytes and mode), a symlink (its
// target), or nothing. Bytes are kept as content-addressed blobs under .roundtable/journal/blobs/,
// so an apply can always be undone, and a rollback has the exact bytes and modes to restore.

import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	readlinkSync,
	renameSync,
	rmdirSync,
	rmSync,
	symlinkSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { sha256 } from "../domain/canonical.ts";
import { writeFileAtomic } from "../fsutil.ts";
import { LAYOUT } from "../layout.ts";
import type { FileState } from "../vocabulary/records.ts";

export const JOURNAL_DIR = LAYOUT.journal;
export const BLOBS_DIR = `${JOURNAL_DIR}/blobs`;

const SYMLINK_MODE = 0o120000;

const blobPath = (root: string, digest: string) => join(root, BLOBS_DIR, digest);

function putBlob(root: string, bytes: Uint8Array): string {
	const digest = sha256(bytes);
	const path = blobPath(root, digest);
	if (!existsSync(path)) {
		mkdirSync(join(root, BLOBS_DIR), { recursive: true, mode: 0o700 });
		writeFileAtomic(path, bytes, 0o600);
	}
	return digest;
}

function getBlob(root: string, digest: string): Buffer {
	const bytes = readFileSync(blobPath(root, digest));
	if (sha256(bytes) !== digest) {
		throw new Error(`journal blob ${digest} is corrupt`);
	}
	return bytes;
}

/**
 * The state of `rel` under `base` (the repository, or a scratch copy of it), its bytes stored as a
 * blob of `root`. A final symlink is recorded, never followed; a directory is an error.
 */
export function capture(root: string, base: string, rel: string): FileState | null {
	const abs = join(base, rel);
	let stat: ReturnType<typeof lstatSync>;
	try {
		stat = lstatSync(abs);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR")
			return null;
		throw err;
	}
	if (stat.isSymbolicLink()) {
		const target = readlinkSync(abs);
		return { kind: "symlink", mode: SYMLINK_MODE, sha256: putBlob(root, Buffer.from(target)) };
	}
	if (!stat.isFile()) throw new Error(`${rel} is not a regular file or symlink`);
	return { kind: "file", mode: stat.mode & 0o7777, sha256: putBlob(root, readFileSync(abs)) };
}

/** The state of `rel` now, compared by content, without storing anything. */
export function currentState(root: string, rel: string): FileState | null {
	const abs = join(root, rel);
	try {
		const stat = lstatSync(abs);
		if (stat.isSymbolicLink())
			return { kind: "symlink", mode: SYMLINK_MODE, sha256: sha256(readlinkSync(abs)) };
		if (!stat.isFile()) return { kind: "file", mode: -1, sha256: "" };
		const bytes = readFileSync(abs);
		return {
			kind: "file",
			mode: stat.mode & 0o7777,
			sha256: sha256(bytes),
		};
	} catch {
		return null;
	}
}

export const sameState = (a: FileState | null, b: FileState | null) =>
	a === null || b === null ? a === b : a.kind === b.kind && a.mode === b.mode && a.sha256 === b.sha256;

/**
 * Puts `rel` into a state: a blob's bytes and mode, a symlink, or nothing. Each write is atomic.
 * Removing a file also removes the directories it leaves empty, as git does.
 */
export function restore(root: string, rel: string, state: FileState | null): void {
	const abs = join(root, rel);
	if (state === null) {
		rmSync(abs, { force: true });
		for (let dir = dirname(rel); dir !== "." && dir !== "/"; dir = dirname(dir)) {
			try {
				rmdirSync(join(root, dir)); // only ever removes an empty directory
			} catch {
				break;
			}
		}
		return;
	}
	mkdirSync(dirname(abs), { recursive: true });
	const bytes = getBlob(root, state.sha256);
	if (state.kind === "symlink") {
		const temp = `${abs}.rt-${process.pid}.tmp`;
		rmSync(temp, { force: true });
		symlinkSync(bytes.toString(), temp);
		renameSync(temp, abs);
		return;
	}
	writeFileAtomic(abs, bytes, state.mode);
	chmodSync(abs, state.mode); // the umask must not change the recorded mode
}
