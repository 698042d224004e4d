// Migration 15: the tasks of one status are read in list order (priority, created_at, id) straight
// from tasks_by_status. With an index of the status alone, SQLite sorted every task of that status
// for each page: 12 ms a page of task.list at 100,000 open tasks (bench/watch.bench.ts prints it).
// The plans are SQLite's own, for the statements the store really prepares.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { databasePath } from "../../src/runtime.ts";
import { makeProject } from "../_helpers/helpers.ts";

/** The SQL of every statement prepared while `fn` runs (the store prepares through query()). */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
	const seen: string[] = [];
	const query = Database.prototype.query;
	Database.prototype.query = function (this: Database, sql: string) {
		seen.push(sql);
		return query.call(this, sql);
	} as typeof query;
	try {
		await fn();
	} finally {
		Database.prototype.query = query;
	}
	return seen;
}

test("a page of one status's tasks, and the Chair's open tasks, come from the index in order: SQLite sorts nothing", async () => {
	const p = await makeProject();
	const statements = await statementsOf(() =>
		p.rt.store.withTransaction("read", async (tx) => {
			await tx.tasks.list({ status: "open" }, undefined, 200);
			await tx.tasks.list({ status: "open" }, { priority: 100, created_at: "2026-12-01", id: "T-1" }, 200);
			await tx.tasks.withStatus("blocked");
			await tx.tasks.assignable("RUN-1");
		}),
	);
	const reads = [...new Set(statements.filter((sql) => /^\s*SELECT .* FROM tasks WHERE/s.test(sql)))];
	expect(reads).toHaveLength(4);
	const db = new Database(databasePath(p.root, p.rt.config), { readonly: true });
	try {
		for (const sql of reads) {
			const plan = db
				.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
				.all()
				.map((r) => r.detail)
				.join(" | ");
			expect({ sql, plan }).toEqual({ sql, plan: expect.stringContaining("USING INDEX tasks_by_status") });
			expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringContaining("TEMP B-TREE") });
		}
	} finally {
		db.close();
	}
});
