// What test.run adds to running a command: the same trivial command spawned directly (both pipes
// read, exit awaited) against test.run in the project root (a row and an event before, the log file
// and a row and an event after). Median of 20 each.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { operatorContext } from "../src/context.ts";
import { call } from "../src/dispatch.ts";
import { initProject } from "../src/init/index.ts";
import { openRuntime } from "../src/runtime.ts";
import { fmt } from "./lib.ts";

const RUNS = 20;
const ARGV = ["printf", "ok\\n"];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function run(): Promise<void> {
	const root = mkdtempSync(join(tmpdir(), "rt-bench-testrun-"));
	mkdirSync(join(root, ".roundtable"));
	writeFileSync(join(root, ".roundtable/config.yaml"), "tests:\n  allowed_commands: [printf]\n");
	await initProject(root);
	const rt = openRuntime(root);
	const ctx = operatorContext("internal");

	const direct: number[] = [];
	const viaTool: number[] = [];
	for (let i = 0; i < RUNS + 2; i++) {
		let t = performance.now();
		const proc = Bun.spawn(ARGV, { cwd: root, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
		await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
		const d = performance.now() - t;
		t = performance.now();
		const out = (await call(rt, "test.run", { command: ARGV.join(" ") }, ctx)) as {
			test_run: { status: string };
		};
		const v = performance.now() - t;
		if (out.test_run.status !== "passed") throw new Error(`bench run ${out.test_run.status}`);
		if (i >= 2) {
			// the first two warm up both paths
			direct.push(d);
			viaTool.push(v);
		}
	}
	const a = median(direct);
	const b = median(viaTool);
	console.log(`test.run overhead, \`${ARGV.join(" ")}\` (median of ${RUNS}):`);
	console.log(`  spawned directly      ${fmt(a, 2).padStart(7)} ms`);
	console.log(`  through test.run      ${fmt(b, 2).padStart(7)} ms   (+${fmt(b - a, 2)} ms)`);
	rt.close();
	rmSync(root, { recursive: true, force: true });
}

if (import.meta.main) await run();
