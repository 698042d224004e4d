// agent.turn_request: joining a run's FIFO turn queue, with the seed's checks in its order. One
// outstanding request per agent per run; the event is the record, the `turns` row follows it. And
// turn.queue, the operator's read of the outstanding requests.

import { failedPrecondition, invalidArgument } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { requireEnabledAgent, requireRun } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { RunRecord } from "../vocabulary/records.ts";
import { expireTurn, leaseRanOut } from "./lease.ts";

const MAX_REASON_CODE_POINTS = 1000;

/** RFC 3339 with nanoseconds, as the seed's `requested_at`: the millisecond clock, zero-padded. */
const nano = (iso: string) => iso.replace(/\.(\d{3})Z$/, ".$1000000Z");

/** The run, which must be active to accept `what` (turn requests, turn lifecycle events). */
export async function activeRun(tx: Tx, id: string, what: string): Promise<RunRecord> {
	const run = await requireRun(tx, id);
	if (run.status !== "active") {
		throw failedPrecondition(`run ${id} is ${run.status} and cannot accept ${what}`, {
			run_id: id,
			status: run.status,
		});
	}
	return run;
}

export async function request(tx: Tx, a: Args<"agent.turn_request">, env: Env) {
	const reason = a.reason_md.trim();
	if ([...reason].length > MAX_REASON_CODE_POINTS) {
		throw invalidArgument(`reason_md must be ${MAX_REASON_CODE_POINTS} characters or fewer`, {
			field: "reason_md",
		});
	}
	await activeRun(tx, a.run_id, "turn requests");
	await requireEnabledAgent(tx, a.agent_id, "agent_id");

	let outstanding = await tx.turns.outstanding(a.run_id, a.agent_id);
	// An expired lease finishes the request even before the Chair's sweep records it.
	if (outstanding && leaseRanOut(outstanding, env.now)) {
		await expireTurn(tx, outstanding, env.now, "system");
		outstanding = undefined;
	}
	let id = outstanding?.request_event_id;
	if (id === undefined) {
		const event = await tx.events.append(
			{
				type: "agent.turn_requested",
				actor_id: a.agent_id,
				run_id: a.run_id,
				payload: { agent_id: a.agent_id, reason_md: reason, requested_at: nano(env.now) },
			},
			env.now,
		);
		id = event.id;
		await tx.turns.insert(
			{ request_event_id: id, run_id: a.run_id, agent_id: a.agent_id, reason_md: reason },
			env.now,
		);
	}
	return {
		request_event_id: id,
		agent_id: a.agent_id,
		queued: true,
		duplicate: outstanding !== undefined,
		queue_position: await tx.turns.position(a.run_id, id),
	};
}

/** turn.queue: the outstanding requests of one run (which must exist) or of every run, oldest first. */
export async function queue(tx: Tx, a: Args<"turn.queue">) {
	if (a.run_id === undefined) return { turns: await tx.turns.allOutstanding() };
	await requireRun(tx, a.run_id);
	return { turns: await tx.turns.queue(a.run_id) };
}
