// test.run, test.get_result, test.list, test.evidence.submit, test.suggest and test.sweep_interrupted:
// each hands its arguments to its engine in src/test-runs/ (run.ts, logs.ts, list.ts, evidence.ts,
// suggest.ts, sweep.ts). A failing test is a result, not a tool error.

import type { Env, Key } from "../engine/env.ts";
import type { Args, Result } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { submitTestEvidence } from "../test-runs/evidence.ts";
import { listTestRuns } from "../test-runs/list.ts";
import { runResult } from "../test-runs/logs.ts";
import { runTests } from "../test-runs/run.ts";
import { suggestFor } from "../test-runs/suggest.ts";
import { sweepInterruptedRuns } from "../test-runs/sweep.ts";

export function run(a: Args<"test.run">, env: Env, key: Key<Result<"test.run">>) {
	return runTests(env, a, key);
}

export function get(a: Args<"test.get_result">, env: Env) {
	return runResult(env, a);
}

export function submitEvidence(tx: Tx, a: Args<"test.evidence.submit">, env: Env) {
	return submitTestEvidence(env, tx, a);
}

export function suggest(a: Args<"test.suggest">, env: Env) {
	return suggestFor(env, a);
}

export function sweepInterrupted(
	_: Args<"test.sweep_interrupted">,
	env: Env,
	key: Key<Result<"test.sweep_interrupted">>,
) {
	return sweepInterruptedRuns(env, key);
}

export function list(tx: Tx, a: Args<"test.list">, _env: Env) {
	return listTestRuns(tx, a);
}
