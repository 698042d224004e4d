import type { SecurityReviewRecord } from "../vocabulary/records.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, proposal_id, resource_id, task_id, reviewer_id, status, mode, summary_md, findings, patch_revision, revision, created_at, updated_at";

interface ReviewRow extends Omit<SecurityReviewRecord, "findings"> {
	findings: string;
}

const toRecord = (r: ReviewRow): SecurityReviewRecord => ({ ...r, findings: JSON.parse(r.findings) });

export type NewReview = Omit<SecurityReviewRecord, "revision" | "created_at" | "updated_at">;

export const reviewQueries = (c: Conn) => ({
	async get(id: string): Promise<SecurityReviewRecord | undefined> {
		const row = c.get<ReviewRow>(`SELECT ${COLUMNS} FROM security_reviews WHERE id = ?`, id);
		return row && toRecord(row);
	},

	async insert(r: NewReview, now: string): Promise<SecurityReviewRecord> {
		return toRecord(
			c.get<ReviewRow>(
				`INSERT INTO security_reviews (id, proposal_id, resource_id, task_id, reviewer_id, status, mode, summary_md, findings,
				 patch_revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
				r.id,
				r.proposal_id,
				r.resource_id,
				r.task_id,
				r.reviewer_id,
				r.status,
				r.mode,
				r.summary_md,
				JSON.stringify(r.findings),
				r.patch_revision,
				now,
				now,
			) as ReviewRow,
		);
	},

	/** The latest review of a proposal's given patch revision, if any. */
	async latest(proposalId: string, patchRevision: number): Promise<SecurityReviewRecord | undefined> {
		const row = c.get<ReviewRow>(
			// rowid: insertion order, which a clock with millisecond steps cannot always tell apart.
			`SELECT ${COLUMNS} FROM security_reviews WHERE proposal_id = ? AND patch_revision = ? ORDER BY rowid DESC LIMIT 1`,
			proposalId,
			patchRevision,
		);
		return row && toRecord(row);
	},

	async list(proposalId: string): Promise<SecurityReviewRecord[]> {
		return c
			.all<ReviewRow>(
				`SELECT ${COLUMNS} FROM security_reviews WHERE proposal_id = ? ORDER BY created_at, id`,
				proposalId,
			)
			.map(toRecord);
	},

	async all(): Promise<SecurityReviewRecord[]> {
		return c.all<ReviewRow>(`SELECT ${COLUMNS} FROM security_reviews ORDER BY created_at, id`).map(toRecord);
	},
});
