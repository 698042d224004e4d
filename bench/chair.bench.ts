// The "Chair" figure of issue 22: the Chair's first tick of a run with 1,000 open tasks, 200 pending
// proposals (real patches, under real claims) and 50 queued turns, as the owner runs it (its policy
// held by the reloader, the tick through the Coordinator's cycle), over the floor: bare bun:sqlite
// making the same row changes (the same task, proposal, turn, run and chair_state updates, the same
// event rows) in one transaction, on a copy of the same database taken just before the tick, WAL with
// synchronous=FULL, in a directory next to the project's (same file system, never tmpfs). Each window
// seeds a fresh project; the figure is the median of the windows' ratios.
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Coordinator } from "../src/chair/coordinator.ts";
import { type TickReport, tick } from "../src/chair/tick.ts";
import { startReloader } from "../src/owner/reload.ts";
import { databasePath, type Runtime } from "../src/runtime.ts";
import { type Figure, fmt, freshProject, median } from "./lib.ts";

const TASKS = 1000;
const PROPOSALS = 200;
const TURNS = 50;
const RUN = "RUN-B";
const WINDOWS = Number(process.env.BENCH_CHAIR_WINDOWS ?? 5);
const FLOOR_RUNS = 3;
/** Where the projects and the floor's databases go; BENCH_DIR overrides (it must not be a tmpfs). */
const BASE = process.env.BENCH_DIR ?? tmpdir();
const TMPFS_MAGIC = 0x01021994;

type Seeded = Awaited<ReturnType<typeof seed>>;

/** A fresh project holding the run's open tasks, pending proposals and queued turns. */
async function seed() {
	const p = await freshProject((root) => {
		mkdirSync(join(root, ".roundtable"));
		writeFileSync(
			join(root, ".roundtable/config.yaml"),
			`agents:\n  implementers:\n    count: ${TURNS}\n    adapter: codex\n    model: default\n`,
		);
	}, BASE);
	const { rt } = p;
	mkdirSync(join(rt.root, "src"));
	for (let i = 0; i < PROPOSALS; i++)
		writeFileSync(join(rt.root, `src/f${i}.ts`), `export const v = ${i};\n`);
	const tool = <T = unknown>(name: string, args: object) => p.call(name, args) as Promise<T>;
	await tool("run.open", { run_id: RUN, goal: "bench" });
	const { task: owner } = await tool<{ task: { id: string } }>("task.create", {
		title: "proposals",
		body_md: "b",
		run_id: RUN,
	});
	for (let i = 0; i < PROPOSALS; i++) {
		await tool("resource.claim", {
			resource_type: "file",
			resource_id: `file:src/f${i}.ts`,
			claim_type: "write",
			task_id: owner.id,
			agent_id: "implementer-1",
		});
		await tool("proposal.create", {
			task_id: owner.id,
			agent_id: "implementer-1",
			title: `change ${i}`,
			summary_md: "bench",
			affected_resources: [],
			risk: "normal",
			patch: `--- a/src/f${i}.ts\n+++ b/src/f${i}.ts\n@@ -1 +1 @@\n-export const v = ${i};\n+export const v = ${i + 1};\n`,
		});
	}
	await tool("task.update_status", { task_id: owner.id, status: "in_progress" });
	for (let i = 0; i < TASKS; i++)
		await tool("task.create", { title: `task ${i}`, body_md: "b", run_id: RUN });
	for (let i = 1; i <= TURNS; i++)
		await tool("agent.turn_request", { run_id: RUN, agent_id: `implementer-${i}`, reason_md: "bench" });
	return p;
}

/** A read-only second connection to the project's database, as another process would open it. */
function peek<T>(rt: Runtime, fn: (db: Database) => T): T {
	const db = new Database(databasePath(rt.root, rt.config), { readonly: true, strict: true });
	try {
		db.run("PRAGMA busy_timeout = 5000");
		return fn(db);
	} finally {
		db.close();
	}
}

interface EventRow {
	run_id: string | null;
	type: string;
	actor_id: string;
	task_id: string | null;
	payload: string;
	created_at: string;
}

/** What the tick changed, read back after it: the floor writes exactly these values. */
function changesOf(rt: Runtime, report: TickReport, eventsBefore: number) {
	return peek(rt, (db) => ({
		tasks: report.assigned.map(
			({ task_id }) =>
				db
					.query<{ id: string; assigned_agent_id: string; run_id: string; updated_at: string }, [string]>(
						"SELECT id, assigned_agent_id, run_id, updated_at FROM tasks WHERE id = ?",
					)
					.get(task_id) as { id: string; assigned_agent_id: string; run_id: string; updated_at: string },
		),
		proposals: report.reviews_requested.map(
			(id) =>
				db
					.query<{ id: string; updated_at: string }, [string]>(
						"SELECT id, updated_at FROM proposals WHERE id = ?",
					)
					.get(id) as { id: string; updated_at: string },
		),
		turn: db
			.query<{ request_event_id: number; scheduled_at: string; lease_expires_at: string }, [number]>(
				"SELECT request_event_id, scheduled_at, lease_expires_at FROM turns WHERE request_event_id = ?",
			)
			.get(report.scheduled as number) as {
			request_event_id: number;
			scheduled_at: string;
			lease_expires_at: string;
		},
		cursor: report.assigned.at(-1)?.agent_id as string,
		run: report.run,
		events: db
			.query<EventRow, [number]>(
				"SELECT run_id, type, actor_id, task_id, payload, created_at FROM events WHERE id > ? ORDER BY id",
			)
			.all(eventsBefore),
	}));
}

/**
 * The floor: the tick's row changes in one transaction, on the copy taken before the tick. A
 * rehearsal rolled back first warms its connection's caches and statements, as the owner's are warm
 * from the calls it served; only the transaction that commits is timed.
 */
function floor(file: string, changes: ReturnType<typeof changesOf>): number {
	const db = new Database(file, { strict: true });
	db.run("PRAGMA journal_mode = WAL");
	db.run("PRAGMA synchronous = FULL");
	db.run("PRAGMA foreign_keys = ON");
	const task = db.prepare(
		"UPDATE tasks SET assigned_agent_id = ?, status = 'in_progress', run_id = ?, revision = revision + 1, updated_at = ? WHERE id = ?",
	);
	const proposal = db.prepare(
		"UPDATE proposals SET status = 'in_review', status_reason = NULL, revision = revision + 1, updated_at = ? WHERE id = ?",
	);
	const turn = db.prepare(
		"UPDATE turns SET status = 'scheduled', scheduled_at = ?, lease_expires_at = ?, updated_at = ? WHERE request_event_id = ?",
	);
	const run = db.prepare("UPDATE runs SET ticks = ticks + 1, last_tick_at = ?, convergence = ? WHERE id = ?");
	const cursor = db.prepare(
		"INSERT INTO chair_state (key, value) VALUES ('assign.last_agent', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	);
	const event = db.prepare(
		"INSERT INTO events (run_id, type, actor_id, task_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
	);
	const transaction = (end: "COMMIT" | "ROLLBACK") => {
		db.run("BEGIN IMMEDIATE");
		for (const t of changes.tasks) task.run(t.assigned_agent_id, t.run_id, t.updated_at, t.id);
		cursor.run(changes.cursor);
		const { turn: tu } = changes;
		turn.run(tu.scheduled_at, tu.lease_expires_at, tu.scheduled_at, tu.request_event_id);
		for (const p of changes.proposals) proposal.run(p.updated_at, p.id);
		run.run(changes.run.last_tick_at, changes.run.convergence, changes.run.id);
		for (const e of changes.events)
			event.run(e.run_id, e.type, e.actor_id, e.task_id, e.payload, e.created_at);
		db.run(end);
	};
	transaction("ROLLBACK");
	const start = performance.now();
	transaction("COMMIT");
	const ms = performance.now() - start;
	db.close();
	return ms;
}

interface Window {
	tickMs: number;
	floorMs: number;
	idleMs: number;
}

async function window(p: Seeded, floorDir: string): Promise<Window> {
	const { rt } = p;
	// The owner holds the policy (its reloader loaded it at start) and ticks through the Coordinator.
	const reloader = startReloader(rt, { log: () => {} });
	await reloader.ready;
	const copy = join(floorDir, "floor.db");
	rmSync(copy, { force: true });
	const eventsBefore = peek(rt, (db) => {
		db.run(`VACUUM INTO '${copy}'`);
		return db.query<{ id: number }, []>("SELECT max(id) AS id FROM events").get()?.id ?? 0;
	});
	let report: TickReport | undefined;
	const coordinator = new Coordinator(rt, {
		intervalMs: 1000,
		log: (line) => console.error(line),
		onTick: (r) => {
			report = r;
		},
	});
	let t = performance.now();
	await coordinator.cycle();
	const tickMs = performance.now() - t;
	if (
		report?.assigned.length !== TASKS ||
		report.reviews_requested.length !== PROPOSALS ||
		report.scheduled === null ||
		report.errors.length > 0
	) {
		throw new Error(
			`the tick did not do the work: ${JSON.stringify({ ...report, assigned: report?.assigned.length })}`,
		);
	}
	// The floor is short, so one fsync held up by another process's I/O would swing it: it runs on
	// FLOOR_RUNS copies of the same database, and the window keeps the median.
	const changes = changesOf(rt, report, eventsBefore);
	const floors: number[] = [];
	for (let i = 0; i < FLOOR_RUNS; i++) {
		const file = join(floorDir, `floor-${i}.db`);
		copyFileSync(copy, file);
		floors.push(floor(file, changes));
		for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
	}
	const floorMs = median(floors);
	// The next tick finds nothing to do but still checks every lease, the queue and convergence.
	t = performance.now();
	await tick(rt, RUN, { log: () => {} });
	const idleMs = performance.now() - t;
	await reloader.stop();
	return { tickMs, floorMs, idleMs };
}

export async function run(): Promise<Figure> {
	if (statfsSync(BASE).type === TMPFS_MAGIC)
		throw new Error(`${BASE} is a tmpfs; set BENCH_DIR to a directory on a disk`);
	console.log(
		`Chair: first tick, ${fmt(TASKS)} open tasks, ${PROPOSALS} pending proposals, ${TURNS} queued turns ÷ the same row changes in one bun:sqlite transaction (WAL, FULL)`,
	);
	const floorDir = mkdtempSync(join(BASE, "rt-bench-chair-floor-"));
	const windows: Window[] = [];
	try {
		for (let i = 0; i < WINDOWS; i++) {
			const t0 = performance.now();
			const p = await seed();
			const setupS = (performance.now() - t0) / 1000;
			try {
				const w = await window(p, floorDir);
				windows.push(w);
				console.log(
					`  window ${i + 1}: tick ${fmt(w.tickMs, 1).padStart(8)} ms   floor ${fmt(w.floorMs, 1).padStart(6)} ms   ratio ${fmt(w.tickMs / w.floorMs, 2).padStart(6)}   (seed ${fmt(setupS, 1)} s)`,
				);
			} finally {
				p.done();
			}
		}
	} finally {
		rmSync(floorDir, { recursive: true, force: true });
	}
	const ratio = median(windows.map((w) => w.tickMs / w.floorMs));
	console.log(
		`  medians: tick ${fmt(median(windows.map((w) => w.tickMs)), 1)} ms, floor ${fmt(median(windows.map((w) => w.floorMs)), 1)} ms; next tick (nothing to do) ${fmt(median(windows.map((w) => w.idleMs)), 1)} ms`,
	);
	console.log(`  ratio (median of ${WINDOWS} windows) ${fmt(ratio, 2)}   goal ≤ 5`);
	return { name: "Chair", ratio, goal: { op: "≤", value: 5 } };
}

if (import.meta.main) await run();
