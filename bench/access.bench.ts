// The cost of the access check a capability's call passes in call() (src/sessions/access.ts): the
// same calls through the dispatcher in one process as the operator (no check) and as an agent
// principal, for a shared read (task.get: the session, agent and run still stand) and a bound one
// (test.get_result: also the task's assignment and the test run's proposal and task).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CallContext, operatorContext } from "../src/context.ts";
import { call } from "../src/dispatch.ts";
import { capabilityHash, newCapability } from "../src/sessions/capability.ts";
import { fmt, freshProject, median } from "./lib.ts";

const N = Number(process.env.BENCH_N ?? 3000);
const ROUNDS = 5;

export async function run(): Promise<void> {
	const p = await freshProject((root) => {
		mkdirSync(join(root, ".roundtable"));
		writeFileSync(
			join(root, ".roundtable/config.yaml"),
			'tests:\n  allowed_commands: ["true"]\n  sandbox: "off"\n',
		);
	});
	const op = operatorContext("internal");
	const { task } = await call(
		p.rt,
		"task.create",
		{ title: "t", body_md: "b", assigned_agent_id: "implementer-1" },
		op,
	);
	const { test_run } = await call(p.rt, "test.run", { command: "true", task_id: task.id }, op);
	const { session } = await call(
		p.rt,
		"session.mint",
		{ agent_id: "implementer-1", capability_sha256: capabilityHash(newCapability()), task_id: task.id },
		op,
	);
	const agent: CallContext = {
		...op,
		principal: {
			kind: "agent",
			agent_id: "implementer-1",
			role: "Implementer",
			session_id: session.id,
			task_id: task.id,
		},
	};
	const perCall = async (tool: string, args: object, ctx: CallContext) => {
		for (let i = 0; i < 200; i++) await call(p.rt, tool, args, ctx); // warm-up
		const rounds: number[] = [];
		for (let r = 0; r < ROUNDS; r++) {
			const t = performance.now();
			for (let i = 0; i < N; i++) await call(p.rt, tool, args, ctx);
			rounds.push(((performance.now() - t) * 1000) / N);
		}
		return median(rounds);
	};
	console.log(`the access check, in process (µs per call, median of ${ROUNDS} rounds of ${fmt(N)}):`);
	for (const [tool, args] of [
		["task.get", { task_id: task.id }],
		["test.get_result", { test_run_id: test_run.id }],
	] as const) {
		const asOperator = await perCall(tool, args, op);
		const asAgent = await perCall(tool, args, agent);
		console.log(
			`  ${tool.padEnd(16)} operator ${fmt(asOperator, 1).padStart(6)} µs   capability ${fmt(asAgent, 1).padStart(6)} µs   check +${fmt(asAgent - asOperator, 1)} µs`,
		);
	}
	p.done();
}

if (import.meta.main) await run();
