// Unified diffs, parsed without I/O: git-style (`diff --git`) and plain (`---`/`+++`) patches.
//
// The parser is strict on purpose: a patch is what agents hand us to apply to the repository, so
// anything we cannot account for line by line (a short hunk, stray text, an unsafe path) is an error
// naming its line, never silently skipped. It only knows the patch text, never the working tree.

import { clip } from "./text.ts";

export type FileChange = "modify" | "create" | "delete" | "rename";

export interface Hunk {
	old_start: number;
	old_lines: number;
	new_start: number;
	new_lines: number;
}

export interface PatchFile {
	/** Repo-relative path before the change (after stripping), null for a created file. */
	old_path: string | null;
	/** Repo-relative path after the change, null for a deleted file. */
	new_path: string | null;
	change: FileChange;
	binary: boolean;
	/** The new side is a symbolic link (git mode 120000): its added line is the link's target. */
	symlink: boolean;
	hunks: Hunk[];
	/** Added lines with their line numbers in the new file. */
	added: { line: number; text: string }[];
	/** Old-file line numbers of the removed lines. */
	removed: number[];
	/** For each added line, the old-file line it follows (0: before the first line). */
	inserted_after: number[];
}

export interface ParsedPatch {
	format: "git" | "unified";
	/** Where each file's text starts (1-based line), in `files`' order. */
	starts?: number[];
	/** Leading path components stripped (git apply -p). */
	strip: 0 | 1;
	files: PatchFile[];
}

/** A malformed patch; `line` is 1-based in the patch text. */
export class PatchError extends Error {
	constructor(
		readonly line: number,
		message: string,
	) {
		super(`patch line ${line}: ${clip(message)}`); // messages quote lines and paths of any length
		this.name = "PatchError";
	}
}

const DEV_NULL = "/dev/null";
const SYMLINK_MODE = "120000";
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const GIT_EXTENDED =
	/^(old mode|new mode|deleted file mode|new file mode|index|similarity index|dissimilarity index|rename from|rename to|copy from|copy to) (.*)$/;
const BINARY_DIFFER = /^Binary files (.+) differ$/;
const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** A file as read; plain-diff paths stay raw until the whole patch tells us how much to strip. */
interface Draft {
	line: number;
	git: boolean;
	file: PatchFile;
	/** Plain diffs: the old and new names as printed, /dev/null included, which decide the strip. */
	names?: [string, string];
}

/** The patch lines and a cursor; `no` is the current line's 1-based number. */
class Reader {
	i = 0;
	constructor(readonly lines: string[]) {}
	get line(): string | undefined {
		return this.lines[this.i];
	}
	get no(): number {
		return this.i + 1;
	}
	/** At a `--- old` line directly followed by `+++ new`: the start of a file's hunks. */
	atFileHeader(): boolean {
		return !!this.line?.startsWith("--- ") && !!this.lines[this.i + 1]?.startsWith("+++ ");
	}
}

export function parsePatch(text: string): ParsedPatch {
	const r = new Reader(splitLines(text));
	const drafts: Draft[] = [];
	while (r.line !== undefined) {
		const line = r.line;
		if (line.startsWith("diff --git ")) drafts.push(readGitFile(r));
		else if (r.atFileHeader()) drafts.push(readPlainFile(r));
		else if (BINARY_DIFFER.test(line)) drafts.push(plainBinary(r));
		// What `diff -r` prints between files (its command line, `Only in`) carries no change we apply.
		else if (line === "" || line.startsWith("diff ") || line.startsWith("Only in ")) r.i++;
		else if (line.startsWith("@@"))
			throw new PatchError(
				r.no,
				drafts.length ? "hunk without a ---/+++ file header" : "hunk before any file header",
			);
		else throw new PatchError(r.no, `unexpected text outside a file: ${JSON.stringify(line)}`);
	}
	const first = drafts[0];
	if (!first) throw new PatchError(1, "empty patch: no files");
	const mixed = drafts.find((d) => d.git !== first.git);
	if (mixed) throw new PatchError(mixed.line, "patch mixes git-style and plain file headers");
	const strip = first.git ? 1 : plainStrip(drafts);
	for (const d of drafts) finishPaths(d, strip);
	// A plain diff's `diff -ruN a b` line belongs to the file it introduces.
	const starts = drafts.map((d) =>
		!d.git && r.lines[d.line - 2]?.startsWith("diff ") ? d.line - 1 : d.line,
	);
	return { format: first.git ? "git" : "unified", strip, files: drafts.map((d) => d.file), starts };
}

/** The patch text cut into one piece per file (in `parsed.files`' order), as parsePatch found them. */
export function fileSections(text: string, parsed: ParsedPatch): string[] {
	const lines = text.split("\n");
	const starts = parsed.starts ?? [];
	return starts.map((start, i) => {
		const end = starts[i + 1] ?? lines.length + 1;
		const piece = lines.slice(start - 1, end - 1).join("\n");
		return i === starts.length - 1 || piece.endsWith("\n") ? piece : `${piece}\n`;
	});
}

/** Lines without their CRLF `\r`; a final newline does not start another line. */
function splitLines(text: string): string[] {
	const nul = text.indexOf("\0");
	if (nul >= 0) throw new PatchError(text.slice(0, nul).split("\n").length, "NUL byte in patch");
	const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
	if (lines.at(-1) === "") lines.pop();
	return lines;
}

function newFile(old_path: string | null, new_path: string | null): PatchFile {
	return {
		old_path,
		new_path,
		change: "modify",
		binary: false,
		symlink: false,
		hunks: [],
		added: [],
		removed: [],
		inserted_after: [],
	};
}

// ---- git-style ---------------------------------------------------------------------------------

/** `diff --git a/X b/Y`, its extended headers, then a binary marker or `---`/`+++` and hunks. */
function readGitFile(r: Reader): Draft {
	const line = r.no;
	const names = splitGitHeader(r.line?.slice("diff --git ".length) ?? "", line);
	const f = newFile(names && stripOne(names[0], line), names && stripOne(names[1], line));
	let created = false;
	let deleted = false;
	let renamed = false;
	let copied = false;
	let similar = false;
	r.i++;
	for (let m = GIT_EXTENDED.exec(r.line ?? ""); m; m = GIT_EXTENDED.exec(r.line ?? "")) {
		const [, key, value = ""] = m;
		// rename/copy paths are printed without the a/ b/ prefix, so they are not stripped.
		if ((key === "new file mode" || key === "new mode") && value.trim() === SYMLINK_MODE) f.symlink = true;
		// A link retargeted in place: its mode rides on the index line.
		if (key === "index" && value.trim().endsWith(` ${SYMLINK_MODE}`)) f.symlink = true;
		if (key === "new file mode") created = true;
		else if (key === "deleted file mode") deleted = true;
		else if (key === "similarity index") similar = true;
		else if (key === "rename from") [renamed, f.old_path] = [true, parseName(value, r.no).name];
		else if (key === "rename to") [renamed, f.new_path] = [true, parseName(value, r.no).name];
		else if (key === "copy from") copied = true;
		else if (key === "copy to") [copied, f.new_path] = [true, parseName(value, r.no).name];
		r.i++;
	}
	if (r.line !== undefined && BINARY_DIFFER.test(r.line)) {
		f.binary = true;
		r.i++;
	} else if (r.line === "GIT binary patch") skipBinaryPatch(r, f);
	else if (r.atFileHeader()) {
		const [oldName, newName] = readNamePair(r);
		if (oldName.name === DEV_NULL) created = true;
		else f.old_path = stripOne(oldName.name, r.no - 2);
		if (newName.name === DEV_NULL) deleted = true;
		else f.new_path = stripOne(newName.name, r.no - 1);
		readHunks(r, f);
	}
	if (copied || created) [f.change, f.old_path] = ["create", null];
	else if (deleted) [f.change, f.new_path, f.symlink] = ["delete", null, false];
	else if (renamed || (similar && f.old_path !== f.new_path)) f.change = "rename";
	else if (f.old_path !== f.new_path)
		throw new PatchError(line, "old and new paths differ without rename headers");
	if ((f.change !== "create" && f.old_path === null) || (f.change !== "delete" && f.new_path === null))
		throw new PatchError(line, "cannot tell the old and new paths apart in the diff --git header");
	return { line, git: true, file: f };
}

/**
 * The two names of a `diff --git` header. Unquoted names may contain spaces, so like git we pick
 * the split where both sides name the same file; a rename's names come from `rename from/to` later.
 */
function splitGitHeader(rest: string, line: number): [string, string] | null {
	if (rest.startsWith('"')) {
		const a = parseName(rest, line);
		return a.tail.startsWith(" ") ? [a.name, parseName(a.tail.slice(1), line).name] : null;
	}
	const quoted = rest.indexOf(' "');
	if (quoted >= 0) return [rest.slice(0, quoted), parseName(rest.slice(quoted + 1), line).name];
	const spaces = [...rest.matchAll(/ /g)].map((m) => m.index);
	for (const at of spaces) {
		const [a, b] = [rest.slice(0, at), rest.slice(at + 1)];
		if (a.slice(a.indexOf("/") + 1) === b.slice(b.indexOf("/") + 1)) return [a, b];
	}
	const only = spaces.length === 1 ? spaces[0] : undefined;
	return only === undefined ? null : [rest.slice(0, only), rest.slice(only + 1)];
}

/** `GIT binary patch` and its `literal`/`delta` blocks of base85 lines, which we do not decode. */
function skipBinaryPatch(r: Reader, f: PatchFile): void {
	f.binary = true;
	r.i++;
	if (!/^(literal|delta) \d+$/.test(r.line ?? ""))
		throw new PatchError(r.no, "expected literal or delta after GIT binary patch");
	while (r.line !== undefined && /^((literal|delta) \d+|[A-Za-z][!-~]*|)$/.test(r.line)) r.i++;
}

// ---- plain unified -----------------------------------------------------------------------------

function readPlainFile(r: Reader): Draft {
	const line = r.no;
	const [oldName, newName] = readNamePair(r);
	const f = newFile(
		oldName.name === DEV_NULL ? null : oldName.name,
		newName.name === DEV_NULL ? null : newName.name,
	);
	readHunks(r, f);
	// `diff -N` stands in an empty file dated at the epoch for a missing one; with no lines on that
	// side, the file is created (or deleted) rather than emptied.
	const none = (side: "old_lines" | "new_lines") => f.hunks.every((h) => h[side] === 0);
	if (isEpoch(oldName.tail) && none("old_lines")) f.old_path = null;
	if (isEpoch(newName.tail) && none("new_lines")) f.new_path = null;
	if (f.old_path === null && f.new_path === null)
		throw new PatchError(line, "file entry has neither an old nor a new path");
	f.change = f.old_path === null ? "create" : f.new_path === null ? "delete" : "modify";
	return { line, git: false, file: f, names: [oldName.name, newName.name] };
}

/** `Binary files X and Y differ` from `diff -r`: split at the " and " whose names agree. */
function plainBinary(r: Reader): Draft {
	const line = r.no;
	const names = BINARY_DIFFER.exec(r.line ?? "")?.[1] ?? "";
	const AND = " and ";
	const splits = [...names.matchAll(/ and /g)].map((m) => [
		names.slice(0, m.index),
		names.slice(m.index + AND.length),
	]);
	const pair = splits.find(([a = "", b = ""]) => pairStrip(a, b, line) !== undefined) ?? splits[0] ?? [];
	const [a = "", b = ""] = pair;
	const f = newFile(a === DEV_NULL ? null : a, b === DEV_NULL ? null : b);
	f.binary = true;
	f.change = f.old_path === null ? "create" : f.new_path === null ? "delete" : "modify";
	r.i++;
	return { line, git: false, file: f, names: [a, b] };
}

/** The strip every plain file agrees on; files that cannot tell (creates without a/ b/) follow the rest. */
function plainStrip(drafts: Draft[]): 0 | 1 {
	let strip: 0 | 1 | undefined;
	for (const d of drafts) {
		const [a = DEV_NULL, b = DEV_NULL] = d.names ?? [];
		const s = pairStrip(a, b, d.line, true);
		if (s === null) continue;
		if (strip !== undefined && s !== strip)
			throw new PatchError(d.line, `file needs strip ${s} but earlier files need strip ${strip}`);
		strip = s;
	}
	return strip ?? 0;
}

/**
 * The strip one old/new pair implies: 0 when equal, 1 when only the first component differs or the
 * names use a/ b/; null when undecidable. Anything else is a rename a plain diff cannot express:
 * undefined, or a PatchError when `strict`.
 */
function pairStrip(a: string, b: string, line: number, strict = false): 0 | 1 | null | undefined {
	const rest = (p: string) => (p.includes("/") ? p.slice(p.indexOf("/") + 1) : undefined);
	if (a === DEV_NULL || b === DEV_NULL) return /^[ab]\//.test(a === DEV_NULL ? b : a) ? 1 : null;
	if (a === b) return 0;
	if (rest(a) !== undefined && rest(a) === rest(b)) return 1;
	if (strict) throw new PatchError(line, `old path ${a} and new path ${b} differ; plain diffs cannot rename`);
	return undefined;
}

// ---- shared ------------------------------------------------------------------------------------

/** Strips a plain file's names and refuses paths that would land outside the repository. */
function finishPaths(d: Draft, strip: 0 | 1): void {
	const f = d.file;
	if (!d.git && strip === 1) {
		f.old_path = f.old_path === null ? null : stripOne(f.old_path, d.line);
		f.new_path = f.new_path === null ? null : stripOne(f.new_path, d.line);
	}
	for (const p of [f.old_path, f.new_path]) {
		if (p === null) continue;
		if (p === "") throw new PatchError(d.line, "empty path");
		if (p.startsWith("/")) throw new PatchError(d.line, `absolute path ${p}`);
		if (p.split("/").includes("..")) throw new PatchError(d.line, `path ${p} escapes the repository (..)`);
	}
}

/** Drops the first path component (a/, b/, or a directory name), as `git apply -p1`. */
function stripOne(path: string, line: number): string {
	const slash = path.indexOf("/");
	if (slash < 0) throw new PatchError(line, `path ${path} has no leading component to strip`);
	return path.slice(slash + 1);
}

/** `--- old` and `+++ new`: each a name (maybe quoted) and what follows its tab (a timestamp). */
function readNamePair(r: Reader): [{ name: string; tail: string }, { name: string; tail: string }] {
	const a = parseName(r.line?.slice(4) ?? "", r.no);
	r.i++;
	const b = parseName(r.line?.slice(4) ?? "", r.no);
	r.i++;
	return [a, b];
}

/** A path as git and diff print it: C-quoted with escapes, or bare up to a tab. */
function parseName(field: string, line: number): { name: string; tail: string } {
	if (!field.startsWith('"')) {
		const tab = field.indexOf("\t");
		return tab < 0 ? { name: field, tail: "" } : { name: field.slice(0, tab), tail: field.slice(tab + 1) };
	}
	const bytes: number[] = [];
	for (let i = 1; i < field.length; ) {
		const c = field.slice(i, i + 1);
		if (c === '"') return { name: new TextDecoder().decode(new Uint8Array(bytes)), tail: field.slice(i + 1) };
		if (c !== "\\") {
			const ch = String.fromCodePoint(field.codePointAt(i) ?? 0);
			bytes.push(...new TextEncoder().encode(ch));
			i += ch.length;
			continue;
		}
		// Octal escapes are raw bytes (git quotes each byte of a UTF-8 name), decoded together at the end.
		const octal = /^[0-3][0-7]{2}/.exec(field.slice(i + 1))?.[0];
		const code = octal === undefined ? C_ESCAPES[field.slice(i + 1, i + 2)] : Number.parseInt(octal, 8);
		if (code === undefined) throw new PatchError(line, `bad escape in quoted path ${field}`);
		bytes.push(code);
		i += 1 + (octal?.length ?? 1);
	}
	throw new PatchError(line, `unterminated quoted path ${field}`);
}

/** A `diff` timestamp at the Unix epoch in any timezone, e.g. `1970-01-01 00:00:00.000000000 +0000`. */
function isEpoch(stamp: string): boolean {
	const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.0+)?(?: ([+-])(\d\d)(\d\d))?$/.exec(
		stamp.trim(),
	);
	if (!m) return false;
	const n = (i: number) => Number(m[i] ?? 0);
	// Local time is UTC plus the offset, so the epoch reads as exactly the offset past 1970-01-01 00:00.
	const offsetMinutes = (m[7] === "-" ? -1 : 1) * (n(8) * 60 + n(9));
	return Date.UTC(n(1), n(2) - 1, n(3), n(4), n(5), n(6)) === offsetMinutes * 60_000;
}

function readHunks(r: Reader, f: PatchFile): void {
	if (!r.line?.startsWith("@@")) throw new PatchError(r.no, "expected a hunk header (@@) after the +++ line");
	while (r.line?.startsWith("@@")) f.hunks.push(readHunk(r, f));
}

/** One hunk, whose body must hold exactly the announced old (' ', '-') and new (' ', '+') lines. */
function readHunk(r: Reader, f: PatchFile): Hunk {
	const at = r.no;
	const m = HUNK_HEADER.exec(r.line ?? "");
	if (!m) throw new PatchError(at, `malformed hunk header: ${JSON.stringify(r.line)}`);
	const h: Hunk = {
		old_start: Number(m[1]),
		old_lines: Number(m[2] ?? 1),
		new_start: Number(m[3]),
		new_lines: Number(m[4] ?? 1),
	};
	const header = `@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@`;
	let [olds, news, lineNo] = [0, 0, h.new_start];
	// The next old line to come; a pure insertion (-k,0) goes after line k.
	let oldNext = h.old_lines === 0 ? h.old_start + 1 : h.old_start;
	for (r.i++; olds < h.old_lines || news < h.new_lines; r.i++) {
		const line = r.line;
		if (line === undefined || line.startsWith("@@") || line.startsWith("diff "))
			throw new PatchError(at, `hunk ${header} ends after ${olds} old and ${news} new lines`);
		// git apply reads an empty line as an empty context line whose space an editor trimmed.
		const tag = line.slice(0, 1) || " ";
		if (tag === "\\") continue; // "\ No newline at end of file": not a line of either file
		if (tag !== " " && tag !== "-" && tag !== "+")
			throw new PatchError(r.no, `expected a hunk line (' ', '-', '+'), got ${JSON.stringify(line)}`);
		if (tag === "+") {
			f.added.push({ line: lineNo, text: line.slice(1) });
			f.inserted_after.push(oldNext - 1);
		} else {
			if (tag === "-") f.removed.push(oldNext);
			oldNext++;
		}
		if (tag !== "+") olds++;
		if (tag !== "-") [news, lineNo] = [news + 1, lineNo + 1];
		if (olds > h.old_lines || news > h.new_lines)
			throw new PatchError(r.no, `hunk ${header} has more lines than announced`);
	}
	if (r.line?.startsWith("\\")) r.i++;
	if (/^[-+ ]/.test(r.line ?? "") && !r.atFileHeader())
		throw new PatchError(r.no, `hunk ${header} has more lines than announced`);
	return h;
}

/** Every path the patch touches (old and new), sorted, without duplicates. */
export function touchedPaths(patch: ParsedPatch): string[] {
	const paths = new Set<string>();
	for (const f of patch.files) {
		if (f.old_path !== null) paths.add(f.old_path);
		if (f.new_path !== null) paths.add(f.new_path);
	}
	return [...paths].sort();
}

/**
 * The old-file line ranges a file's hunks change (reference §7.1): [a, a+b-1], or the single line a
 * when b is 0.
 */
export function changedRanges(file: PatchFile): [start: number, end: number][] {
	return file.hunks.map((h) => {
		if (h.old_lines === 0) {
			const at = h.old_start > 0 ? h.old_start : h.new_start > 0 ? h.new_start : 1;
			return [at, at];
		}
		return [h.old_start, h.old_start + h.old_lines - 1];
	});
}
