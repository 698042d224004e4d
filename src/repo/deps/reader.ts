// Every file repo.dependency_context looks at goes through here: directory listings of directories
// the guard resolved, and file contents through the guard's open (readText). The one file the
// caller named is read strictly: if it cannot be parsed the call fails with invalid_argument. Any
// other manifest or lockfile that is malformed is skipped, so one broken sibling never hides the rest.
import { readdirSync } from "node:fs";
import { basename, posix } from "node:path";
import { invalidArgument } from "../../errors.ts";
import type { RepoGuard, RepoRel } from "../guard.ts";
import { readText } from "../read.ts";

/** Lockfiles of large monorepos run to tens of megabytes; beyond this a file is not read. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export type EntryKind = "file" | "dir";

export class DepReader {
	private readonly listings = new Map<RepoRel, Map<string, EntryKind>>();
	/** Files that were skipped because they did not parse, said in the result instead of dropped silently. */
	readonly warnings: string[] = [];

	/** `strict` is the repo-relative path of the caller's target, when it is a manifest or lockfile. */
	constructor(
		readonly guard: RepoGuard,
		readonly strict: RepoRel | undefined,
	) {}

	/** Names in a repository directory (files and directories; symlinks count as files and are checked on open). */
	list(dir: RepoRel): Map<string, EntryKind> {
		const cached = this.listings.get(dir);
		if (cached) return cached;
		const out = new Map<string, EntryKind>();
		try {
			const { abs } = this.guard.resolve(dir === "" ? "." : dir);
			for (const e of readdirSync(abs, { withFileTypes: true })) {
				if (e.isDirectory()) out.set(e.name, "dir");
				else if (e.isFile() || e.isSymbolicLink()) out.set(e.name, "file");
			}
		} catch {
			// outside the repository, hidden, or gone: nothing there for us
		}
		this.listings.set(dir, out);
		return out;
	}

	has(dir: RepoRel, name: string, kind: EntryKind = "file"): boolean {
		return this.list(dir).get(name) === kind;
	}

	/** A file's text, or undefined when it is missing, binary, too large or refused by the guard. */
	text(rel: RepoRel): string | undefined {
		// A byte-order mark is legal at the start of these files but not to JSON.parse.
		const text = readText(this.guard, rel, MAX_FILE_BYTES)?.replace(/^\uFEFF/, "");
		if (text === undefined && rel === this.strict) {
			throw invalidArgument(
				`${rel} could not be read as text (binary, or larger than ${MAX_FILE_BYTES} bytes)`,
				{
					path: rel,
				},
			);
		}
		return text;
	}

	/**
	 * Reads and parses one manifest or lockfile. A parse error fails the call for the target and
	 * makes the file count as absent otherwise.
	 */
	parse<T>(rel: RepoRel, what: string, parser: (text: string) => T): T | undefined {
		const text = this.text(rel);
		if (text === undefined) return undefined;
		try {
			return parser(text);
		} catch (err) {
			if (rel === this.strict) {
				throw invalidArgument(`${rel} is not a valid ${what}: ${(err as Error).message}`, { path: rel });
			}
			this.warnings.push(`${rel} was skipped: it is not a valid ${what} (${(err as Error).message})`);
			return undefined;
		}
	}
}

/** "a/b" + "c" with "" as the root. */
export const joinRel = (dir: RepoRel, name: string): RepoRel => (dir === "" ? name : `${dir}/${name}`);

/** The parent directory, or undefined above the root. */
export function parentRel(dir: RepoRel): RepoRel | undefined {
	if (dir === "") return undefined;
	const i = dir.lastIndexOf("/");
	return i === -1 ? "" : dir.slice(0, i);
}

export const dirOf = (rel: RepoRel): RepoRel => parentRel(rel) ?? "";
export const baseOf = (rel: RepoRel): string => basename(rel);

/** `to` relative to `from` (both repo-relative directories), "" when equal. */
export function relativeRel(from: RepoRel, to: RepoRel): string {
	return posix.relative(from === "" ? "." : from, to === "" ? "." : to);
}

/** Resolves `rel` against a repo-relative directory; undefined when it climbs above the root. */
export function resolveRel(dir: RepoRel, rel: string): RepoRel | undefined {
	const joined = posix.normalize(posix.join(dir === "" ? "." : dir, rel));
	if (joined === ".." || joined.startsWith("../") || posix.isAbsolute(joined)) return undefined;
	return joined === "." ? "" : joined.replace(/\/$/, "");
}

/** Parses a JSON file and insists on an object at the top. */
export function jsonObject(text: string): Record<string, unknown> {
	const value: unknown = JSON.parse(text);
	if (!isRecord(value)) throw new Error("the top level is not an object");
	return value;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
	typeof v === "object" && v !== null && !Array.isArray(v);

/** The strings of an array field (other values are ignored). */
export const stringList = (v: unknown): string[] =>
	Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];

/** The string-valued entries of an object field (other values are ignored). */
export function stringMap(v: unknown): [string, string][] {
	if (!isRecord(v)) return [];
	return Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string");
}
