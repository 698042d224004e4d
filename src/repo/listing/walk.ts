// A walk of the work tree that applies the ignore files on the way, as git's directory walk does
// (dir.c: read_directory): the untracked half of `git ls-files --others --exclude-standard` in a
// repository, the whole listing outside one. An ignored directory is not entered (git cannot
// re-include a file below one); directory symlinks are never entered; .git/ and .roundtable/ never.
import { closeSync, type Dirent, constants as fs, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../../errors.ts";
import { type IgnoreRule, parseIgnore, verdict } from "../gitignore.ts";
import { isHiddenName } from "../guard.ts";
import { gitDirAt } from "./git-dir.ts";
import type { TrackedPaths } from "./git-index.ts";

/** One ignore file's rules and the directory (top-relative) they are relative to. */
export interface IgnoreFile {
	base: string;
	rules: IgnoreRule[];
}

export interface WalkOptions {
	/** The directory walked paths are relative to: the work tree's top, or the project root outside git. */
	top: string;
	/** The top-relative directory to list below, "" for all. */
	start: string;
	/** Ignore files that apply everywhere, lowest precedence first (core.excludesFile, info/exclude). */
	global: IgnoreFile[];
	ignoreCase: boolean;
	/** Inside a repository: tracked files are left out, and submodules and nested repositories not entered. */
	tracked: TrackedPaths | undefined;
	signal: AbortSignal | undefined;
}

const YIELD_EVERY_MS = 20;
const READ_FLAGS = fs.O_RDONLY | fs.O_NOFOLLOW | fs.O_NONBLOCK;

/** A directory's .gitignore; git (2.32 on) does not follow one that is a symlink. */
function ignoreFileIn(top: string, dir: string, ignoreCase: boolean): IgnoreFile | undefined {
	let fd: number;
	try {
		fd = openSync(join(top, dir, ".gitignore"), READ_FLAGS);
	} catch {
		return undefined;
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) return undefined;
		const bytes = Buffer.allocUnsafe(stat.size);
		const n = stat.size === 0 ? 0 : readSync(fd, bytes, 0, bytes.length, 0);
		const rules = parseIgnore(bytes.toString("utf8", 0, n), ignoreCase);
		return rules.length > 0 ? { base: dir, rules } : undefined;
	} finally {
		closeSync(fd);
	}
}

/** Whether `rel` is ignored: the nearest file with a matching rule decides (dir.c: last_matching_pattern). */
function ignored(files: IgnoreFile[], rel: string, isDir: boolean): boolean {
	for (let i = files.length - 1; i >= 0; i--) {
		const f = files[i] as IgnoreFile;
		const v = verdict(f.rules, f.base === "" ? rel : rel.slice(f.base.length + 1), isDir);
		if (v !== undefined) return v;
	}
	return false;
}

const joinRel = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

/** dir.c: treat_directory, after the ignore check: whether git goes into a directory. */
function entersDirectory(o: WalkOptions, rel: string): boolean {
	if (o.tracked === undefined) return true;
	const key = o.ignoreCase ? rel.toLowerCase() : rel;
	if (o.tracked.gitlinks.has(key)) return false;
	if (o.tracked.dirs.has(key)) return true;
	return gitDirAt(join(o.top, rel)) === undefined; // a nested repository is its own
}

/** The ignore files in force at `start`, or undefined when `start` itself is ignored or not entered. */
function rulesAt(o: WalkOptions): IgnoreFile[] | undefined {
	const files = [...o.global];
	const parts = o.start === "" ? [] : o.start.split("/");
	for (let i = 0; i < parts.length; i++) {
		const own = ignoreFileIn(o.top, parts.slice(0, i).join("/"), o.ignoreCase);
		if (own) files.push(own);
		const dir = parts.slice(0, i + 1).join("/");
		if (ignored(files, dir, true) || !entersDirectory(o, dir)) return undefined;
	}
	return files;
}

/** The untracked, not ignored files at or below `o.start` (top-relative), in no particular order. */
export async function walk(o: WalkOptions): Promise<string[]> {
	const atStart = rulesAt(o);
	if (atStart === undefined) return [];
	const out: string[] = [];
	const pending: { dir: string; files: IgnoreFile[] }[] = [{ dir: o.start, files: atStart }];
	let lastYield = performance.now();
	for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
		if (performance.now() - lastYield > YIELD_EVERY_MS) {
			await new Promise((resolve) => setImmediate(resolve));
			lastYield = performance.now();
		}
		if (o.signal?.aborted) throw new ToolError("cancelled", "listing the repository's files was cancelled");
		let entries: Dirent[];
		try {
			entries = readdirSync(join(o.top, next.dir), { withFileTypes: true });
		} catch {
			continue; // gone, or not a directory any more
		}
		const hasOwn = entries.some((e) => e.name === ".gitignore" && e.isFile());
		const own = hasOwn ? ignoreFileIn(o.top, next.dir, o.ignoreCase) : undefined;
		const files = own ? [...next.files, own] : next.files;
		for (const entry of entries) {
			if (isHiddenName(entry.name)) continue;
			const rel = joinRel(next.dir, entry.name);
			if (entry.isDirectory()) {
				if (!ignored(files, rel, true) && entersDirectory(o, rel)) pending.push({ dir: rel, files });
			} else if (entry.isFile() || entry.isSymbolicLink()) {
				// A tracked file is listed from the index; sockets, FIFOs and devices never.
				if (o.tracked?.has.has(o.ignoreCase ? rel.toLowerCase() : rel)) continue;
				if (!ignored(files, rel, false)) out.push(rel);
			}
		}
	}
	return out;
}
