// The repository's files as git sees them: what `git ls-files --cached --others --exclude-standard`
// lists (tracked files, ignored or not, and untracked ones no ignore file excludes), read in
// process from the index and a walk of the work tree, so that a search spawns nothing. Git itself
// answers only where that reading would have to guess (listing/ask-git.ts). Outside a work tree the
// walk applies every .gitignore on the way. .git/ and .roundtable/ never appear, and directory
// symlinks are never entered.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseIgnore } from "./gitignore.ts";
import { isHidden, type RepoGuard, type RepoRel } from "./guard.ts";
import { AskGit, gitRelocated, lsFiles } from "./listing/ask-git.ts";
import { gitSettings } from "./listing/git-config.ts";
import { findRepo, type GitRepo } from "./listing/git-dir.ts";
import { trackedPaths } from "./listing/git-index.ts";
import { type IgnoreFile, walk } from "./listing/walk.ts";

/** An ignore file that applies to the whole work tree (core.excludesFile, info/exclude), if there is one. */
function globalIgnoreFile(path: string, ignoreCase: boolean): IgnoreFile[] {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch {
		return [];
	}
	return [{ base: "", rules: parseIgnore(text, ignoreCase) }];
}

/**
 * The listing inside a repository: the index's paths, then the walk's untracked files; AskGit where
 * git should answer instead. Exported for the test that holds it to git's own.
 */
export async function inRepository(repo: GitRepo, under: RepoRel, signal?: AbortSignal): Promise<RepoRel[]> {
	const settings = await gitSettings(repo);
	const tracked = trackedPaths(repo.gitDir, settings.hashBytes, settings.ignoreCase);
	const start = [repo.prefix, under].filter((p) => p !== "").join("/");
	const untracked = await walk({
		top: repo.top,
		start,
		// Lowest precedence first: the user's file, then the repository's own.
		global: [
			...globalIgnoreFile(settings.excludesFile, settings.ignoreCase),
			...globalIgnoreFile(join(repo.commonDir, "info", "exclude"), settings.ignoreCase),
		],
		ignoreCase: settings.ignoreCase,
		tracked,
		signal,
	});
	const below = `${start}/`;
	const cached =
		start === "" ? tracked.paths : tracked.paths.filter((p) => p === start || p.startsWith(below));
	const topRelative = [...cached, ...untracked];
	return repo.prefix === "" ? topRelative : topRelative.map((p) => p.slice(repo.prefix.length + 1));
}

const outsideGit = (root: string, under: RepoRel, signal?: AbortSignal) =>
	walk({ top: root, start: under, global: [], ignoreCase: false, tracked: undefined, signal });

async function listing(root: string, under: RepoRel, signal?: AbortSignal): Promise<RepoRel[]> {
	if (gitRelocated()) return (await lsFiles(root, under)) ?? outsideGit(root, under, signal);
	const repo = findRepo(root);
	if (repo === undefined) return outsideGit(root, under, signal);
	try {
		return await inRepository(repo, under, signal);
	} catch (err) {
		if (!(err instanceof AskGit)) throw err;
		return (await lsFiles(root, under)) ?? outsideGit(root, under, signal);
	}
}

/** Every visible file at or below `under` (a repo-relative directory, "" for the root), sorted. */
export async function listFiles(root: string, under: RepoRel = "", signal?: AbortSignal): Promise<RepoRel[]> {
	return (await listing(root, under, signal)).filter((p) => !isHidden(p)).sort();
}

/** The files a caller's `path` names: that file, the visible files under that directory, or (undefined) all. */
export async function filesAt(
	guard: RepoGuard,
	path: string | undefined,
	signal?: AbortSignal,
): Promise<RepoRel[]> {
	if (path === undefined) return listFiles(guard.root, "", signal);
	const { abs, rel } = guard.resolve(path);
	return statSync(abs).isDirectory() ? listFiles(guard.root, rel, signal) : [rel];
}

/** Git's own test: a NUL byte in the first 8000 bytes makes a file binary. */
export function looksBinary(bytes: Uint8Array): boolean {
	return bytes.subarray(0, 8000).includes(0);
}
