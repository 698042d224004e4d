// The apply journal: written (atomically, with every before-state's bytes already stored as blobs)
// before a single repository file is touched, and removed once the database has recorded the
// transaction. A journal still pending means a process died in between; recovery settles it.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fsutil.ts";
import type { FileState } from "../vocabulary/records.ts";
import { BLOBS_DIR, JOURNAL_DIR } from "./state.ts";

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

/** The name of the scratch copy an apply works out its after-states in (src/apply/transact.ts). */
export const SCRATCH_PREFIX = "scratch-";

/**
 * A folder or file of the journal directory that only a live apply or rollback uses: a scratch copy,
 * or writeFileAtomic's temp file (a journal or a blob cut off before its rename). Only applies,
 * rollbacks and recovery make them, each holding the repository lock alone, so whoever holds that
 * lock finds only those of dead processes.
 */
const isLeftover = (name: string) => name.startsWith(SCRATCH_PREFIX) || /^\..+\.tmp$/.test(name);

/** What the journal directory holds beyond the blobs: pending journals, leftovers of dead processes. */
export function journalState(root: string): { pending: boolean; leftovers: boolean } {
	let names: string[];
	try {
		names = readdirSync(join(root, JOURNAL_DIR));
	} catch {
		return { pending: false, leftovers: false };
	}
	return { pending: names.some((n) => n.endsWith(PENDING)), leftovers: names.some(isLeftover) };
}

/**
 * Removes the leftovers (see isLeftover) in the journal directory and its blobs, and returns their
 * paths. The caller must hold the repository lock exclusively: a live apply's scratch copy is then
 * impossible. One that cannot be removed stays for the next try rather than failing the caller.
 */
export function removeLeftovers(root: string): string[] {
	const removed: string[] = [];
	for (const dir of [JOURNAL_DIR, BLOBS_DIR]) {
		let names: string[];
		try {
			names = readdirSync(join(root, dir));
		} catch {
			continue;
		}
		for (const name of names.filter(isLeftover)) {
			try {
				rmSync(join(root, dir, name), { recursive: true, force: true });
				removed.push(`${dir}/${name}`);
			} catch {
				// Not ours to fix (a permission changed under us): the next recovery tries again.
			}
		}
	}
	return removed;
}
