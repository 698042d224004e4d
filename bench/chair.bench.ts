// One Chair tick with 1,000 open tasks, 200 pending proposals and 50 queued turns: the first tick
// does all the work (assigns every task, requests every review, schedules one turn), the next one
// finds nothing to do but still checks every run, lease and convergence.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tick } from "../src/chair/tick.ts";
import { fmt, freshProject, median } from "./lib.ts";

const TASKS = 1000;
const PROPOSALS = 200;
const TURNS = 50;

export async function run(): Promise<void> {
	const p = await freshProject((root) => {
		mkdirSync(join(root, ".roundtable"));
		writeFileSync(
			join(root, ".roundtable/config.yaml"),
			`agents:\n  implementers:\n    count: ${TURNS}\n    adapter: codex\n    model: default\n`,
		);
	});
	const { rt } = p;
	mkdirSync(join(rt.root, "src"));
	for (let i = 0; i < PROPOSALS; i++)
		writeFileSync(join(rt.root, `src/f${i}.ts`), `export const v = ${i};\n`);
	const tool = <T = unknown>(name: string, args: object) => p.call(name, args) as Promise<T>;
	const now = new Date().toISOString();
	await rt.store.withTransaction("write", (tx) =>
		tx.runs.insert({ id: "RUN-B", goal: "bench", status: "active" }, now),
	);

	const t0 = performance.now();
	const { task: owner } = await tool<{ task: { id: string } }>("task.create", {
		title: "proposals",
		body_md: "b",
		run_id: "RUN-B",
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
		await tool("task.create", { title: `task ${i}`, body_md: "b", run_id: "RUN-B" });
	for (let i = 1; i <= TURNS; i++) {
		await tool("agent.turn_request", { run_id: "RUN-B", agent_id: `implementer-${i}`, reason_md: "bench" });
	}
	console.log(
		`Chair tick: ${fmt(TASKS)} open tasks, ${PROPOSALS} pending proposals, ${TURNS} queued turns (setup ${fmt((performance.now() - t0) / 1000, 1)} s)`,
	);

	const log = () => {};
	let t = performance.now();
	const first = await tick(rt, "RUN-B", { log });
	const firstMs = performance.now() - t;
	if (
		first.assigned.length !== TASKS ||
		first.reviews_requested.length !== PROPOSALS ||
		first.scheduled === null
	) {
		throw new Error(
			`bench tick did not do the work: ${JSON.stringify({ ...first, assigned: first.assigned.length })}`,
		);
	}
	console.log(
		`  first tick (assign ${fmt(TASKS)}, request ${PROPOSALS} reviews, schedule 1)  ${fmt(firstMs, 1).padStart(8)} ms`,
	);
	const idle: number[] = [];
	for (let i = 0; i < 5; i++) {
		t = performance.now();
		await tick(rt, "RUN-B", { log });
		idle.push(performance.now() - t);
	}
	console.log(
		`  next ticks (nothing to do; median of 5)                     ${fmt(median(idle), 1).padStart(8)} ms`,
	);
	p.done();
}

if (import.meta.main) await run();
