// Where the git repository of a project root is, found the way git finds it: the nearest `.git`
// above (or at) the root that is a repository, a directory or a `gitdir:` file (worktrees,
// submodules). A few stats per search, so a `git init` made after the owner started is seen.
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { RepoRel } from "../guard.ts";

export interface GitRepo {
	/** The work tree's top directory (a real path). */
	top: string;
	/** The repository directory: its index, its config.worktree. */
	gitDir: string;
	/** Where a worktree's shared parts are: config, info/exclude. The gitDir itself otherwise. */
	commonDir: string;
	/** The project root relative to `top`, "" when they are the same. */
	prefix: RepoRel;
}

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

function readSmall(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
}

/** A worktree's repository directory names the shared one in its `commondir` file. */
function commonDirOf(gitDir: string): string {
	const common = readSmall(join(gitDir, "commondir"))?.trim();
	return common ? resolve(gitDir, common) : gitDir;
}

/** setup.c: is_git_directory, without the environment overrides. */
export function isGitDirectory(path: string): boolean {
	const common = commonDirOf(path);
	if (!isDir(join(common, "objects")) || !isDir(join(common, "refs"))) return false;
	const head = readSmall(join(path, "HEAD"));
	return head !== undefined && (head.startsWith("ref:") || /^[0-9a-f]{40}([0-9a-f]{24})?\s*$/.test(head));
}

/** The repository a `.git` entry in `dir` stands for, if it is one. */
export function gitDirAt(dir: string): string | undefined {
	const dotGit = join(dir, ".git");
	const stat = statSync(dotGit, { throwIfNoEntry: false });
	if (stat === undefined) return undefined;
	if (stat.isDirectory()) return isGitDirectory(dotGit) ? dotGit : undefined;
	if (!stat.isFile()) return undefined;
	const pointer = /^gitdir: (.+?)\r?\n?$/.exec(readSmall(dotGit) ?? "")?.[1];
	if (pointer === undefined) return undefined;
	const target = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
	return isGitDirectory(target) ? target : undefined;
}

/** The repository `root` (a real path) is in, or undefined outside any. */
export function findRepo(root: string): GitRepo | undefined {
	for (let dir = root; ; dir = dirname(dir)) {
		const gitDir = gitDirAt(dir);
		if (gitDir !== undefined) {
			const prefix = relative(dir, root).split(sep).join("/");
			return { top: dir, gitDir, commonDir: commonDirOf(gitDir), prefix };
		}
		if (dir === dirname(dir)) return undefined;
	}
}
