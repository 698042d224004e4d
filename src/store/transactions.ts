import type { TransactionRecord } from "../vocabulary/records.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, kind, proposal_id, run_id, patch_revision, patch_sha256, status, rolls_back, applied_by, applied_at, reason_md, files, gates, revision, created_at, updated_at";

interface TransactionRow extends Omit<TransactionRecord, "files" | "gates"> {
	files: string;
	gates: string | null;
}

const toRecord = (r: TransactionRow): TransactionRecord => ({
	...r,
	files: JSON.parse(r.files),
	gates: r.gates === null ? null : JSON.parse(r.gates),
});

export type NewTransaction = Omit<TransactionRecord, "status" | "revision" | "created_at" | "updated_at">;

export const transactionQueries = (c: Conn) => ({
	async get(id: string): Promise<TransactionRecord | undefined> {
		const row = c.get<TransactionRow>(`SELECT ${COLUMNS} FROM transactions WHERE id = ?`, id);
		return row && toRecord(row);
	},

	async insert(t: NewTransaction, now: string): Promise<TransactionRecord> {
		return toRecord(
			c.get<TransactionRow>(
				`INSERT INTO transactions (id, kind, proposal_id, run_id, patch_revision, patch_sha256, status, rolls_back, applied_by,
				 applied_at, reason_md, files, gates, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'applied', ?, ?, ?, ?, ?, ?, ?, ?)
				 RETURNING ${COLUMNS}`,
				t.id,
				t.kind,
				t.proposal_id,
				t.run_id,
				t.patch_revision,
				t.patch_sha256,
				t.rolls_back,
				t.applied_by,
				t.applied_at,
				t.reason_md,
				JSON.stringify(t.files),
				t.gates === null ? null : JSON.stringify(t.gates),
				now,
				now,
			) as TransactionRow,
		);
	},

	async markRolledBack(id: string, now: string): Promise<TransactionRecord> {
		return toRecord(
			c.get<TransactionRow>(
				`UPDATE transactions SET status = 'rolled_back', revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
				now,
				id,
			) as TransactionRow,
		);
	},

	async forProposal(proposalId: string): Promise<TransactionRecord[]> {
		return c
			.all<TransactionRow>(
				`SELECT ${COLUMNS} FROM transactions WHERE proposal_id = ? ORDER BY rowid`,
				proposalId,
			)
			.map(toRecord);
	},

	/**
	 * Applies after `id` (in commit order), not rolled back, that touched any of these paths. A
	 * rollback is not one: it left its files as they were before an apply that came after `id`.
	 */
	async laterTouching(id: string, paths: string[]): Promise<TransactionRecord[]> {
		const wanted = new Set(paths);
		return c
			.all<TransactionRow>(
				`SELECT ${COLUMNS} FROM transactions WHERE kind = 'apply' AND status = 'applied' AND rowid > (SELECT rowid FROM transactions WHERE id = ?) ORDER BY rowid`,
				id,
			)
			.map(toRecord)
			.filter((t) => t.files.some((f) => wanted.has(f.path)));
	},

	async all(): Promise<TransactionRecord[]> {
		return c.all<TransactionRow>(`SELECT ${COLUMNS} FROM transactions ORDER BY rowid`).map(toRecord);
	},

	/** The newest `limit`, oldest first. */
	async tail(limit: number): Promise<TransactionRecord[]> {
		return c
			.all<TransactionRow>(`SELECT ${COLUMNS} FROM transactions ORDER BY rowid DESC LIMIT ?`, limit)
			.map(toRecord)
			.reverse();
	},
});
