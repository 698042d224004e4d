// The journaled transaction under patch.apply and patch.rollback: every touched path's before and
// after states (the patch applied to a scratch copy), then the journal, the files and the database,
// the files put back if the database refuses; and the test-only crash and pause points between them.
import {
	chmodSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readlinkSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { failedPrecondition } from "../errors.ts";
import { gitApply } from "../patches.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Runtime } from "../runtime.ts";
import { type JournalEntry, SCRATCH_PREFIX, settleJournal, writeJournal } from "./journal.ts";
import { capture, JOURNAL_DIR, restore } from "./state.ts";

/** Test-only: `ROUNDTABLE_TEST_CRASH_AT=<step>` kills this process at that step (see the apply tests). */
function crashPoint(step: string): void {
	if (process.env.ROUNDTABLE_TEST_CRASH_AT === step) process.kill(process.pid, "SIGKILL");
}

/**
 * Test-only: `ROUNDTABLE_TEST_PAUSE_AT=<step>` holds this apply at that step (the repository lock
 * held) until the file `ROUNDTABLE_TEST_PAUSE_FILE` exists; `<that file>.reached` says it got there.
 */
async function pausePoint(step: string): Promise<void> {
	const file = process.env.ROUNDTABLE_TEST_PAUSE_FILE;
	if (process.env.ROUNDTABLE_TEST_PAUSE_AT !== step || file === undefined) return;
	writeFileSync(`${file}.reached`, "");
	while (!existsSync(file)) await Bun.sleep(10);
}

/** Before and after states of every touched path: the patch applied to a scratch copy of them. */
export async function workOut(
	root: string,
	patchFile: string,
	strip: number,
	paths: string[],
): Promise<JournalEntry[]> {
	const guard = new RepoGuard(root);
	mkdirSync(join(root, JOURNAL_DIR), { recursive: true, mode: 0o700 });
	const scratch = mkdtempSync(join(root, JOURNAL_DIR, SCRATCH_PREFIX));
	try {
		const entries: JournalEntry[] = [];
		for (const path of paths) {
			guard.entry(path, "patch"); // inside the repository, never .git/ or .roundtable/
			const before = capture(root, root, path);
			if (before) {
				const from = join(root, path);
				const to = join(scratch, path);
				mkdirSync(dirname(to), { recursive: true });
				if (before.kind === "symlink") symlinkSync(readlinkSync(from), to);
				else {
					copyFileSync(from, to);
					chmodSync(to, before.mode);
				}
			}
			entries.push({ path, before, after: null });
		}
		const failure = await gitApply(scratch, patchFile, strip, false);
		if (failure !== undefined) throw failedPrecondition(`the patch no longer applies: ${failure}`);
		await pausePoint("in_scratch");
		crashPoint("in_scratch");
		for (const e of entries) e.after = capture(root, scratch, e.path);
		return entries;
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

function writeAfter(root: string, entries: JournalEntry[]): void {
	entries.forEach((e, k) => {
		restore(root, e.path, e.after);
		crashPoint(`after_file:${k + 1}`);
	});
}

function undoWrites(root: string, entries: JournalEntry[]): void {
	for (const e of [...entries].reverse()) restore(root, e.path, e.before);
}

/**
 * Journal, files, then the database. If the database commit fails (something changed meanwhile),
 * the files are put back before the error goes out.
 */
export async function transact<T>(
	rt: Runtime,
	tx: { id: string; kind: "apply" | "rollback"; proposal_id: string },
	entries: JournalEntry[],
	commit: () => Promise<T>,
): Promise<T> {
	crashPoint("before_journal");
	writeJournal(rt.root, {
		version: 1,
		transaction_id: tx.id,
		kind: tx.kind,
		proposal_id: tx.proposal_id,
		entries,
		created_at: new Date().toISOString(),
	});
	crashPoint("after_journal");
	let result: T;
	try {
		writeAfter(rt.root, entries);
		crashPoint("after_files");
		result = await commit();
	} catch (err) {
		undoWrites(rt.root, entries);
		settleJournal(rt.root, tx.id);
		throw err;
	}
	crashPoint("after_commit");
	settleJournal(rt.root, tx.id);
	return result;
}
