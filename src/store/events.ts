import type { EventRecord } from "../vocabulary/records.ts";
import type { Conn } from "./db.ts";

interface EventRow {
	id: number;
	run_id: string | null;
	type: string;
	actor_id: string;
	task_id: string | null;
	payload: string;
	created_at: string;
}

const toRecord = (r: EventRow): EventRecord => ({ ...r, payload: JSON.parse(r.payload) });

export interface NewEvent {
	type: string;
	actor_id: string;
	run_id?: string | null;
	task_id?: string | null;
	payload: Record<string, unknown>;
}

const COLUMNS = "id, run_id, type, actor_id, task_id, payload, created_at";

const INSERT =
	"INSERT INTO events (run_id, type, actor_id, task_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)";

const values = (e: NewEvent, now: string) =>
	[e.run_id ?? null, e.type, e.actor_id, e.task_id ?? null, JSON.stringify(e.payload), now] as const;

export const eventQueries = (c: Conn) => ({
	async append(e: NewEvent, now: string): Promise<EventRecord> {
		const row = c.get<EventRow>(`${INSERT} RETURNING ${COLUMNS}`, ...values(e, now)) as EventRow;
		c.wroteEvents = true;
		return toRecord(row);
	},

	/**
	 * Appends many events, in the order given (their ids ascend in that order), without reading
	 * each row back as `append` does: what a batch of the Chair's records appends.
	 */
	async appendAll(events: readonly NewEvent[], now: string): Promise<void> {
		for (const e of events) c.run(INSERT, ...values(e, now));
		if (events.length > 0) c.wroteEvents = true;
	},

	/** Events with id > afterId, ascending, at most `limit`; `runId` null means every run. */
	async after(afterId: number, runId: string | null, limit: number): Promise<EventRecord[]> {
		const rows =
			runId === null
				? c.all<EventRow>(`SELECT ${COLUMNS} FROM events WHERE id > ? ORDER BY id LIMIT ?`, afterId, limit)
				: c.all<EventRow>(
						`SELECT ${COLUMNS} FROM events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`,
						runId,
						afterId,
						limit,
					);
		return rows.map(toRecord);
	},

	/** The newest `limit` events, in ascending order. */
	async newest(runId: string | null, limit: number): Promise<EventRecord[]> {
		const rows =
			runId === null
				? c.all<EventRow>(`SELECT ${COLUMNS} FROM events ORDER BY id DESC LIMIT ?`, limit)
				: c.all<EventRow>(
						`SELECT ${COLUMNS} FROM events WHERE run_id = ? ORDER BY id DESC LIMIT ?`,
						runId,
						limit,
					);
		return rows.reverse().map(toRecord);
	},

	async lastId(): Promise<number> {
		return c.get<{ id: number | null }>("SELECT max(id) AS id FROM events")?.id ?? 0;
	},

	async exists(id: number): Promise<boolean> {
		return c.get("SELECT 1 FROM events WHERE id = ?", id) !== undefined;
	},
});
