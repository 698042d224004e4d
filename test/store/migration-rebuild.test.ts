// Migration 12 rebuilds `tasks` (SQLite cannot alter a CHECK) in a database already in use: the
// rows, the rows that reference them, the indexes and foreign key enforcement all come through.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { tempDir } from "../_helpers/helpers.ts";

const T0 = "2026-12-01T10:00:00.000Z";

/** A database as roundtable left it at schema version 11, with a task other rows refer to. */
function databaseAtVersion11(path: string): void {
	const db = new Database(path, { create: true, strict: true });
	db.run("PRAGMA journal_mode = WAL");
	db.run("PRAGMA foreign_keys = ON");
	db.run(
		"CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
	);
	for (const m of MIGRATIONS.filter((m) => m.version <= 11)) {
		db.run(m.sql);
		db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
			m.version,
			m.name,
			T0,
		);
	}
	db.run(
		"INSERT INTO runs (id, goal, status, started_at, created_at, updated_at) VALUES ('RUN-1', 'g', 'active', ?, ?, ?)",
		[T0, T0, T0],
	);
	db.run(
		`INSERT INTO tasks (id, run_id, title, body_md, status, priority, risk, readable_paths, revision, created_at, updated_at)
		 VALUES ('T-1', 'RUN-1', 'kept', 'body', 'in_progress', 3, 'high', '["src"]', 4, ?, ?)`,
		[T0, T0],
	);
	db.run(
		`INSERT INTO decisions (id, decision, rationale_md, decided_by, task_id, run_id, created_at, updated_at)
		 VALUES ('D-1', 'use X', 'why', 'operator', 'T-1', 'RUN-1', ?, ?)`,
		[T0, T0],
	);
	db.close();
}

test("a database in use at version 11 migrates: tasks kept whole, references intact, keys enforced again", async () => {
	const path = join(tempDir("rt-rebuild-"), "roundtable.db");
	databaseAtVersion11(path);
	const store = openStore(path);
	const task = await store.withTransaction("read", (tx) => tx.tasks.get("T-1"));
	expect(task).toMatchObject({
		id: "T-1",
		run_id: "RUN-1",
		title: "kept",
		status: "in_progress",
		priority: 3,
		risk: "high",
		readable_paths: ["src"],
		revision: 4,
		created_at: T0,
	});
	const decision = await store.withTransaction("read", (tx) => tx.decisions.get("D-1"));
	expect(decision).toMatchObject({ task_id: "T-1", status: "recorded" });
	// A task may now be proposed; a row naming a task that does not exist is still refused.
	await store.withTransaction("write", async (tx) => {
		await tx.tasks.insert(
			{
				id: "T-2",
				run_id: null,
				title: "p",
				body_md: "b",
				status: "proposed",
				priority: 0,
				risk: "normal",
				assigned_agent_id: null,
				readable_paths: [],
			},
			T0,
		);
	});
	await expect(
		store.withTransaction("write", async (tx) => {
			await tx.decisions.insert(
				{
					id: "D-2",
					decision: "d",
					rationale_md: "r",
					decided_by: "o",
					proposal_id: null,
					task_id: "T-missing",
					run_id: null,
					status: "recorded",
				},
				T0,
			);
		}),
	).rejects.toThrow(/FOREIGN KEY/);
	store.close();

	const db = new Database(path, { readonly: true });
	expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
	const indexes = db
		.query<{ name: string }, []>(
			"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' AND sql IS NOT NULL ORDER BY name",
		)
		.all()
		.map((r) => r.name);
	expect(indexes).toEqual(["tasks_by_agent", "tasks_by_order", "tasks_by_run", "tasks_by_status"]);
	expect(
		db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'tasks_new'").get()?.n,
	).toBe(0);
	db.close();
});
