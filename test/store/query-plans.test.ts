// Reads that grow with history, made by migration 15 to read only what they return. The tasks of
// one status come in list order (priority, created_at, id) straight from tasks_by_status; with an
// index of the status alone SQLite sorted every task of that status for each page (12 ms a page of
// task.list at 100,000 open tasks; bench/watch.bench.ts prints it). Pages of proposals likewise
// (7–12 ms a page at 10,000). A run's tasks are counted by
// status (run.converge, each Chair tick) from tasks_by_run alone, where every task was read (18 ms
// a tick at 100,000 tasks), and so are its proposals, from proposals_by_run and tasks_by_run, where
// every proposal of every run was read (4 ms a tick at 10,000). The turns whose lease may have run
// out (chair.expire, each tick) come from turns_by_lease, where every turn ever taken was read (6 ms
// a tick at 100,000). The plans are SQLite's own, for the statements the store really prepares.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { databasePath } from "../../src/runtime.ts";
import { makeProject, type Project, queryPlan } from "../_helpers/helpers.ts";

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

/** SQLite's plan for each statement, on the project's database. */
function plans(p: Project, statements: string[]): { sql: string; plan: string }[] {
	const db = new Database(databasePath(p.root, p.rt.config), { readonly: true });
	try {
		return statements.map((sql) => ({ sql, plan: queryPlan(db, sql) }));
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

test("a page of proposals, of one status or of all, comes from an index in list order: SQLite sorts nothing", async () => {
	const p = await makeProject();
	const after = { created_at: "2026-12-01T10:00:00.000Z", id: "P-1" };
	const statements = await statementsOf(() =>
		p.rt.store.withTransaction("read", async (tx) => {
			await tx.proposals.list({ status: "accepted" }, undefined, 200);
			await tx.proposals.list({ status: "accepted" }, after, 200);
			await tx.proposals.list({}, undefined, 200);
			await tx.proposals.list({}, after, 200);
		}),
	);
	const pages = [...new Set(statements.filter((sql) => sql.includes("ORDER BY p.created_at, p.id LIMIT")))];
	expect(pages).toHaveLength(4);
	for (const { sql, plan } of plans(p, pages)) {
		expect({ sql, plan }).toEqual({
			sql,
			plan: expect.stringMatching(/USING INDEX proposals_by_(status|order)/),
		});
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

test("a run's proposals are counted by status from the run's indexes, as many as ofRun finds", async () => {
	const p = await makeProject();
	const now = new Date().toISOString();
	// Proposals recorded in the run, of no run whose task is the run's, and of other runs in both ways.
	const db = new Database(databasePath(p.root, p.rt.config), { strict: true });
	try {
		db.run("PRAGMA busy_timeout = 5000");
		for (const run of ["RUN-1", "RUN-2"])
			db.run(
				"INSERT INTO runs (id, goal, status, started_at, created_at, updated_at) VALUES (?, 'g', 'active', ?, ?, ?)",
				[run, now, now, now],
			);
		const rows: [string, string | null, string, string][] = [
			// proposal, its run, its task's run, its status
			["P-1", "RUN-1", "RUN-1", "pending"],
			["P-2", "RUN-1", "RUN-2", "accepted"],
			["P-3", null, "RUN-1", "in_review"],
			["P-4", null, "RUN-1", "accepted"],
			["P-5", null, "RUN-2", "pending"],
			["P-6", "RUN-2", "RUN-1", "rejected"],
		];
		for (const [id, run, taskRun, status] of rows) {
			db.run(
				`INSERT INTO tasks (id, run_id, title, body_md, status, priority, risk, readable_paths, created_at, updated_at)
				 VALUES (?, ?, 't', 'b', 'done', 100, 'normal', '[]', ?, ?)`,
				[`T-${id}`, taskRun, now, now],
			);
			db.run(
				`INSERT INTO proposals (id, task_id, agent_id, run_id, title, summary_md, risk, status, patch_revision, created_at, updated_at)
				 VALUES (?, ?, 'implementer-1', ?, 't', 's', 'normal', ?, 1, ?, ?)`,
				[id, `T-${id}`, run, status, now, now],
			);
			db.run(
				`INSERT INTO patch_revisions (proposal_id, number, sha256, size, strip, files, created_by, created_at)
				 VALUES (?, 1, 'x', 1, 1, '[]', 'implementer-1', ?)`,
				[id, now],
			);
		}
	} finally {
		db.close();
	}
	let counts: Record<string, number> = {};
	const statements = await statementsOf(() =>
		p.rt.store.withTransaction("read", async (tx) => {
			counts = await tx.proposals.statusCounts("RUN-1");
		}),
	);
	expect(counts).toEqual({ pending: 1, accepted: 2, in_review: 1 });
	const found = await p.rt.store.withTransaction("read", (tx) =>
		tx.proposals.ofRun("RUN-1", ["pending", "in_review", "accepted", "rejected", "withdrawn", "rolled_back"]),
	);
	expect(found.map((x) => x.id).sort()).toEqual(["P-1", "P-2", "P-3", "P-4"]);
	const [count] = plans(
		p,
		statements.filter((sql) => sql.includes("FROM proposals")),
	);
	expect(count?.plan).toContain("SEARCH proposals USING COVERING INDEX proposals_by_run (run_id=?)");
	expect(count?.plan).toContain("SEARCH t USING INDEX tasks_by_run (run_id=?)");
	expect(count?.plan).not.toMatch(/SCAN (p|t|proposals|tasks)\b/);
});
