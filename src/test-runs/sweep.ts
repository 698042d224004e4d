// test.sweep_interrupted, the crash sweep the owner runs at start: runs a crash left `running`
// become `interrupted`, and the processes their tests left behind are stopped.

import type { Env, Key } from "../handlers/env.ts";
import { isAlive } from "../os/process.ts";
import type { Args, Result } from "../registry/index.ts";
import type { TestRunOutcome } from "../store/test-runs.ts";
import { nowIso } from "../vocabulary/ids.ts";
import { RUN_ID_VARIABLE } from "./environment.ts";
import { killMarkedGroup } from "./process.ts";
import { recordFinish } from "./run.ts";

/**
 * Runs a crash left `running` (their runner process is gone) become `interrupted`, and what their
 * test left running is stopped; the owner does this at start. A run whose runner still lives (a
 * `mcp call` beside the owner) is left alone.
 */
export async function sweepInterrupted(
	_: Args<"test.sweep_interrupted">,
	env: Env,
	key: Key<Result<"test.sweep_interrupted">>,
) {
	const { rt } = env;
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	const orphaned = (await rt.store.withTransaction("read", (tx) => tx.testRuns.running())).filter(
		(r) => r.runner_pid === null || r.runner_pid === process.pid || !isAlive(r.runner_pid),
	);
	const stopped = new Set(
		orphaned
			.filter((r) => r.process_group !== null && killMarkedGroup(r.process_group, RUN_ID_VARIABLE, r.id))
			.map((r) => r.id),
	);
	return rt.store.withTransaction("write", async (tx) => {
		const now = nowIso();
		const marked: string[] = [];
		for (const r of orphaned) {
			if ((await tx.testRuns.get(r.id))?.status !== "running") continue;
			const outcome: TestRunOutcome = {
				status: "interrupted",
				exit_code: null,
				signal: null,
				duration_ms: null,
				summary_md: `The process running this test stopped before it finished.${
					stopped.has(r.id) ? " The test's processes it left behind were stopped." : ""
				}`,
				output_bytes: 0,
				truncated: false,
				finished_at: now,
			};
			await recordFinish(tx, r, outcome, "system", now);
			marked.push(r.id);
		}
		return key.remember(tx, claimed.ticket, { test_run_ids: marked });
	});
}
