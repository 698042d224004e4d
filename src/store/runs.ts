import type { RunRecord } from "../vocabulary/records.ts";
import type { AutopilotMode, RunStatus } from "../vocabulary/statuses.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, goal, status, scope, ticks, last_tick_at, convergence, autopilot, autopilot_note, sessions_started, sessions_live, sessions_failed, sessions_given_up, revision, started_at, ended_at, created_at, updated_at";

type RunRow = Omit<RunRecord, "scope"> & { scope: string };
const toRecord = (r: RunRow): RunRecord => ({ ...r, scope: JSON.parse(r.scope) });
const one = (r: RunRow | undefined) => (r === undefined ? undefined : toRecord(r));

/** How a run's sessions stand: counted at each tick. */
export interface SessionCounts {
	started: number;
	live: number;
	failed: number;
	given_up: number;
}

export const runQueries = (c: Conn) => ({
	async get(id: string): Promise<RunRecord | undefined> {
		return one(c.get<RunRow>(`SELECT ${COLUMNS} FROM runs WHERE id = ?`, id));
	},

	async list(): Promise<RunRecord[]> {
		return c.all<RunRow>(`SELECT ${COLUMNS} FROM runs ORDER BY started_at, id`).map(toRecord);
	},

	async active(): Promise<RunRecord[]> {
		return c
			.all<RunRow>(`SELECT ${COLUMNS} FROM runs WHERE status = 'active' ORDER BY started_at, id`)
			.map(toRecord);
	},

	/** The newest run, preferring an active one: what `run --resume` without `--run` picks. */
	async latest(): Promise<RunRecord | undefined> {
		return one(
			c.get<RunRow>(
				`SELECT ${COLUMNS} FROM runs ORDER BY status = 'active' DESC, started_at DESC, rowid DESC LIMIT 1`,
			),
		);
	},

	async insert(
		run: { id: string; goal: string; status: RunStatus; scope?: string[] },
		now: string,
	): Promise<RunRecord> {
		return toRecord(
			c.get<RunRow>(
				`INSERT INTO runs (id, goal, status, scope, started_at, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
				run.id,
				run.goal,
				run.status,
				JSON.stringify(run.scope ?? []),
				now,
				now,
				now,
			) as RunRow,
		);
	},

	/** Makes a run active again (clearing its end), with a new goal and scope when given. */
	async reactivate(
		id: string,
		goal: string | undefined,
		scope: string[] | undefined,
		now: string,
	): Promise<RunRecord> {
		return toRecord(
			c.get<RunRow>(
				`UPDATE runs SET status = 'active', ended_at = NULL, goal = coalesce(?, goal), scope = coalesce(?, scope),
			 revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
				goal ?? null,
				scope === undefined ? null : JSON.stringify(scope),
				now,
				id,
			) as RunRow,
		);
	},

	/** Ends a run: completed, blocked or failed. */
	async finish(id: string, status: Exclude<RunStatus, "active">, now: string): Promise<RunRecord> {
		return toRecord(
			c.get<RunRow>(
				`UPDATE runs SET status = ?, ended_at = ?, revision = revision + 1, updated_at = ? WHERE id = ?
			 RETURNING ${COLUMNS}`,
				status,
				now,
				now,
				id,
			) as RunRow,
		);
	},

	/**
	 * Counts a Chair tick of the run and records what convergence said, and how its sessions stand.
	 * Not a revision: bookkeeping.
	 */
	async ticked(id: string, convergence: string, sessions: SessionCounts, now: string): Promise<RunRecord> {
		return toRecord(
			c.get<RunRow>(
				`UPDATE runs SET ticks = ticks + 1, last_tick_at = ?, convergence = ?, sessions_started = ?,
			 sessions_live = ?, sessions_failed = ?, sessions_given_up = ? WHERE id = ? RETURNING ${COLUMNS}`,
				now,
				convergence,
				sessions.started,
				sessions.live,
				sessions.failed,
				sessions.given_up,
				id,
			) as RunRow,
		);
	},

	/** Its autopilot on, off or paused, with why (null: nothing to say). */
	async setAutopilot(id: string, mode: AutopilotMode, note: string | null, now: string): Promise<RunRecord> {
		return toRecord(
			c.get<RunRow>(
				`UPDATE runs SET autopilot = ?, autopilot_note = ?, revision = revision + 1, updated_at = ?
			 WHERE id = ? RETURNING ${COLUMNS}`,
				mode,
				note,
				now,
				id,
			) as RunRow,
		);
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
