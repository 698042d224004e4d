// A launched agent's workspace: a plain copy of the project's files its task may read (the rule the
// repository tools apply: readable_paths, never credentials or .roundtable/), kept outside the
// project tree in a private folder, with a git repository of its own whose one commit is that base,
// so the agent's own `git status` and `git diff` work. Nothing is shared with the project's .git: no
// objects to read other files from, no hooks or config to plant. The owner keeps its own copy of the
// base (base.git, beside the work tree and never shown to the agent), so it never has to trust a
// .git the agent could have rewritten.
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "../domain/canonical.ts";
import { readRefusal } from "../domain/read-scope.ts";
import { conflict } from "../errors.ts";
import { copyTree } from "../repo/copy.ts";
import { listFiles } from "../repo/files.ts";
import { privateDir } from "../sessions/paths.ts";

export interface Workspace {
	/** The session's folder: `work` and `base.git`. */
	dir: string;
	/** The agent's working tree (its own .git inside). */
	work: string;
	/** The owner's private repository holding the base commit. */
	base: string;
	/** How many of the project's files the base holds. */
	files: number;
	remove(): void;
}

/** Where workspaces live: per user, 0700, outside any project. */
export const workspacesRoot = () => join(tmpdir(), `roundtable-workspaces-${process.getuid?.() ?? "user"}`);

/** The environment of every git the owner runs on a workspace: no system or user config. */
export const GIT_ENV = () => ({
	PATH: process.env.PATH ?? "/usr/bin:/bin",
	GIT_CONFIG_NOSYSTEM: "1",
	GIT_CONFIG_GLOBAL: "/dev/null",
});

/**
 * git as the owner runs it on a workspace: no system or user config, no hooks, no fsmonitor, a fixed
 * identity, so nothing of the machine's or the agent's setup runs or changes what is recorded.
 */
export function git(args: string[], cwd?: string, env: Record<string, string> = {}): string {
	const r = Bun.spawnSync(
		[
			"git",
			"-c",
			"core.hooksPath=/dev/null",
			"-c",
			"core.fsmonitor=false",
			"-c",
			"commit.gpgSign=false",
			...args,
		],
		{
			cwd,
			env: {
				...GIT_ENV(),
				GIT_AUTHOR_NAME: "roundtable",
				GIT_AUTHOR_EMAIL: "roundtable@localhost",
				GIT_COMMITTER_NAME: "roundtable",
				GIT_COMMITTER_EMAIL: "roundtable@localhost",
				GIT_TERMINAL_PROMPT: "0",
				...env,
			},
			stdout: "pipe",
			stderr: "pipe",
		},
	);
	if (r.exitCode !== 0) throw new Error(`git ${args[0]}: ${r.stderr.toString().trim()}`);
	return r.stdout.toString();
}

/**
 * `git add -A` of an agent's work tree into a private index. The agent may be writing as it runs (an
 * editor saves through a temporary file that vanishes between git's listing and its read): that is
 * tried again, and if the tree never holds still, `conflict`, which says to try once the writes are
 * done; never an internal error.
 */
export function addWorkTree(args: string[], env: Record<string, string>): void {
	for (let attempt = 1; ; attempt++) {
		try {
			git(args, undefined, env);
			return;
		} catch (err) {
			const racing = /unable to stat|No such file or directory|unable to index file|short read/.test(
				(err as Error).message,
			);
			if (!racing) throw err;
			if (attempt === 5)
				throw conflict(
					"the workspace kept changing while it was being read (files appearing and vanishing): try again once your writes are done",
				);
		}
	}
}

/** The folder of session `id`'s workspace in the project at `root`. */
export const workspaceDir = (root: string, id: string) =>
	join(workspacesRoot(), sha256(root).slice(0, 16), id);

/** The project's files a task's scope holds, now: what its workspace starts from. */
export async function scopedFiles(root: string, readable: readonly string[]): Promise<string[]> {
	if (readable.length === 0) return [];
	return (await listFiles(root)).filter((rel) => readRefusal({ readable }, rel) === undefined);
}

/** Whether session `id` has a workspace on this machine now. */
export const hasWorkspace = (root: string, id: string) =>
	existsSync(join(workspaceDir(root, id), "base.git", "HEAD"));

/** The bytes of `path` at `commit` in `gitDir` (a blob, or a link's target), or undefined where there is none. */
export function blob(gitDir: string, commit: string, path: string): Buffer | undefined {
	const r = Bun.spawnSync(["git", "--git-dir", gitDir, "cat-file", "blob", `${commit}:${path}`], {
		env: GIT_ENV(),
		stdout: "pipe",
		stderr: "ignore",
	});
	return r.exitCode === 0 ? Buffer.from(r.stdout) : undefined;
}

/**
 * blob() for many paths at one commit, by one `git cat-file --batch` instead of a process each (a
 * sync of a thousand changed files was two thousand processes). A path with a newline, which the
 * batch protocol cannot carry, is read alone.
 */
export function blobs(
	gitDir: string,
	commit: string,
	paths: readonly string[],
): Map<string, Buffer | undefined> {
	const out = new Map<string, Buffer | undefined>();
	const batched = paths.filter((p) => !p.includes("\n"));
	for (const p of paths) if (p.includes("\n")) out.set(p, blob(gitDir, commit, p));
	if (batched.length === 0) return out;
	const r = Bun.spawnSync(["git", "--git-dir", gitDir, "cat-file", "--batch"], {
		env: GIT_ENV(),
		stdin: Buffer.from(batched.map((p) => `${commit}:${p}\n`).join("")),
		stdout: "pipe",
		stderr: "pipe",
	});
	if (r.exitCode !== 0) throw new Error(`git cat-file --batch: ${r.stderr.toString().trim()}`);
	const bytes = Buffer.from(r.stdout);
	let at = 0;
	for (const path of batched) {
		const eol = bytes.indexOf(10, at);
		const header = bytes.subarray(at, eol).toString("latin1").split(" ");
		at = eol + 1;
		if (header[1] !== "blob") {
			out.set(path, undefined); // missing, or a tree
			if (header[1] !== undefined && header[2] !== undefined && header[1] !== "missing")
				at += Number(header[2]) + 1;
			continue;
		}
		const size = Number(header[2]);
		out.set(path, bytes.subarray(at, at + size));
		at += size + 1;
	}
	return out;
}

/** The workspace session `id` already has (its agent is started again): as it was left. */
export function openWorkspace(root: string, id: string): Workspace {
	const dir = workspaceDir(root, id);
	const files = git(["--git-dir", join(dir, "base.git"), "ls-tree", "-r", "--name-only", "HEAD"])
		.split("\n")
		.filter(Boolean).length;
	return {
		dir,
		work: join(dir, "work"),
		base: join(dir, "base.git"),
		files,
		remove: () => rmSync(dir, { recursive: true, force: true }),
	};
}

/** Makes the workspace of session `id` with the files `readable` allows (none when it is empty). */
export async function createWorkspace(
	root: string,
	id: string,
	readable: readonly string[],
): Promise<Workspace> {
	const dir = workspaceDir(root, id);
	const remove = () => rmSync(dir, { recursive: true, force: true });
	privateDir(workspacesRoot());
	privateDir(dir);
	const work = join(dir, "work");
	const base = join(dir, "base.git");
	try {
		mkdirSync(work, { mode: 0o700 });
		const files = await scopedFiles(root, readable);
		copyTree(root, work, files);
		git(["init", "-q", "--bare", base]);
		const inBase = ["--git-dir", base, "--work-tree", work];
		// Through an index of its own, never base.git/index: a copied index would carry stat data of
		// files as they were then, and the agent's git could take a changed file for unchanged.
		const index = { GIT_INDEX_FILE: join(dir, "create.index") };
		git([...inBase, "add", "-A"], undefined, index);
		git(
			[...inBase, "commit", "-q", "--allow-empty", "-m", "The project's files this task may read"],
			undefined,
			index,
		);
		rmSync(index.GIT_INDEX_FILE, { force: true });
		// The agent's own repository: the same one commit, objects and all, nothing else.
		cpSync(base, join(work, ".git"), { recursive: true });
		git(["config", "core.bare", "false"], work);
		git(["reset", "-q"], work);
		return { dir, work, base, files: files.length, remove };
	} catch (err) {
		remove();
		throw err;
	}
}
