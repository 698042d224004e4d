// Peer questions and their answers. A request keeps its requester, assignee and source for good;
// answers are only ever added.
import type { PeerAnswerRecord, PeerRequestRecord } from "../vocabulary/records.ts";
import type { RequestStatus } from "../vocabulary/statuses.ts";
import type { Conn, Params } from "./db.ts";

const COLUMNS =
	"id, requester_id, assignee_id, question_md, task_id, proposal_id, status, answered_at, cancelled_by, cancel_reason_md, cancelled_at, revision, created_at, updated_at";
const ANSWER_COLUMNS = "id, request_id, author_id, answer_md, late, created_at";

type AnswerRow = Omit<PeerAnswerRecord, "late"> & { late: number };
const toAnswer = (r: AnswerRow): PeerAnswerRecord => ({ ...r, late: r.late === 1 });

/** A page position: requests sort by (created_at, id). */
export interface RequestPosition {
	created_at: string;
	id: string;
}

export interface RequestFilter {
	/** Requests addressed to this agent, asked by it, or either. */
	to?: string;
	from?: string;
	party?: string;
	status?: RequestStatus;
}

export const peerQueries = (c: Conn) => ({
	async get(id: string): Promise<PeerRequestRecord | undefined> {
		return c.get<PeerRequestRecord>(`SELECT ${COLUMNS} FROM peer_requests WHERE id = ?`, id);
	},

	/** How many requests have this status, table-wide (the run view's count of open questions). */
	async countByStatus(status: RequestStatus): Promise<number> {
		return c.get<{ n: number }>("SELECT count(*) AS n FROM peer_requests WHERE status = ?", status)?.n ?? 0;
	},

	async insert(
		r: Pick<
			PeerRequestRecord,
			"id" | "requester_id" | "assignee_id" | "question_md" | "task_id" | "proposal_id"
		>,
		now: string,
	): Promise<PeerRequestRecord> {
		return c.get<PeerRequestRecord>(
			`INSERT INTO peer_requests (id, requester_id, assignee_id, question_md, task_id, proposal_id, status,
			 created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?) RETURNING ${COLUMNS}`,
			r.id,
			r.requester_id,
			r.assignee_id,
			r.question_md,
			r.task_id,
			r.proposal_id,
			now,
			now,
		) as PeerRequestRecord;
	},

	/** The first answer of an open request: it becomes `answered`. */
	async markAnswered(id: string, now: string): Promise<PeerRequestRecord> {
		return c.get<PeerRequestRecord>(
			`UPDATE peer_requests SET status = 'answered', answered_at = ?, revision = revision + 1, updated_at = ?
			 WHERE id = ? RETURNING ${COLUMNS}`,
			now,
			now,
			id,
		) as PeerRequestRecord;
	},

	async cancel(id: string, by: string, reason: string, now: string): Promise<PeerRequestRecord> {
		return c.get<PeerRequestRecord>(
			`UPDATE peer_requests SET status = 'cancelled', cancelled_by = ?, cancel_reason_md = ?, cancelled_at = ?,
			 revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
			by,
			reason,
			now,
			now,
			id,
		) as PeerRequestRecord;
	},

	/** Requests in (created_at, id) order, after `from`, at most `limit`. */
	async list(
		filter: RequestFilter,
		from: RequestPosition | undefined,
		limit: number,
	): Promise<PeerRequestRecord[]> {
		const where: string[] = [];
		const params: Params = [];
		if (filter.to !== undefined) {
			where.push("assignee_id = ?");
			params.push(filter.to);
		}
		if (filter.from !== undefined) {
			where.push("requester_id = ?");
			params.push(filter.from);
		}
		if (filter.party !== undefined) {
			where.push("(assignee_id = ? OR requester_id = ?)");
			params.push(filter.party, filter.party);
		}
		if (filter.status !== undefined) {
			where.push("status = ?");
			params.push(filter.status);
		}
		if (from) {
			where.push("(created_at, id) > (?, ?)");
			params.push(from.created_at, from.id);
		}
		const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
		return c.all<PeerRequestRecord>(
			`SELECT ${COLUMNS} FROM peer_requests ${clause} ORDER BY created_at, id LIMIT ?`,
			...params,
			limit,
		);
	},

	async answers(requestId: string): Promise<PeerAnswerRecord[]> {
		return c
			.all<AnswerRow>(
				`SELECT ${ANSWER_COLUMNS} FROM peer_answers WHERE request_id = ? ORDER BY created_at, id`,
				requestId,
			)
			.map(toAnswer);
	},

	async addAnswer(a: Omit<PeerAnswerRecord, "created_at">, now: string): Promise<PeerAnswerRecord> {
		return toAnswer(
			c.get<AnswerRow>(
				`INSERT INTO peer_answers (id, request_id, author_id, answer_md, late, created_at)
				 VALUES (?, ?, ?, ?, ?, ?) RETURNING ${ANSWER_COLUMNS}`,
				a.id,
				a.request_id,
				a.author_id,
				a.answer_md,
				a.late ? 1 : 0,
				now,
			) as AnswerRow,
		);
	},
});
