import type { DecisionRecord } from "../vocabulary/records.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, decision, rationale_md, decided_by, proposal_id, task_id, run_id, status, revision, created_at, updated_at";

export const decisionQueries = (c: Conn) => ({
	async get(id: string): Promise<DecisionRecord | undefined> {
		return c.get<DecisionRecord>(`SELECT ${COLUMNS} FROM decisions WHERE id = ?`, id);
	},

	/** The `limit` newest decisions, newest first. */
	async newest(limit: number): Promise<DecisionRecord[]> {
		return c.all<DecisionRecord>(
			`SELECT ${COLUMNS} FROM decisions ORDER BY created_at DESC, id DESC LIMIT ?`,
			limit,
		);
	},

	async insert(
		d: Omit<DecisionRecord, "revision" | "created_at" | "updated_at">,
		now: string,
	): Promise<DecisionRecord> {
		return c.get<DecisionRecord>(
			`INSERT INTO decisions (id, decision, rationale_md, decided_by, proposal_id, task_id, run_id, status,
			 created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
			d.id,
			d.decision,
			d.rationale_md,
			d.decided_by,
			d.proposal_id,
			d.task_id,
			d.run_id,
			d.status,
			now,
			now,
		) as DecisionRecord;
	},
});
