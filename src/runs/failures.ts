// What the Chair records when it fails: a step's error on one subject (chair.error), or a whole tick
// (orchestrator.retry, or giving up: the run failed and orchestrator.failed).
import { actorId } from "../context.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export async function reportError(tx: Tx, a: Args<"chair.report_error">, env: Env) {
	const event = await tx.events.append(
		{
			type: "chair.error",
			actor_id: actorId(env.ctx),
			run_id: a.run_id,
			payload: { step: a.step, subject: a.subject, code: a.code, message: a.message },
		},
		env.now,
	);
	return { event };
}

/** A tick that failed as a whole: a retry event, or (giving up) the run failed. */
export async function tickFailed(tx: Tx, a: Args<"run.tick_failed">, env: Env) {
	const { now } = env;
	let run = (await tx.runs.get(a.run_id)) ?? null;
	if (a.give_up && run?.status === "active") run = await tx.runs.finish(a.run_id, "failed", now);
	const event = await tx.events.append(
		a.give_up
			? {
					type: "orchestrator.failed",
					actor_id: actorId(env.ctx),
					run_id: a.run_id,
					payload: { iterations: run?.ticks ?? 0, error: a.error },
				}
			: {
					type: "orchestrator.retry",
					actor_id: actorId(env.ctx),
					run_id: a.run_id,
					payload: {
						iteration: (run?.ticks ?? 0) + 1,
						attempt: a.attempt,
						max_attempts: a.max_attempts,
						error: a.error,
						next_retry_delay_ms: a.next_retry_delay_ms,
					},
				},
		now,
	);
	return { run, event };
}
