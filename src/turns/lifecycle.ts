// agent.turn_start and agent.turn_complete: a scheduled turn is started (its lease renewed), a started
// one completed, with the seed's checks in its order; a turn whose lease ran out can do neither.

import { failedPrecondition, notFound, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { TurnRow } from "../store/turns.ts";
import { leaseEnd, leaseRanOut } from "./lease.ts";
import { activeRun } from "./queue.ts";

/** The seed's checks shared by start and complete, in its order; returns the request's turn. */
async function lifecycleTurn(tx: Tx, a: Args<"agent.turn_start">, now: string): Promise<TurnRow> {
	await activeRun(tx, a.run_id, "turn lifecycle events");
	const t = await tx.turns.get(a.request_event_id);
	const inRun = t !== undefined && t.run_id === a.run_id;
	if (inRun && t.agent_id !== a.agent_id && t.scheduled_at !== null) {
		throw new ToolError("permission_denied", "turn request was scheduled for a different agent", {
			request_event_id: a.request_event_id,
			agent_id: t.agent_id,
		});
	}
	if (!inRun || t.agent_id !== a.agent_id) {
		throw notFound("turn request not found for this agent", {
			request_event_id: a.request_event_id,
			run_id: a.run_id,
		});
	}
	if (t.status === "completed") {
		throw failedPrecondition("turn request is already complete", { request_event_id: t.request_event_id });
	}
	if (t.status === "expired" || leaseRanOut(t, now)) {
		throw failedPrecondition(
			`turn request expired: its lease ran out at ${t.lease_expires_at ?? t.ended_at}; request a new turn`,
			{ request_event_id: t.request_event_id, lease_expires_at: t.lease_expires_at },
		);
	}
	return t;
}

async function lifecycleEvent(tx: Tx, type: string, t: TurnRow, now: string) {
	const event = await tx.events.append(
		{
			type,
			actor_id: t.agent_id,
			run_id: t.run_id,
			payload: { agent_id: t.agent_id, request_event_id: t.request_event_id },
		},
		now,
	);
	return { event, request_event_id: t.request_event_id, status: type };
}

export async function start(tx: Tx, a: Args<"agent.turn_start">, env: Env) {
	const t = await lifecycleTurn(tx, a, env.now);
	if (t.status === "requested") {
		throw failedPrecondition("turn request has not been scheduled by the Chair", {
			request_event_id: t.request_event_id,
		});
	}
	if (t.status === "started") {
		throw failedPrecondition("turn request has already started", { request_event_id: t.request_event_id });
	}
	await tx.turns.start(t.request_event_id, leaseEnd(env.now, env.rt.config.turns.lease_seconds), env.now);
	return lifecycleEvent(tx, "agent.turn_started", t, env.now);
}

export async function complete(tx: Tx, a: Args<"agent.turn_complete">, env: Env) {
	const t = await lifecycleTurn(tx, a, env.now);
	if (t.status !== "started") {
		throw failedPrecondition("turn request has not started", { request_event_id: t.request_event_id });
	}
	await tx.turns.end(t.request_event_id, "completed", env.now);
	return lifecycleEvent(tx, "agent.turn_completed", t, env.now);
}
