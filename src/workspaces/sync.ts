// workspace.sync: a workspace brought up to the project's current applied files. A file only the
// project changed is taken; one only the agent changed is kept; one both changed is merged three-way
// over the stored base (`git merge-file`), a conflict left with standard markers and listed. The
// state before is kept in the owner's base.git (refs/roundtable/pre-sync), and `undo` restores it.
// The agent's own .git is made anew from the new base: its changes then show against it.
import {
	cpSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	unlinkSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { failedPrecondition } from "../errors.ts";
import { copyTree } from "../repo/copy.ts";
import { blob, GIT_ENV, git, workspaceDir } from "./create.ts";

const PRE_SYNC = "refs/roundtable/pre-sync";
const PRE_SYNC_BASE = "refs/roundtable/pre-sync-base";

export interface SyncOutcome {
	base: string;
	/** Files the project changed that the workspace now has. */
	taken: string[];
	/** Files both changed, merged cleanly. */
	merged: string[];
	/** Files both changed that conflict: markers left in them (or, for a deletion, the agent's side kept). */
	conflicts: string[];
}

/** The files a tree at `commit` holds. */
const filesAt = (gitDir: string, commit: string) =>
	git(["--git-dir", gitDir, "ls-tree", "-r", "-z", "--name-only", commit])
		.split("\0")
		.filter((p) => p !== "");

function readWork(work: string, path: string): Buffer | undefined {
	const full = join(work, path);
	const stat = lstatSync(full, { throwIfNoEntry: false });
	return stat?.isFile() ? readFileSync(full) : undefined;
}

function writeWork(work: string, path: string, bytes: Buffer | undefined): void {
	const full = join(work, path);
	if (bytes === undefined) {
		if (existsSync(full)) unlinkSync(full);
		return;
	}
	mkdirSync(dirname(full), { recursive: true });
	writeFileSync(full, bytes);
}

/** A snapshot of the work tree as a commit in base.git (through a private index), for undo. */
function snapshot(base: string, work: string, dir: string): string {
	const env = { GIT_INDEX_FILE: join(dir, "snapshot.index") };
	try {
		git(["--git-dir", base, "--work-tree", work, "add", "-A"], undefined, env);
		const tree = git(["--git-dir", base, "write-tree"], undefined, env).trim();
		return git(["--git-dir", base, "commit-tree", tree, "-m", "the workspace before a sync"]).trim();
	} finally {
		rmSync(env.GIT_INDEX_FILE, { force: true });
	}
}

/** The agent's own repository made anew from base.git: one history, the new base its HEAD. */
function renewAgentRepository(base: string, work: string): void {
	rmSync(join(work, ".git"), { recursive: true, force: true });
	cpSync(base, join(work, ".git"), { recursive: true });
	// No index but the one `git reset` builds now, from the files as they are.
	rmSync(join(work, ".git", "index"), { force: true });
	git(["config", "core.bare", "false"], work);
	git(["update-ref", "-d", PRE_SYNC], work);
	git(["update-ref", "-d", PRE_SYNC_BASE], work);
	git(["reset", "-q"], work);
}

export function syncWorkspace(root: string, id: string, files: string[]): SyncOutcome {
	const dir = workspaceDir(root, id);
	const work = join(dir, "work");
	const base = join(dir, "base.git");
	if (!existsSync(join(base, "HEAD")))
		throw failedPrecondition(`session ${id} has no workspace`, { session_id: id });
	const old = git(["--git-dir", base, "rev-parse", "HEAD"]).trim();
	// Before anything changes: the work tree and the base it stood on, for undo.
	git(["--git-dir", base, "update-ref", PRE_SYNC, snapshot(base, work, dir)]);
	git(["--git-dir", base, "update-ref", PRE_SYNC_BASE, old]);
	// The new base: the project's current files in scope, committed through a scratch tree.
	const scratch = mkdtempSync(join(dir, "sync-"));
	let next: string;
	try {
		copyTree(root, scratch, files);
		const env = { GIT_INDEX_FILE: join(dir, "sync.index") };
		git(["--git-dir", base, "--work-tree", scratch, "add", "-A"], undefined, env);
		const tree = git(["--git-dir", base, "write-tree"], undefined, env).trim();
		next = git([
			"--git-dir",
			base,
			"commit-tree",
			tree,
			"-p",
			old,
			"-m",
			"The project's files this task may read",
		]).trim();
		rmSync(env.GIT_INDEX_FILE, { force: true });
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
	const outcome: SyncOutcome = { base: next, taken: [], merged: [], conflicts: [] };
	// Only what the project changed between the two bases is looked at: every other file of the
	// workspace stays as the agent left it (a 20,000-file scope costs one diff-tree, not 40,000 reads).
	const changed = git(["--git-dir", base, "diff-tree", "-r", "-z", "--no-renames", "--name-only", old, next])
		.split("\0")
		.filter((p) => p !== "");
	for (const path of changed.sort()) {
		const o = blob(base, old, path);
		const n = blob(base, next, path);
		const w = readWork(work, path);
		const same = (a?: Buffer, b?: Buffer) =>
			a === undefined ? b === undefined : b !== undefined && a.equals(b);
		if (same(o, n)) continue; // the project did not change it
		if (same(w, o)) {
			writeWork(work, path, n); // only the project changed it
			outcome.taken.push(path);
		} else if (same(w, n))
			continue; // both made the same change
		else if (o !== undefined && n !== undefined && w !== undefined) {
			const temp = mkdtempSync(join(dir, "merge-"));
			try {
				for (const [name, bytes] of [
					["base", o],
					["theirs", n],
				] as const)
					writeFileSync(join(temp, name), bytes);
				const r = Bun.spawnSync(
					[
						"git",
						"merge-file",
						"-L",
						"workspace",
						"-L",
						"base",
						"-L",
						"project",
						join(work, path),
						join(temp, "base"),
						join(temp, "theirs"),
					],
					{ env: GIT_ENV(), stderr: "pipe" },
				);
				if (r.exitCode === 0) outcome.merged.push(path);
				else if (r.exitCode !== null && r.exitCode > 0 && r.exitCode < 128) outcome.conflicts.push(path);
				else throw new Error(`git merge-file ${path}: ${r.stderr.toString().trim()}`);
			} finally {
				rmSync(temp, { recursive: true, force: true });
			}
		} else outcome.conflicts.push(path); // deleted on one side, changed on the other: the agent's side kept
	}
	git(["--git-dir", base, "update-ref", "HEAD", next]);
	renewAgentRepository(base, work);
	return outcome;
}

/** Puts the work tree and the base back as they were before the last sync. */
export function undoSync(root: string, id: string): { base: string } {
	const dir = workspaceDir(root, id);
	const work = join(dir, "work");
	const base = join(dir, "base.git");
	const saved = Bun.spawnSync(["git", "--git-dir", base, "rev-parse", "--verify", "-q", PRE_SYNC], {
		stdout: "pipe",
	});
	if (saved.exitCode !== 0)
		throw failedPrecondition(`session ${id}'s workspace has no sync to undo`, { session_id: id });
	const snapshotCommit = saved.stdout.toString().trim();
	const oldBase = git(["--git-dir", base, "rev-parse", PRE_SYNC_BASE]).trim();
	for (const path of filesAt(base, "HEAD").concat(listWork(base, work, dir)))
		writeWork(work, path, undefined);
	for (const path of filesAt(base, snapshotCommit)) writeWork(work, path, blob(base, snapshotCommit, path));
	git(["--git-dir", base, "update-ref", "HEAD", oldBase]);
	git(["--git-dir", base, "update-ref", "-d", PRE_SYNC]);
	git(["--git-dir", base, "update-ref", "-d", PRE_SYNC_BASE]);
	renewAgentRepository(base, work);
	return { base: oldBase };
}

/** Every file in the work tree now (as git would add it). */
function listWork(base: string, work: string, dir: string): string[] {
	const env = { GIT_INDEX_FILE: join(dir, "list.index") };
	try {
		git(["--git-dir", base, "--work-tree", work, "add", "-A"], undefined, env);
		return git(["--git-dir", base, "--work-tree", work, "ls-files", "-z"], undefined, env)
			.split("\0")
			.filter((p) => p !== "");
	} finally {
		rmSync(env.GIT_INDEX_FILE, { force: true });
	}
}
