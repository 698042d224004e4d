import type { TurnStatus } from "../vocabulary/statuses.ts";
import type { Conn } from "./db.ts";

export interface TurnRow {
	request_event_id: number;
	run_id: string;
	agent_id: string;
	reason_md: string;
	status: TurnStatus;
	requested_at: string;
	scheduled_at: string | null;
	started_at: string | null;
	ended_at: string | null;
	lease_expires_at: string | null;
	updated_at: string;
}

const COLUMNS =
	"request_event_id, run_id, agent_id, reason_md, status, requested_at, scheduled_at, started_at, ended_at, lease_expires_at, updated_at";
const OUTSTANDING = "status IN ('requested', 'scheduled', 'started')";

export const turnQueries = (c: Conn) => ({
	async get(requestEventId: number): Promise<TurnRow | undefined> {
		return c.get<TurnRow>(`SELECT ${COLUMNS} FROM turns WHERE request_event_id = ?`, requestEventId);
	},

	/** The agent's outstanding request in the run, if any. */
	async outstanding(runId: string, agentId: string): Promise<TurnRow | undefined> {
		return c.get<TurnRow>(
			`SELECT ${COLUMNS} FROM turns WHERE run_id = ? AND agent_id = ? AND ${OUTSTANDING}`,
			runId,
			agentId,
		);
	},

	/** 1-based: outstanding requests of the run with an id up to this one. */
	async position(runId: string, requestEventId: number): Promise<number> {
		return (
			c.get<{ n: number }>(
				`SELECT count(*) AS n FROM turns WHERE run_id = ? AND ${OUTSTANDING} AND request_event_id <= ?`,
				runId,
				requestEventId,
			)?.n ?? 0
		);
	},

	/** Every outstanding request of the run, oldest first: the queue. */
	async queue(runId: string): Promise<TurnRow[]> {
		return c.all<TurnRow>(
			`SELECT ${COLUMNS} FROM turns WHERE run_id = ? AND ${OUTSTANDING} ORDER BY request_event_id`,
			runId,
		);
	},

	/** Every outstanding request in every run, oldest first: the dashboard's queue. */
	async allOutstanding(): Promise<TurnRow[]> {
		return c.all<TurnRow>(`SELECT ${COLUMNS} FROM turns WHERE ${OUTSTANDING} ORDER BY request_event_id`);
	},

	async countOutstanding(runId: string): Promise<number> {
		return (
			c.get<{ n: number }>(`SELECT count(*) AS n FROM turns WHERE run_id = ? AND ${OUTSTANDING}`, runId)?.n ??
			0
		);
	},

	/** The run's turn that holds the floor (scheduled or started), if any. */
	async current(runId: string): Promise<TurnRow | undefined> {
		return c.get<TurnRow>(
			`SELECT ${COLUMNS} FROM turns WHERE run_id = ? AND status IN ('scheduled', 'started') ORDER BY request_event_id LIMIT 1`,
			runId,
		);
	},

	/** The oldest request of the run still waiting to be scheduled. */
	async next(runId: string): Promise<TurnRow | undefined> {
		return c.get<TurnRow>(
			`SELECT ${COLUMNS} FROM turns WHERE run_id = ? AND status = 'requested' ORDER BY request_event_id LIMIT 1`,
			runId,
		);
	},

	/** Scheduled or started turns whose lease ran out by `now`, in any run, oldest request first. */
	async leaseDue(now: string): Promise<TurnRow[]> {
		// Sorted here: asked to sort, SQLite reads every turn ever taken in request order rather than
		// the few live ones turns_by_lease holds.
		return c
			.all<TurnRow>(
				`SELECT ${COLUMNS} FROM turns WHERE status IN ('scheduled', 'started') AND lease_expires_at <= ?`,
				now,
			)
			.sort((a, b) => a.request_event_id - b.request_event_id);
	},

	async insert(
		t: { request_event_id: number; run_id: string; agent_id: string; reason_md: string },
		now: string,
	): Promise<TurnRow> {
		return c.get<TurnRow>(
			`INSERT INTO turns (request_event_id, run_id, agent_id, reason_md, status, requested_at, updated_at)
			 VALUES (?, ?, ?, ?, 'requested', ?, ?) RETURNING ${COLUMNS}`,
			t.request_event_id,
			t.run_id,
			t.agent_id,
			t.reason_md,
			now,
			now,
		) as TurnRow;
	},

	async schedule(requestEventId: number, leaseExpiresAt: string, now: string): Promise<TurnRow> {
		return c.get<TurnRow>(
			`UPDATE turns SET status = 'scheduled', scheduled_at = ?, lease_expires_at = ?, updated_at = ?
			 WHERE request_event_id = ? RETURNING ${COLUMNS}`,
			now,
			leaseExpiresAt,
			now,
			requestEventId,
		) as TurnRow;
	},

	async start(requestEventId: number, leaseExpiresAt: string, now: string): Promise<TurnRow> {
		return c.get<TurnRow>(
			`UPDATE turns SET status = 'started', started_at = ?, lease_expires_at = ?, updated_at = ?
			 WHERE request_event_id = ? RETURNING ${COLUMNS}`,
			now,
			leaseExpiresAt,
			now,
			requestEventId,
		) as TurnRow;
	},

	/**
	 * Completed or expired: the request is finished and its agent may request again. An expired turn
	 * keeps its lease end, so a late caller learns when it ran out.
	 */
	async end(requestEventId: number, status: "completed" | "expired", now: string): Promise<TurnRow> {
		return c.get<TurnRow>(
			`UPDATE turns SET status = ?, ended_at = ?,
			 lease_expires_at = CASE WHEN ? = 'expired' THEN lease_expires_at END, updated_at = ?
			 WHERE request_event_id = ? RETURNING ${COLUMNS}`,
			status,
			now,
			status,
			now,
			requestEventId,
		) as TurnRow;
	},
});
