// The tracked paths, read from the repository's index file (gitformat-index(5), versions 2, 3 and 4)
// instead of asking git. Parsed once per change of the file. An index this reader does not fully
// understand (a split or sparse index, or a sparse checkout that keeps a .gitignore out of the work
// tree, whose rules git would read from the index) is reported as such, and the caller asks git.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { AskGit } from "./ask-git.ts";

export interface TrackedPaths {
	/** Every path in the index (top-relative, each once), in index order. */
	paths: string[];
	/** The same paths, folded to lower case under core.ignoreCase, for lookups. */
	has: Set<string>;
	/** Every directory that holds a tracked path, at any depth (git: directory_exists_in_index). */
	dirs: Set<string>;
	/** Submodules: gitlink entries, which git never walks into. */
	gitlinks: Set<string>;
}

const MODE_TYPE = 0o170000;
const GITLINK = 0o160000;
const SPARSE_DIR = 0o040000;
const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000;

/** git's varint.c: 7 bits a byte, most significant first, each continuation adding one. */
function varint(bytes: Uint8Array, at: number): { value: number; next: number } {
	let c = bytes[at++];
	if (c === undefined) throw new AskGit("the index ends inside an entry");
	let value = c & 127;
	while (c & 128) {
		c = bytes[at++];
		if (c === undefined) throw new AskGit("the index ends inside an entry");
		value = (value + 1) * 128 + (c & 127);
	}
	return { value, next: at };
}

/** The tracked paths of an index file's bytes (hashes `hashBytes` wide). */
export function parseIndex(bytes: Buffer, hashBytes: number, ignoreCase: boolean): TrackedPaths {
	const bad = (why: string) => new AskGit(`unreadable index: ${why}`);
	if (bytes.length < 12 + hashBytes || bytes.toString("latin1", 0, 4) !== "DIRC") throw bad("no DIRC header");
	const version = bytes.readUInt32BE(4);
	if (version < 2 || version > 4) throw bad(`version ${version}`);
	const count = bytes.readUInt32BE(8);
	const end = bytes.length - hashBytes;
	const fixed = 40 + hashBytes + 2; // stat fields, object id, flags
	const out: TrackedPaths = { paths: [], has: new Set(), dirs: new Set(), gitlinks: new Set() };
	let previous: Buffer = Buffer.alloc(0); // version 4 names are compressed against the previous one
	let at = 12;
	for (let i = 0; i < count; i++) {
		const start = at;
		if (start + fixed > end) throw bad("truncated entry");
		const mode = bytes.readUInt32BE(start + 24) & MODE_TYPE;
		const flags = bytes.readUInt16BE(start + 40 + hashBytes);
		let pos = start + fixed;
		let skipWorktree = false;
		if (flags & EXTENDED) {
			if (version < 3) throw bad("extended flags in a version 2 index");
			skipWorktree = (bytes.readUInt16BE(pos) & SKIP_WORKTREE) !== 0;
			pos += 2;
		}
		let name: Buffer;
		if (version === 4) {
			const strip = varint(bytes, pos);
			if (strip.value > previous.length) throw bad("a name strips more than the previous one has");
			const nul = bytes.indexOf(0, strip.next);
			if (nul === -1 || nul >= end) throw bad("unterminated name");
			name = Buffer.concat([
				previous.subarray(0, previous.length - strip.value),
				bytes.subarray(strip.next, nul),
			]);
			previous = name;
			at = nul + 1;
		} else {
			const nul = bytes.indexOf(0, pos);
			if (nul === -1 || nul >= end) throw bad("unterminated name");
			name = bytes.subarray(pos, nul);
			at = start + ((pos - start + name.length + 8) & ~7); // entries are NUL-padded to 8 bytes
		}
		if (mode === SPARSE_DIR) throw bad("a sparse index");
		const path = name.toString("utf8");
		if (skipWorktree && (path === ".gitignore" || path.endsWith("/.gitignore")))
			throw bad("a .gitignore outside the sparse checkout");
		const folded = ignoreCase ? path.toLowerCase() : path;
		if (out.has.has(folded)) continue; // the stages of a conflicted path
		out.has.add(folded);
		out.paths.push(path);
		if (mode === GITLINK) out.gitlinks.add(folded);
		for (let slash = folded.lastIndexOf("/"); slash > 0; slash = folded.lastIndexOf("/", slash - 1)) {
			const dir = folded.slice(0, slash);
			if (out.dirs.has(dir)) break; // its parents are in too
			out.dirs.add(dir);
		}
	}
	// Extensions: a split index keeps its entries in another file.
	while (at + 8 <= end) {
		const signature = bytes.toString("latin1", at, at + 4);
		if (signature === "link" || signature === "sdir") throw bad(`the ${signature} extension`);
		at += 8 + bytes.readUInt32BE(at + 4);
	}
	return out;
}

interface Parsed {
	stamp: string;
	hashBytes: number;
	ignoreCase: boolean;
	tracked: TrackedPaths;
}

const MAX_KNOWN = 16;
const known = new Map<string, Parsed>();
const EMPTY: TrackedPaths = { paths: [], has: new Set(), dirs: new Set(), gitlinks: new Set() };

/** The tracked paths of `gitDir`'s index, parsed again only when the file changed. */
export function trackedPaths(gitDir: string, hashBytes: number, ignoreCase: boolean): TrackedPaths {
	const path = join(gitDir, "index");
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return EMPTY; // nothing added yet
		throw err;
	}
	try {
		// Git replaces the index by renaming a new file over it, so the descriptor's own stat names
		// exactly the bytes read from it.
		const s = fstatSync(fd, { bigint: true });
		const stamp = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
		const cached = known.get(path);
		if (cached?.stamp === stamp && cached.hashBytes === hashBytes && cached.ignoreCase === ignoreCase)
			return cached.tracked;
		const bytes = Buffer.allocUnsafe(Number(s.size));
		let read = 0;
		while (read < bytes.length) {
			const n = readSync(fd, bytes, read, bytes.length - read, read);
			if (n === 0) throw new AskGit("the index shrank while it was read");
			read += n;
		}
		const tracked = parseIndex(bytes, hashBytes, ignoreCase);
		known.delete(path);
		known.set(path, { stamp, hashBytes, ignoreCase, tracked });
		if (known.size > MAX_KNOWN) known.delete(known.keys().next().value as string);
		return tracked;
	} finally {
		closeSync(fd);
	}
}
