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
import { conflict, failedPrecondition } from "../errors.ts";
import { copyTree } from "../repo/copy.ts";
import { addWorkTree, blobs, GIT_ENV, git, workspaceDir } from "./create.ts";

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
		addWorkTree(["--git-dir", base, "--work-tree", work, "add", "-A"], env);
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
	if (!existsSync(join(base, "HEAD")) || !existsSync(work))
		throw failedPrecondition(`session ${id} has no workspace`, { session_id: id });
	const old = git(["--git-dir", base, "rev-parse", "HEAD"]).trim();
	// Before anything changes: the work tree, for undo (its ref is set once the sync has succeeded).
	const before = snapshot(base, work, dir);
	const next = commitProject(root, base, dir, old, files);
	// Only what the project changed between the two bases is looked at: every other file of the
	// workspace stays as the agent left it (a 20,000-file scope costs one diff-tree, not 40,000 reads).
	const changed = git(["--git-dir", base, "diff-tree", "-r", "-z", "--no-renames", "--name-only", old, next])
		.split("\0")
		.filter((p) => p !== "")
		.sort();
	const { outcome, writes } = plan(base, work, dir, old, next, changed);
	write(work, writes);
	git(["--git-dir", base, "update-ref", PRE_SYNC, before]);
	git(["--git-dir", base, "update-ref", PRE_SYNC_BASE, old]);
	git(["--git-dir", base, "update-ref", "HEAD", next]);
	renewAgentRepository(base, work);
	return outcome;
}

/** The project's current files in scope committed onto `old` in base.git, through a scratch tree. */
function commitProject(root: string, base: string, dir: string, old: string, files: string[]): string {
	const scratch = mkdtempSync(join(dir, "sync-"));
	const env = { GIT_INDEX_FILE: join(dir, "sync.index") };
	try {
		copyTree(root, scratch, files);
		git(["--git-dir", base, "--work-tree", scratch, "add", "-A"], undefined, env);
		const tree = git(["--git-dir", base, "write-tree"], undefined, env).trim();
		return git([
			"--git-dir",
			base,
			"commit-tree",
			tree,
			"-p",
			old,
			"-m",
			"The project's files this task may read",
		]).trim();
	} finally {
		rmSync(env.GIT_INDEX_FILE, { force: true });
		rmSync(scratch, { recursive: true, force: true });
	}
}

/** A file the sync replaces: what the agent's copy held when the sync read it, and what it becomes. */
interface Write {
	path: string;
	was: Buffer | undefined;
	becomes: Buffer | undefined;
}

const same = (a?: Buffer, b?: Buffer) => (a === undefined ? b === undefined : b !== undefined && a.equals(b));

/** What the sync will write, worked out before anything is written. */
function plan(base: string, work: string, dir: string, old: string, next: string, changed: string[]) {
	const outcome: SyncOutcome = { base: next, taken: [], merged: [], conflicts: [] };
	const writes: Write[] = [];
	const olds = blobs(base, old, changed);
	const nexts = blobs(base, next, changed);
	for (const path of changed) {
		const o = olds.get(path);
		const n = nexts.get(path);
		const w = readWork(work, path);
		if (same(o, n) || same(w, n)) continue; // the project did not change it, or both made that change
		if (same(w, o)) {
			writes.push({ path, was: w, becomes: n }); // only the project changed it
			outcome.taken.push(path);
		} else if (o !== undefined && n !== undefined && w !== undefined) {
			const { bytes, clean } = mergeFile(dir, path, w, o, n);
			writes.push({ path, was: w, becomes: bytes });
			(clean ? outcome.merged : outcome.conflicts).push(path);
		} else outcome.conflicts.push(path); // deleted on one side, changed on the other: the agent's side kept
	}
	return { outcome, writes };
}

/** `git merge-file` of the agent's copy, the base and the project's: the result, and whether it is clean. */
function mergeFile(dir: string, path: string, mine: Buffer, base: Buffer, theirs: Buffer) {
	const temp = mkdtempSync(join(dir, "merge-"));
	try {
		const at = (name: string, bytes: Buffer) => {
			writeFileSync(join(temp, name), bytes);
			return join(temp, name);
		};
		const r = Bun.spawnSync(
			[
				"git",
				"merge-file",
				"-p",
				"-L",
				"workspace",
				"-L",
				"base",
				"-L",
				"project",
				at("mine", mine),
				at("base", base),
				at("theirs", theirs),
			],
			{ env: GIT_ENV(), stdout: "pipe", stderr: "pipe" },
		);
		if (r.exitCode === null || r.exitCode < 0 || r.exitCode >= 128)
			throw new Error(`git merge-file ${path}: ${r.stderr.toString().trim()}`);
		return { bytes: Buffer.from(r.stdout), clean: r.exitCode === 0 };
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
}

/**
 * Writes the planned files, each only if the agent's copy is still what the sync read. A file the
 * agent wrote meanwhile stops the sync before anything is written (or, in the instant between the
 * check and the writes, puts back what was written): nothing of the agent's is overwritten, and the
 * workspace is never half-synced. It is `conflict`: sync again once the agent's writes are done.
 */
function write(work: string, writes: Write[]): void {
	const moved = () => writes.filter((w) => !same(readWork(work, w.path), w.was)).map((w) => w.path);
	const refuse = (paths: string[]) =>
		conflict(
			`the workspace changed while it was being synced (${paths.join(", ")}): nothing was synced; sync again once your writes are done`,
			{ files: paths },
		);
	const early = moved();
	if (early.length > 0) throw refuse(early);
	const done: Write[] = [];
	for (const w of writes) {
		if (!same(readWork(work, w.path), w.was)) {
			for (const d of done) writeWork(work, d.path, d.was);
			throw refuse([w.path]);
		}
		writeWork(work, w.path, w.becomes);
		done.push(w);
	}
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
	// A few hundred files' bytes at a time: a whole workspace is never held at once.
	const files = filesAt(base, snapshotCommit);
	for (let i = 0; i < files.length; i += 500)
		for (const [path, bytes] of blobs(base, snapshotCommit, files.slice(i, i + 500)))
			writeWork(work, path, bytes);
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
		addWorkTree(["--git-dir", base, "--work-tree", work, "add", "-A"], env);
		return git(["--git-dir", base, "--work-tree", work, "ls-files", "-z"], undefined, env)
			.split("\0")
			.filter((p) => p !== "");
	} finally {
		rmSync(env.GIT_INDEX_FILE, { force: true });
	}
}
