// task.create through the dispatcher (validation, transaction, event, idempotency bookkeeping)
// against the floor: a bare bun:sqlite insert-and-commit loop on the same kind of database; and the
// dispatcher's own per-call cost on a read (task.get), against the same read without it.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, freshProject, median } from "./lib.ts";

const N = Number(process.env.BENCH_N ?? 2000);

async function viaDispatcher(withKey: boolean): Promise<number> {
	const p = await freshProject();
	for (let i = 0; i < 50; i++) await p.call("task.create", { title: `warm ${i}`, body_md: "b" }); // warm-up
	const start = performance.now();
	for (let i = 0; i < N; i++) {
		await p.call("task.create", {
			title: `task ${i}`,
			body_md: "a body of ordinary length for a task",
			...(withKey && { idempotency_key: `k-${i}` }),
		});
	}
	const seconds = (performance.now() - start) / 1000;
	p.done();
	return N / seconds;
}

function bareSqlite(): number {
	const dir = mkdtempSync(join(tmpdir(), "rt-bench-bare-"));
	const db = new Database(join(dir, "bare.db"), { create: true, strict: true });
	db.run("PRAGMA busy_timeout = 5000");
	db.run("PRAGMA journal_mode = WAL");
	db.run("PRAGMA synchronous = FULL");
	db.run("PRAGMA foreign_keys = ON");
	db.run(
		"CREATE TABLE tasks (id TEXT PRIMARY KEY, title TEXT, body_md TEXT, status TEXT, priority INTEGER, created_at TEXT)",
	);
	const insert = db.query("INSERT INTO tasks VALUES (?, ?, ?, 'open', 100, ?)");
	const start = performance.now();
	for (let i = 0; i < N; i++) {
		db.run("BEGIN IMMEDIATE");
		insert.run(
			`T-${Bun.randomUUIDv7()}`,
			`task ${i}`,
			"a body of ordinary length for a task",
			new Date().toISOString(),
		);
		db.run("COMMIT");
	}
	const seconds = (performance.now() - start) / 1000;
	db.close();
	rmSync(dir, { recursive: true, force: true });
	return N / seconds;
}

/**
 * The dispatcher's own cost per call, with no fsync to hide it: task.get through call() (lookup,
 * validation, route, read transaction, the handler) against the floor, the same store read in a read
 * transaction without call(). Median of 5 rounds of N calls each; µs per call.
 */
async function perCall(): Promise<{ dispatched: number; floor: number }> {
	const p = await freshProject();
	const created = (await p.call("task.create", { title: "t", body_md: "b" })) as { task: { id: string } };
	const id = created.task.id;
	const rounds = (fn: () => Promise<unknown>) => async () => {
		const times: number[] = [];
		for (let r = 0; r < 5; r++) {
			const start = performance.now();
			for (let i = 0; i < N; i++) await fn();
			times.push(((performance.now() - start) * 1000) / N);
		}
		return median(times);
	};
	const dispatched = await rounds(() => p.call("task.get", { task_id: id }))();
	const floor = await rounds(() => p.rt.store.withTransaction("read", (tx) => tx.tasks.get(id)))();
	p.done();
	return { dispatched, floor };
}

export async function run(): Promise<void> {
	const { dispatched: getUs, floor: floorUs } = await perCall();
	console.log(`task.get, ${fmt(N)} calls × 5 rounds (median µs per call):`);
	console.log(`  store read in a read transaction ${fmt(floorUs, 1).padStart(7)} µs`);
	console.log(
		`  call("task.get") (the dispatcher) ${fmt(getUs, 1).padStart(6)} µs   overhead ${fmt(getUs - floorUs, 1)} µs`,
	);
	const bare = bareSqlite();
	const dispatched = await viaDispatcher(false);
	const keyed = await viaDispatcher(true);
	console.log(`task.create, ${fmt(N)} calls, each its own transaction (WAL, synchronous=FULL):`);
	console.log(`  bare bun:sqlite insert+commit   ${fmt(bare).padStart(8)} /s`);
	console.log(
		`  dispatcher task.create          ${fmt(dispatched).padStart(8)} /s   ratio ${fmt(dispatched / bare, 2)} of bare`,
	);
	console.log(
		`  ... with idempotency_key        ${fmt(keyed).padStart(8)} /s   ratio ${fmt(keyed / bare, 2)} of bare`,
	);
}

if (import.meta.main) await run();
