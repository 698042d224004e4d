// Migration 13's task counts: the triggers keep them equal to count(*) per status through every
// kind of task write (task.create, task.update_status, a promotion to proposed, the Chair assigning,
// a writer going around the store), the migration backfills them from a database at version 12,
// and table.watch's open_tasks still means the tasks that are open, in progress or blocked.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { call } from "../../src/dispatch.ts";
import { databasePath } from "../../src/runtime.ts";
import { openStore } from "../../src/store/index.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { chairTick } from "../_helpers/chair-helpers.ts";
import { addRun, agentContext, makeProject, type Project, queryPlan, tempDir } from "../_helpers/helpers.ts";

const T0 = "2026-12-01T10:00:00.000Z";

/** The counters and count(*) per status, read from the file; statuses with no task left out. */
function countsOf(path: string): { counters: Record<string, number>; actual: Record<string, number> } {
	const db = new Database(path, { readonly: true });
	try {
		const rows = (sql: string) =>
			Object.fromEntries(
				db
					.query<{ status: string; n: number }, []>(sql)
					.all()
					.map((r) => [r.status, r.n]),
			);
		return {
			counters: rows("SELECT status, n FROM task_counts WHERE n <> 0 ORDER BY status"),
			actual: rows("SELECT status, count(*) AS n FROM tasks GROUP BY status ORDER BY status"),
		};
	} finally {
		db.close();
	}
}

const openTasks = async (p: Project) =>
	((await p.call("table.watch", {})) as { open_tasks: number }).open_tasks;

test("the counters equal count(*) per status after a mixed workload, and open_tasks keeps its meaning", async () => {
	const p = await makeProject({ config: "agents:\n  implementers: { count: 2 }\n" });
	const path = databasePath(p.rt.root, p.rt.config);
	await addRun(p, "R1");
	for (let i = 0; i < 6; i++)
		await p.call("task.create", { task_id: `T${i}`, title: `task ${i}`, body_md: "b", run_id: "R1" });
	await p.call("task.create", { task_id: "T-free", title: "free", body_md: "b" });
	expect(await openTasks(p)).toBe(7);

	// Status changes through task.update_status.
	await p.call("task.update_status", { task_id: "T0", status: "in_progress" });
	await p.call("task.update_status", { task_id: "T0", status: "blocked" });
	await p.call("task.update_status", { task_id: "T1", status: "cancelled" });
	await p.call("task.update_status", { task_id: "T2", status: "in_progress" });
	await p.call("task.update_status", { task_id: "T2", status: "review" });

	// A message promoted into a proposed task.
	const i1 = await agentContext(p, "implementer-1");
	const { message } = (await call(
		p.rt,
		"message.post",
		{ channel: "ideas", body_md: "Cache it\nwhy" },
		i1,
	)) as {
		message: { id: string };
	};
	const architect = await agentContext(p, "architect-1");
	await call(p.rt, "message.promote", { message_id: message.id, as: "task", risk: "low" }, architect);

	// The Chair assigns the open tasks (in_progress from open).
	const report = await chairTick(p, "R1");
	expect(report.assigned.length).toBeGreaterThan(0);

	// A writer going around the store: the triggers count it too.
	const db = new Database(path);
	db.run("PRAGMA busy_timeout = 5000");
	db.run(
		`INSERT INTO tasks (id, title, body_md, status, priority, risk, created_at, updated_at)
		 VALUES ('T-raw', 'raw', 'b', 'failed', 0, 'normal', ?, ?)`,
		[T0, T0],
	);
	db.run("UPDATE tasks SET status = 'done' WHERE id = 'T-raw'");
	db.run("UPDATE tasks SET title = 'renamed' WHERE id = 'T-raw'");
	db.run(
		"INSERT INTO tasks (id, title, body_md, status, priority, risk, created_at, updated_at) VALUES ('T-gone', 'g', 'b', 'open', 0, 'normal', ?, ?)",
		[T0, T0],
	);
	db.run("DELETE FROM tasks WHERE id = 'T-gone'");
	db.close();

	const { counters, actual } = countsOf(path);
	expect(counters).toEqual(actual);
	expect(actual.proposed).toBe(1);
	expect(actual.done).toBe(1);
	// open_tasks: open, in_progress and blocked, as count(*) has them (proposed, review, done,
	// cancelled and failed are not open).
	expect(await openTasks(p)).toBe((actual.open ?? 0) + (actual.in_progress ?? 0) + (actual.blocked ?? 0));
	expect(await openTasks(p)).toBe(5);
});

test("migration 13 backfills the counters from a database at version 12 with tasks in it", async () => {
	const path = join(tempDir("rt-counts-"), "roundtable.db");
	const db = new Database(path, { create: true, strict: true });
	db.run("PRAGMA journal_mode = WAL");
	db.run(
		"CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
	);
	for (const m of MIGRATIONS.filter((m) => m.version <= 12)) {
		db.run(m.sql);
		db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
			m.version,
			m.name,
			T0,
		);
	}
	const insert = db.query(
		`INSERT INTO tasks (id, title, body_md, status, priority, risk, created_at, updated_at)
		 VALUES (?, 't', 'b', ?, 0, 'normal', ?, ?)`,
	);
	const statuses = [
		"proposed",
		"open",
		"open",
		"open",
		"in_progress",
		"blocked",
		"review",
		"done",
		"done",
		"failed",
	];
	for (const [i, s] of statuses.entries()) insert.run(`T${i}`, s, T0, T0);
	db.close();

	const store = openStore(path);
	expect(
		await store.withTransaction("read", (tx) => tx.tasks.countWithStatus(["open", "in_progress", "blocked"])),
	).toBe(5);
	// And the triggers run from here on.
	await store.withTransaction("write", (tx) => tx.tasks.update("T1", { status: "done" }, T0));
	expect(await store.withTransaction("read", (tx) => tx.tasks.countWithStatus(["open"]))).toBe(2);
	store.close();
	const { counters, actual } = countsOf(path);
	expect(counters).toEqual(actual);
	expect(actual).toEqual({ blocked: 1, done: 3, failed: 1, in_progress: 1, open: 2, proposed: 1, review: 1 });
});

test("the watch view's suspended-claims count is served by the partial index, not a scan of claims", () => {
	const path = join(tempDir("rt-counts-"), "roundtable.db");
	openStore(path).close();
	const db = new Database(path, { readonly: true });
	const plan = queryPlan(db, "SELECT count(*) AS n FROM claims WHERE status = 'suspended'");
	db.close();
	expect(plan).toContain("claims_suspended");
});
