// The apply journal: written (atomically, with every before-state's bytes already stored as blobs)
// before a single repository file is touched, and removed once the database has recorded the
// transaction. A journal still pending means a process died in between; recovery settles it.
import { readdirSync, readFileSync, rmSync } from "node:fs";
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

/**
 * Settles a journal once the transaction is recorded or its files were restored, by removing it: the database and the `patch.recovered` event keep the record, and the directory
 * stays as small as the number of applies in flight.
 */
export function settleJournal(root: string, tx: string): void {
	rmSync(pendingPath(root, tx), { force: true });
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
