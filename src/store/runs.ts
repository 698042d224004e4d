import type { RunStatus } from "../domain/statuses.ts";
import type { RunRecord } from "../registry/records.ts";
import type { Conn } from "./db.ts";

const COLUMNS = "id, goal, status, revision, started_at, ended_at, created_at, updated_at";

export const runQueries = (c: Conn) => ({
	async get(id: string): Promise<RunRecord | undefined> {
		return c.get<RunRecord>(`SELECT ${COLUMNS} FROM runs WHERE id = ?`, id);
	},

	async list(): Promise<RunRecord[]> {
		return c.all<RunRecord>(`SELECT ${COLUMNS} FROM runs ORDER BY started_at, id`);
	},

	async insert(run: { id: string; goal: string; status: RunStatus }, now: string): Promise<RunRecord> {
		return c.get<RunRecord>(
			`INSERT INTO runs (id, goal, status, started_at, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
			run.id,
			run.goal,
			run.status,
			now,
			now,
			now,
		) as RunRecord;
	},
});
