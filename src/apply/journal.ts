// The apply journal: written (atomically, with every before-state's bytes already stored as blobs)
// before a single repository file is touched, and marked done once the database has recorded the
// transaction. A journal still pending means a process died in between; recovery settles it.
import { readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fsutil.ts";
import type { FileState } from "../registry/records.ts";
import { JOURNAL_DIR } from "./state.ts";

export interface JournalEntry {
	path: string;
	before: FileState | null;
	after: FileState | null;
}

export interface Journal {
	version: 1;
	transaction_id: string;
	kind: "apply" | "rollback";
	proposal_id: string;
	entries: JournalEntry[];
	created_at: string;
}

// The state is in the file name, so finding pending journals is one directory listing.
const PENDING = ".pending.json";
const pendingPath = (root: string, tx: string) => join(root, JOURNAL_DIR, `${tx}${PENDING}`);

export function writeJournal(root: string, journal: Journal): void {
	writeFileAtomic(pendingPath(root, journal.transaction_id), `${JSON.stringify(journal, null, 1)}\n`, 0o600);
}

/** Marks a journal settled: `done` (the transaction is recorded) or `undone` (its files were restored). */
export function settleJournal(root: string, tx: string, outcome: "done" | "undone"): void {
	renameSync(pendingPath(root, tx), join(root, JOURNAL_DIR, `${tx}.${outcome}.json`));
}

export function pendingJournals(root: string): Journal[] {
	let names: string[];
	try {
		names = readdirSync(join(root, JOURNAL_DIR));
	} catch {
		return [];
	}
	return names
		.filter((n) => n.endsWith(PENDING))
		.sort()
		.map((n) => JSON.parse(readFileSync(join(root, JOURNAL_DIR, n), "utf8")) as Journal);
}

export const hasPendingJournal = (root: string): boolean => {
	try {
		return readdirSync(join(root, JOURNAL_DIR)).some((n) => n.endsWith(PENDING));
	} catch {
		return false;
	}
};
