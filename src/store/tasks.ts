import type { TaskRecord } from "../vocabulary/records.ts";
import type { TaskStatus } from "../vocabulary/statuses.ts";
import type { Conn, Params } from "./db.ts";

interface TaskRow extends Omit<TaskRecord, "readable_paths"> {
	readable_paths: string;
}

const COLUMNS =
	"id, run_id, title, body_md, status, priority, risk, assigned_agent_id, readable_paths, revision, created_at, updated_at";

const toRecord = (r: TaskRow): TaskRecord => ({ ...r, readable_paths: JSON.parse(r.readable_paths) });

export interface TaskFilter {
	status?: TaskStatus;
	assigned_agent_id?: string;
	run_id?: string;
}

/** Where a page of the task list ends: the sort key of its last task. */
export interface TaskPosition {
	priority: number;
	created_at: string;
	id: string;
}

export type TaskChanges = Partial<Pick<TaskRecord, "status" | "assigned_agent_id" | "run_id">>;

export const taskQueries = (c: Conn) => ({
	async get(id: string): Promise<TaskRecord | undefined> {
		const row = c.get<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`, id);
		return row && toRecord(row);
	},

	async insert(
		t: Omit<TaskRecord, "revision" | "created_at" | "updated_at">,
		now: string,
	): Promise<TaskRecord> {
		const row = c.get<TaskRow>(
			`INSERT INTO tasks (id, run_id, title, body_md, status, priority, risk, assigned_agent_id, readable_paths,
			 created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
			t.id,
			t.run_id,
			t.title,
			t.body_md,
			t.status,
			t.priority,
			t.risk,
			t.assigned_agent_id,
			JSON.stringify(t.readable_paths),
			now,
			now,
		) as TaskRow;
		return toRecord(row);
	},

	/** Applies the changes and bumps the revision. */
	async update(id: string, changes: TaskChanges, now: string): Promise<TaskRecord> {
		const sets: string[] = [];
		const params: Params = [];
		for (const [column, value] of Object.entries(changes)) {
			sets.push(`${column} = ?`);
			params.push(value ?? null);
		}
		const row = c.get<TaskRow>(
			`UPDATE tasks SET ${[...sets, "revision = revision + 1", "updated_at = ?"].join(", ")}
			 WHERE id = ? RETURNING ${COLUMNS}`,
			...params,
			now,
			id,
		) as TaskRow;
		return toRecord(row);
	},

	/**
	 * Each task to its agent, in_progress in the run (the Chair's assignment): what `update` does
	 * to each, without reading the rows back.
	 */
	async assignAll(assignments: readonly { task_id: string; agent_id: string }[], runId: string, now: string) {
		for (const a of assignments) {
			c.run(
				`UPDATE tasks SET assigned_agent_id = ?, status = 'in_progress', run_id = ?, revision = revision + 1,
				 updated_at = ? WHERE id = ?`,
				a.agent_id,
				runId,
				now,
				a.task_id,
			);
		}
	},

	/** Tasks in priority, creation, id order after `from`, at most `limit`. */
	async list(filter: TaskFilter, from: TaskPosition | undefined, limit: number): Promise<TaskRecord[]> {
		const where: string[] = [];
		const params: Params = [];
		for (const column of ["status", "assigned_agent_id", "run_id"] as const) {
			const value = filter[column];
			if (value !== undefined) {
				where.push(`${column} = ?`);
				params.push(value);
			}
		}
		if (from) {
			where.push("(priority, created_at, id) > (?, ?, ?)");
			params.push(from.priority, from.created_at, from.id);
		}
		const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
		return c
			.all<TaskRow>(
				`SELECT ${COLUMNS} FROM tasks ${clause} ORDER BY priority, created_at, id LIMIT ?`,
				...params,
				limit,
			)
			.map(toRecord);
	},

	async all(): Promise<TaskRecord[]> {
		return c.all<TaskRow>(`SELECT ${COLUMNS} FROM tasks ORDER BY priority, created_at, id`).map(toRecord);
	},

	async withStatus(status: TaskStatus): Promise<TaskRecord[]> {
		return c
			.all<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE status = ? ORDER BY priority, created_at, id`, status)
			.map(toRecord);
	},

	/** The agent's tasks with these statuses: in_progress first, then by priority, then oldest. */
	async ofAgent(agentId: string, statuses: readonly TaskStatus[]): Promise<TaskRecord[]> {
		return c
			.all<TaskRow>(
				`SELECT ${COLUMNS} FROM tasks WHERE assigned_agent_id = ? AND status IN (${statuses.map(() => "?").join(", ")})
				 ORDER BY status = 'in_progress' DESC, priority, created_at, id`,
				agentId,
				...statuses,
			)
			.map(toRecord);
	},

	/** Open, unassigned tasks the Chair may assign in this run: the run's own and those of no run. */
	async assignable(runId: string): Promise<TaskRecord[]> {
		return c
			.all<TaskRow>(
				`SELECT ${COLUMNS} FROM tasks WHERE status = 'open' AND assigned_agent_id IS NULL
				 AND (run_id = ? OR run_id IS NULL) ORDER BY priority, created_at, id`,
				runId,
			)
			.map(toRecord);
	},

	/** How many of the run's tasks have each status. */
	async statusCounts(runId: string): Promise<Partial<Record<TaskStatus, number>>> {
		const rows = c.all<{ status: TaskStatus; n: number }>(
			"SELECT status, count(*) AS n FROM tasks WHERE run_id = ? GROUP BY status",
			runId,
		);
		return Object.fromEntries(rows.map((r) => [r.status, r.n]));
	},

	/** How many tasks have these statuses: from the counters the triggers keep (migration 13). */
	async countWithStatus(statuses: readonly TaskStatus[]): Promise<number> {
		return (
			c.get<{ n: number }>(
				`SELECT coalesce(sum(n), 0) AS n FROM task_counts WHERE status IN (${statuses.map(() => "?").join(", ")})`,
				...statuses,
			)?.n ?? 0
		);
	},
});
