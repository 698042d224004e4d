// The one path guard for every repository read. A path resolves against the root (absolute paths
// must land inside it), symlinks are followed, and the file is opened before its location is
// trusted: the opened descriptor's real path (/proc/self/fd) must be inside the root and outside
// .git/ and .roundtable/, so swapping a symlink or a directory between a check and the read cannot
// escape. That last check is the one that matters; the earlier ones give clear errors early.
// A search reads many files through DirectoryReader: each directory is opened and checked once,
// and its files are opened through that descriptor (see there).

import {
	closeSync,
	constants,
	existsSync,
	fstatSync,
	openSync,
	readlinkSync,
	realpathSync,
	type Stats,
	statSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { invalidArgument, notFound, ToolError } from "../errors.ts";
import { DOT } from "../layout.ts";
import { openAt } from "../os/openat.ts";

const MAX_PATH_BYTES = 4096;
const MAX_SEGMENT_BYTES = 255;
const HIDDEN = new Set([".git", DOT]);
// NOFOLLOW: a final symlink is resolved by us, not followed blindly; NONBLOCK: a FIFO cannot hang us.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Test-only: runs just before the open, so a test can swap a file or directory there. */
export const guardHooks: { beforeOpen?: (path: string) => void } = {};

const denied = (message: string, path: string) => new ToolError("permission_denied", message, { path });
const outside = (input: string) => denied(`${input} resolves outside the repository`, input);
const hidden = (input: string) =>
	denied(`${input} is inside .git/ or .roundtable/, which are never served`, input);

/** Repo-relative, forward slashes; "" is the root itself. */
export type RepoRel = string;

export interface OpenedFile {
	fd: number;
	rel: RepoRel;
	stat: Stats;
}

function toRel(root: string, abs: string): RepoRel | undefined {
	const rel = relative(root, abs);
	if (rel === "") return "";
	if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
	return rel.split(sep).join("/");
}

/** Whether a repo-relative path is in .git/ or .roundtable/ (at any depth), which are never served. */
export const isHidden = (rel: RepoRel) =>
	// Most paths hold neither name: that is answered without splitting them.
	(rel.includes(".git") || rel.includes(DOT)) && rel.split("/").some((segment) => HIDDEN.has(segment));

/** Whether one segment of a path is .git or .roundtable. */
export const isHiddenName = (name: string) => HIDDEN.has(name);

/** Where an open descriptor really points; undefined where the platform cannot say. */
function descriptorPath(fd: number): string | undefined {
	try {
		return readlinkSync(`/proc/self/fd/${fd}`);
	} catch {
		return undefined;
	}
}

function missing(err: unknown, input: string, field: string): never {
	const code = (err as NodeJS.ErrnoException).code;
	if (code === "ENOENT" || code === "ENOTDIR")
		throw notFound(`${input} does not exist in the repository`, { path: input });
	if (code === "ELOOP") throw invalidArgument(`${input} is a symlink loop`, { field });
	throw err;
}

export class RepoGuard {
	/**
	 * `root` must already be a real path (symlinks resolved). `scope`, for an agent's call, says why
	 * a file (by its real repo-relative path) may not be opened; searches skip such files.
	 */
	constructor(
		readonly root: string,
		private readonly scope?: (rel: RepoRel) => string | undefined,
	) {}

	/** Checks the text of a path; returns it made absolute, and repo-relative when it is lexically inside. */
	private candidate(input: string, field: string): { candidate: string; lexical: RepoRel | undefined } {
		if (input.includes("\0")) throw invalidArgument(`${field} contains a NUL byte`, { field });
		if (Buffer.byteLength(input) > MAX_PATH_BYTES)
			throw invalidArgument(`${field} is longer than ${MAX_PATH_BYTES} bytes`, { field });
		if (input.split(/[/\\]/).some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES)) {
			throw invalidArgument(`${field} has a name longer than ${MAX_SEGMENT_BYTES} bytes`, { field });
		}
		const candidate = isAbsolute(input) ? resolve(input) : resolve(this.root, input);
		const lexical = toRel(this.root, candidate);
		// A relative path that climbs out is refused before the filesystem is asked anything.
		if (!isAbsolute(input) && lexical === undefined)
			throw denied(`${input} is outside the repository`, input);
		if (lexical !== undefined && isHidden(lexical)) throw hidden(input);
		return { candidate, lexical };
	}

	/**
	 * A caller's path as a repo-relative path, for naming things that may not exist yet (a claim on
	 * a file about to be created). What does exist must really be inside the root.
	 */
	relative(input: string, field = "path"): RepoRel {
		const { candidate, lexical } = this.candidate(input, field);
		if (lexical === undefined) return this.resolve(input, field).rel;
		// The nearest part of the path that exists decides where the rest would land.
		for (let probe = candidate; ; probe = dirname(probe)) {
			let real: string;
			try {
				real = realpathSync.native(probe);
			} catch (err) {
				const code = (err as NodeJS.ErrnoException).code;
				if ((code === "ENOENT" || code === "ENOTDIR") && probe !== dirname(probe)) continue;
				missing(err, input, field);
			}
			const rel = toRel(this.root, real);
			if (rel === undefined) throw outside(input);
			if (isHidden(rel)) throw hidden(input);
			return lexical;
		}
	}

	/**
	 * A path to write or remove as it is (a file, or a symlink itself, never followed): lexically
	 * inside, and its directory really inside. A patch may retarget a symlink that points anywhere,
	 * but never write through a directory that leads out.
	 */
	entry(input: string, field = "path"): RepoRel {
		const { lexical } = this.candidate(input, field);
		if (lexical === undefined || lexical === "") throw outside(input);
		if (dirname(lexical) !== ".") this.relative(dirname(lexical), field);
		return lexical;
	}

	/** A caller's path, resolved through its symlinks, as a real location inside the root. */
	resolve(input: string, field = "path"): { abs: string; rel: RepoRel } {
		const { candidate } = this.candidate(input, field);
		let real: string;
		try {
			real = realpathSync.native(candidate);
		} catch (err) {
			missing(err, input, field);
		}
		const rel = toRel(this.root, real);
		if (rel === undefined) throw outside(input);
		if (isHidden(rel)) throw hidden(input);
		return { abs: real, rel };
	}

	/** Why the caller may not read `rel` (a real repo-relative path); undefined when it may. */
	refusal(rel: RepoRel): string | undefined {
		return this.scope?.(rel);
	}

	/**
	 * Opens a regular file for reading and confirms, on the open descriptor, that it is inside the
	 * root. The caller closes `fd`.
	 */
	open(input: string, field = "path"): OpenedFile {
		const { candidate, lexical } = this.candidate(input, field);
		// The common case (a plain file inside) costs one open; a final symlink, or an absolute path
		// that only its real location puts inside, is resolved first.
		let target = lexical === undefined ? this.resolve(input, field).abs : candidate;
		guardHooks.beforeOpen?.(target);
		let fd: number;
		try {
			fd = openSync(target, OPEN_FLAGS);
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code !== "ELOOP" || target !== candidate) missing(err, input, field);
			target = this.resolve(input, field).abs;
			try {
				fd = openSync(target, OPEN_FLAGS);
			} catch (again) {
				if ((again as NodeJS.ErrnoException).code === "ELOOP")
					throw denied(`${input} changed while it was being opened`, input);
				missing(again, input, field);
			}
		}
		try {
			const stat = fstatSync(fd);
			const opened = descriptorPath(fd) ?? this.reresolve(target, stat, input);
			const rel = toRel(this.root, opened);
			if (rel === undefined) throw outside(input);
			if (isHidden(rel)) throw hidden(input);
			const refused = this.scope?.(rel);
			if (refused !== undefined) throw denied(`${input} may not be read: ${refused}`, input);
			if (stat.isDirectory()) throw invalidArgument(`${input} is a directory, not a file`, { field });
			if (!stat.isFile()) throw invalidArgument(`${input} is not a regular file`, { field });
			return { fd, rel, stat };
		} catch (err) {
			closeSync(fd);
			throw err;
		}
	}

	/**
	 * Where /proc is missing: resolve the path again and require the very file that was opened. A
	 * swap would have to be undone within that window to pass.
	 */
	private reresolve(path: string, opened: Stats, input: string): string {
		try {
			const again = realpathSync.native(path);
			const now = statSync(again);
			if (now.ino === opened.ino && now.dev === opened.dev) return again;
		} catch {
			// removed meanwhile
		}
		throw denied(`${input} changed while it was being opened`, input);
	}
}

/**
 * Where an open descriptor can be named as a directory to open files below (Linux's /proc), or
 * undefined. By the process id rather than /proc/self: that saves a symlink per open (a third of it).
 */
const procFd = () => {
	const dir = `/proc/${process.pid}/fd`;
	return existsSync(dir) ? dir : undefined;
};
/** Directories a reader keeps open at once; sorted paths come back to a directory after its subdirectories. */
const OPEN_DIRECTORIES = 32;

interface CheckedDirectory {
	fd: number;
	/** Its real repo-relative path. */
	rel: RepoRel;
}

/**
 * Reads many files for one search, checking each directory once instead of each file. A directory
 * is opened, and its descriptor's real path (/proc/self/fd) must be inside the root and outside
 * .git/ and .roundtable/; its files are then opened through that descriptor (openat, or
 * /proc/<pid>/fd/N/name where libc's is out of reach), so a directory swapped for a symlink after its check
 * leads nowhere new, and O_NOFOLLOW refuses a file that is itself a symlink: those go through
 * RepoGuard.open, which resolves and checks the whole path. Where /proc is missing every file does.
 * Call close() when done.
 */
export class DirectoryReader {
	private readonly dirs = new Map<RepoRel, CheckedDirectory | ToolError>();
	private readonly fds = procFd();
	private lastRel: RepoRel | undefined;
	private last: CheckedDirectory | ToolError | undefined;

	constructor(private readonly guard: RepoGuard) {}

	/** Opens a listed file (repo-relative, as the listing gives it) like RepoGuard.open. The caller closes `fd`. */
	open(rel: RepoRel): OpenedFile {
		const slash = rel.lastIndexOf("/");
		const name = rel.slice(slash + 1);
		if (this.fds === undefined || name === "" || name === "." || name === "..") return this.guard.open(rel);
		const dir = this.directory(slash === -1 ? "" : rel.slice(0, slash));
		if (dir instanceof ToolError) throw dir;
		guardHooks.beforeOpen?.(join(this.guard.root, rel));
		let fd: number;
		try {
			fd = openAt ? openAt(dir.fd, name, OPEN_FLAGS) : openSync(`${this.fds}/${dir.fd}/${name}`, OPEN_FLAGS);
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code === "ELOOP") return this.guard.open(rel); // a symlink
			missing(err, rel, "path");
		}
		try {
			const stat = fstatSync(fd);
			const real = dir.rel === "" ? name : `${dir.rel}/${name}`;
			if (HIDDEN.has(name)) throw hidden(rel);
			const refused = this.guard.refusal(real);
			if (refused !== undefined) throw denied(`${rel} may not be read: ${refused}`, rel);
			if (!stat.isFile()) throw invalidArgument(`${rel} is not a regular file`, { field: "path" });
			return { fd, rel: real, stat };
		} catch (err) {
			closeSync(fd);
			throw err;
		}
	}

	/** The directory opened and checked, once per reader (while it stays among the open ones). */
	private directory(rel: RepoRel): CheckedDirectory | ToolError {
		// Sorted paths mostly stay in one directory: the last one is at hand without a lookup.
		if (rel === this.lastRel && this.last !== undefined) return this.last;
		const found = this.lookup(rel);
		this.lastRel = rel;
		this.last = found;
		return found;
	}

	private lookup(rel: RepoRel): CheckedDirectory | ToolError {
		const known = this.dirs.get(rel);
		if (known !== undefined) {
			// Most recently used last, so the oldest is the one let go.
			this.dirs.delete(rel);
			this.dirs.set(rel, known);
			return known;
		}
		const checked = this.check(rel);
		this.dirs.set(rel, checked);
		if (this.dirs.size > OPEN_DIRECTORIES) {
			const [oldest, entry] = this.dirs.entries().next().value as [RepoRel, CheckedDirectory | ToolError];
			if (!(entry instanceof ToolError)) closeSync(entry.fd);
			this.dirs.delete(oldest);
		}
		return checked;
	}

	private check(rel: RepoRel): CheckedDirectory | ToolError {
		const path = join(this.guard.root, rel);
		guardHooks.beforeOpen?.(path);
		let fd: number;
		try {
			fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
		} catch (err) {
			const code = (err as NodeJS.ErrnoException).code;
			if (code === "ENOENT" || code === "ENOTDIR")
				return notFound(`${rel} does not exist in the repository`, { path: rel });
			return denied(`${rel} cannot be opened (${code})`, rel);
		}
		const real = descriptorPath(fd);
		const realRel = real === undefined ? undefined : toRel(this.guard.root, real);
		const refusal = realRel === undefined ? outside(rel || ".") : isHidden(realRel) ? hidden(rel) : undefined;
		if (refusal === undefined) return { fd, rel: realRel as RepoRel };
		closeSync(fd);
		return refusal;
	}

	close(): void {
		for (const entry of this.dirs.values()) if (!(entry instanceof ToolError)) closeSync(entry.fd);
		this.dirs.clear();
		this.last = undefined;
		this.lastRel = undefined;
	}
}
