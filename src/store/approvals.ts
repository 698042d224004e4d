import type { ApprovalRecord } from "../vocabulary/records.ts";
import type { ApprovalStatus } from "../vocabulary/statuses.ts";
import type { Conn, Params } from "./db.ts";

const COLUMNS =
	"id, proposal_id, task_id, subject, reason_md, status, requested_by, decision_md, decided_by, decided_at, override_policy, patch_revision, revision, created_at, updated_at";

interface ApprovalRow extends Omit<ApprovalRecord, "override_policy"> {
	override_policy: number;
}

const toRecord = (r: ApprovalRow): ApprovalRecord => ({ ...r, override_policy: r.override_policy === 1 });

export const approvalQueries = (c: Conn) => ({
	async get(id: string): Promise<ApprovalRecord | undefined> {
		const row = c.get<ApprovalRow>(`SELECT ${COLUMNS} FROM human_approvals WHERE id = ?`, id);
		return row && toRecord(row);
	},

	async request(
		a: Pick<
			ApprovalRecord,
			"id" | "proposal_id" | "task_id" | "subject" | "reason_md" | "requested_by" | "patch_revision"
		>,
		now: string,
	): Promise<ApprovalRecord> {
		return toRecord(
			c.get<ApprovalRow>(
				`INSERT INTO human_approvals (id, proposal_id, task_id, subject, reason_md, status, requested_by, patch_revision,
				 created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'requested', ?, ?, ?, ?) RETURNING ${COLUMNS}`,
				a.id,
				a.proposal_id,
				a.task_id,
				a.subject,
				a.reason_md,
				a.requested_by,
				a.patch_revision,
				now,
				now,
			) as ApprovalRow,
		);
	},

	async decide(
		id: string,
		d: {
			status: "approved" | "rejected";
			decided_by: string;
			decision_md: string | null;
			override_policy: boolean;
		},
		now: string,
	): Promise<ApprovalRecord> {
		return toRecord(
			c.get<ApprovalRow>(
				`UPDATE human_approvals SET status = ?, decided_by = ?, decision_md = ?, override_policy = ?, decided_at = ?,
				 decision_seq = (SELECT coalesce(max(decision_seq), 0) + 1 FROM human_approvals),
				 revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
				d.status,
				d.decided_by,
				d.decision_md,
				d.override_policy ? 1 : 0,
				now,
				now,
				id,
			) as ApprovalRow,
		);
	},

	/** The most recent decision on a proposal's given patch revision, if any (by decision order, not clock). */
	async latestDecision(proposalId: string, patchRevision: number): Promise<ApprovalRecord | undefined> {
		const row = c.get<ApprovalRow>(
			`SELECT ${COLUMNS} FROM human_approvals WHERE proposal_id = ? AND patch_revision = ? AND decision_seq IS NOT NULL
			 ORDER BY decision_seq DESC LIMIT 1`,
			proposalId,
			patchRevision,
		);
		return row && toRecord(row);
	},

	async list(filter: { proposal_id?: string; status?: ApprovalStatus }): Promise<ApprovalRecord[]> {
		const where: string[] = [];
		const params: Params = [];
		for (const column of ["proposal_id", "status"] as const) {
			if (filter[column] !== undefined) {
				where.push(`${column} = ?`);
				params.push(filter[column]);
			}
		}
		const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
		return c
			.all<ApprovalRow>(`SELECT ${COLUMNS} FROM human_approvals ${clause} ORDER BY created_at, id`, ...params)
			.map(toRecord);
	},
});
