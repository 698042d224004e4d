// chair.schedule_turn: one turn at a time per run; when none holds the floor, the oldest request is
// scheduled with a lease (turns.lease_seconds).

import { actorId } from "../context.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { leaseEnd } from "../turns/lease.ts";

/** One turn at a time per run: when none holds the floor, the oldest request gets it. */
export async function scheduleTurn(tx: Tx, a: Args<"chair.schedule_turn">, env: Env) {
	const runId = a.run_id;
	const { now } = env;
	if (await tx.turns.current(runId)) return { scheduled: null };
	const next = await tx.turns.next(runId);
	if (!next) return { scheduled: null };
	await tx.turns.schedule(next.request_event_id, leaseEnd(now, env.rt.config.turns.lease_seconds), now);
	await tx.events.append(
		{
			type: "agent.turn_scheduled",
			actor_id: actorId(env.ctx),
			run_id: runId,
			payload: {
				agent_id: next.agent_id,
				request_event_id: next.request_event_id,
				reason: next.reason_md,
				position: 1,
			},
		},
		now,
	);
	return { scheduled: next.request_event_id };
}
