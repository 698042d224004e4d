// Reads that grow with history, made by migration 15 to read only what they return. The tasks of
// one status come in list order (priority, created_at, id) straight from tasks_by_status; with an
// index of the status alone SQLite sorted every task of that status for each page (12 ms a page of
// task.list at 100,000 open tasks; bench/watch.bench.ts prints it). A run's tasks are counted by
// status (run.converge, each Chair tick) from tasks_by_run alone, where every task was read (18 ms
// a tick at 100,000 tasks). The turns whose lease may have run out (chair.expire, each tick) come
// from turns_by_lease, where every turn ever taken was read (6 ms a tick at 100,000). The plans are
// SQLite's own, for the statements the store really prepares.
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

/** SQLite's plan for each statement, as one line. */
function plans(
	p: Awaited<ReturnType<typeof makeProject>>,
	statements: string[],
): { sql: string; plan: string }[] {
	const db = new Database(databasePath(p.root, p.rt.config), { readonly: true });
	try {
		return statements.map((sql) => ({
			sql,
			plan: db
				.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
				.all()
				.map((r) => r.detail)
				.join(" | "),
		}));
	} finally {
		db.close();
	}
}

/** The distinct SELECTs of `table` with a WHERE among `statements`. */
const readsOf = (table: string, statements: string[]) => [
	...new Set(statements.filter((sql) => new RegExp(`^\\s*SELECT .* FROM ${table} WHERE`, "s").test(sql))),
];

test("a page of one status's tasks, and the Chair's open tasks, come from the index in order: SQLite sorts nothing", async () => {
	const p = await makeProject();
	const reads = readsOf(
		"tasks",
		await statementsOf(() =>
			p.rt.store.withTransaction("read", async (tx) => {
				await tx.tasks.list({ status: "open" }, undefined, 200);
				await tx.tasks.list({ status: "open" }, { priority: 100, created_at: "2026-12-01", id: "T-1" }, 200);
				await tx.tasks.withStatus("blocked");
				await tx.tasks.assignable("RUN-1");
			}),
		),
	);
	expect(reads).toHaveLength(4);
	for (const { sql, plan } of plans(p, reads)) {
		expect({ sql, plan }).toEqual({ sql, plan: expect.stringContaining("USING INDEX tasks_by_status") });
		expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringContaining("TEMP B-TREE") });
	}
});

test("a run's tasks are counted by status from tasks_by_run alone, reading no other task", async () => {
	const p = await makeProject();
	const reads = readsOf(
		"tasks",
		await statementsOf(() => p.rt.store.withTransaction("read", (tx) => tx.tasks.statusCounts("RUN-1"))),
	);
	expect(reads).toHaveLength(1);
	expect(plans(p, reads)).toEqual([
		{ sql: reads[0] as string, plan: "SEARCH tasks USING COVERING INDEX tasks_by_run (run_id=?)" },
	]);
});

test("the turns whose lease may have run out come from turns_by_lease, not from every turn ever taken", async () => {
	const p = await makeProject();
	const reads = readsOf(
		"turns",
		await statementsOf(() =>
			p.rt.store.withTransaction("read", (tx) => tx.turns.leaseDue(new Date().toISOString())),
		),
	);
	expect(reads).toHaveLength(1);
	expect(plans(p, reads)).toEqual([
		{ sql: reads[0] as string, plan: "SEARCH turns USING INDEX turns_by_lease (lease_expires_at<?)" },
	]);
});
