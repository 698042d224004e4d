// The autopilot's own cost per decision: chair.launch_sessions as the Chair calls it in the owner
// (through the dispatcher, one transaction), for a run with 60 open tasks each assigned to an
// implementer with nobody at it, and for one with 30 proposals in review each short of two voters:
// 60 decisions a call either way (chair.max_sessions 64). The floor: bare bun:sqlite writing the
// same 60 decision events in one transaction at the same durability (WAL, synchronous=FULL).
// Nothing is started: the decisions are the Chair's part; starting an agent is the headless bench's.
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chairContext } from "../src/context.ts";
import { call } from "../src/dispatch.ts";
import { fmt, freshProject, median } from "./lib.ts";

const N = 60;
const PROPOSALS = 30;
const RUNS = Number(process.env.BENCH_RUNS ?? 10);

async function seeded(kind: "tasks" | "proposals") {
	const p = await freshProject((root) => {
		mkdirSync(join(root, ".roundtable"));
		writeFileSync(
			join(root, ".roundtable/config.yaml"),
			[
				"agents:",
				`  implementers: { count: ${N}, adapter: codex, model: default }`,
				"  reviewers: { count: 2, adapter: claude, model: default }",
				"chair:",
				"  max_sessions: 64",
				"run:",
				"  max_sessions_total: 10000",
				"",
			].join("\n"),
		);
	});
	const tool = (name: string, args: object) => p.call(name, args) as Promise<unknown>;
	await tool("run.open", { run_id: "R", goal: "bench", autopilot: true });
	if (kind === "tasks") {
		for (let i = 1; i <= N; i++)
			await tool("task.create", {
				title: `t${i}`,
				body_md: "b",
				run_id: "R",
				assigned_agent_id: `implementer-${i}`,
			});
	} else {
		mkdirSync(join(p.rt.root, "src"));
		for (let i = 0; i < PROPOSALS; i++)
			writeFileSync(join(p.rt.root, `src/f${i}.ts`), `export const v = ${i};\n`);
		for (let i = 0; i < PROPOSALS; i++) {
			const { task } = (await tool("task.create", {
				title: `t${i}`,
				body_md: "b",
				run_id: "R",
				assigned_agent_id: `implementer-${i + 1}`,
			})) as { task: { id: string } };
			await tool("resource.claim", {
				resource_type: "file",
				resource_id: `file:src/f${i}.ts`,
				claim_type: "write",
				task_id: task.id,
				agent_id: `implementer-${i + 1}`,
			});
			const { proposal } = (await tool("proposal.create", {
				task_id: task.id,
				agent_id: `implementer-${i + 1}`,
				title: `change ${i}`,
				summary_md: "bench",
				affected_resources: [`file:src/f${i}.ts`],
				risk: "low",
				patch: `--- a/src/f${i}.ts\n+++ b/src/f${i}.ts\n@@ -1 +1 @@\n-export const v = ${i};\n+export const v = ${i + 1};\n`,
			})) as { proposal: { id: string } };
			await tool("proposal.request_review", { proposal_id: proposal.id });
		}
	}
	return p;
}

/** The floor: the same number of event rows, in one transaction, at the same durability. */
function floorMs(dir: string): number {
	const db = new Database(join(dir, "floor.db"), { strict: true });
	db.run("PRAGMA journal_mode = WAL");
	db.run("PRAGMA synchronous = FULL");
	db.run(
		"CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT, type TEXT, actor_id TEXT, task_id TEXT, payload TEXT, created_at TEXT)",
	);
	const insert = db.prepare(
		"INSERT INTO events (run_id, type, actor_id, task_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
	);
	const times: number[] = [];
	for (let r = 0; r < RUNS; r++) {
		const t = performance.now();
		db.transaction(() => {
			for (let i = 0; i < N; i++)
				insert.run(
					"R",
					"autopilot.launch",
					"chair-1",
					`T-${i}`,
					JSON.stringify({
						agent_id: `implementer-${i}`,
						task_id: `T-${i}`,
						run_id: "R",
						why: "task is open",
					}),
					new Date().toISOString(),
				);
		})();
		times.push(performance.now() - t);
	}
	db.close();
	return median(times);
}

export async function run(): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "rt-bench-autopilot-"));
	try {
		const floor = floorMs(dir);
		console.log(
			`the autopilot's decisions, chair.launch_sessions in the owner (median of ${RUNS}, ${N} decisions a call):`,
		);
		console.log(
			`  floor: bare bun:sqlite, ${N} event rows in one transaction      ${fmt(floor, 2).padStart(7)} ms`,
		);
		for (const kind of ["tasks", "proposals"] as const) {
			const p = await seeded(kind);
			const ctx = chairContext("chair-1");
			const times: number[] = [];
			let decided = 0;
			for (let r = 0; r < RUNS + 1; r++) {
				const t = performance.now();
				const out = await call(p.rt, "chair.launch_sessions", { run_id: "R" }, ctx);
				if (r > 0) times.push(performance.now() - t);
				decided = out.launch.length;
			}
			const ms = median(times);
			const what =
				kind === "tasks" ? `${N} open tasks -> implementers  ` : `${PROPOSALS} proposals -> 2 voters each`;
			console.log(
				`  ${what}   ${fmt(ms, 2).padStart(7)} ms   ${fmt((ms * 1000) / decided, 0).padStart(5)} µs a decision   x${fmt(ms / floor, 1)} the floor`,
			);
			p.done();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
