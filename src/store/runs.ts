import type { RunRecord } from "../vocabulary/records.ts";
import type { AutopilotMode, RunStatus } from "../vocabulary/statuses.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, goal, status, ticks, last_tick_at, convergence, autopilot, autopilot_note, revision, started_at, ended_at, created_at, updated_at";

export const runQueries = (c: Conn) => ({
	async get(id: string): Promise<RunRecord | undefined> {
		return c.get<RunRecord>(`SELECT ${COLUMNS} FROM runs WHERE id = ?`, id);
	},

	async list(): Promise<RunRecord[]> {
		return c.all<RunRecord>(`SELECT ${COLUMNS} FROM runs ORDER BY started_at, id`);
	},

	async active(): Promise<RunRecord[]> {
		return c.all<RunRecord>(`SELECT ${COLUMNS} FROM runs WHERE status = 'active' ORDER BY started_at, id`);
	},

	/** The newest run, preferring an active one: what `run --resume` without `--run` picks. */
	async latest(): Promise<RunRecord | undefined> {
		return c.get<RunRecord>(
			`SELECT ${COLUMNS} FROM runs ORDER BY status = 'active' DESC, started_at DESC, rowid DESC LIMIT 1`,
		);
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

	/** Makes a run active again (clearing its end), with a new goal when one is given. */
	async reactivate(id: string, goal: string | undefined, now: string): Promise<RunRecord> {
		return c.get<RunRecord>(
			`UPDATE runs SET status = 'active', ended_at = NULL, goal = coalesce(?, goal), revision = revision + 1,
			 updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
			goal ?? null,
			now,
			id,
		) as RunRecord;
	},

	/** Ends a run: completed, blocked or failed. */
	async finish(id: string, status: Exclude<RunStatus, "active">, now: string): Promise<RunRecord> {
		return c.get<RunRecord>(
			`UPDATE runs SET status = ?, ended_at = ?, revision = revision + 1, updated_at = ? WHERE id = ?
			 RETURNING ${COLUMNS}`,
			status,
			now,
			now,
			id,
		) as RunRecord;
	},

	/** Counts a Chair tick of the run and records what convergence said. Not a revision: bookkeeping. */
	async ticked(id: string, convergence: string, now: string): Promise<RunRecord> {
		return c.get<RunRecord>(
			`UPDATE runs SET ticks = ticks + 1, last_tick_at = ?, convergence = ? WHERE id = ? RETURNING ${COLUMNS}`,
			now,
			convergence,
			id,
		) as RunRecord;
	},

	/** Its autopilot on, off or paused, with why (null: nothing to say). */
	async setAutopilot(id: string, mode: AutopilotMode, note: string | null, now: string): Promise<RunRecord> {
		return c.get<RunRecord>(
			`UPDATE runs SET autopilot = ?, autopilot_note = ?, revision = revision + 1, updated_at = ?
			 WHERE id = ? RETURNING ${COLUMNS}`,
			mode,
			note,
			now,
			id,
		) as RunRecord;
	},
});

/** Small durable facts of the Chair (chair_state). */
export const chairStateQueries = (c: Conn) => ({
	async get(key: string): Promise<string | undefined> {
		return c.get<{ value: string }>("SELECT value FROM chair_state WHERE key = ?", key)?.value;
	},
	async set(key: string, value: string): Promise<void> {
		c.run(
			"INSERT INTO chair_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			key,
			value,
		);
	},
});
