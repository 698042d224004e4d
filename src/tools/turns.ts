// agent.turn_request, agent.turn_start, agent.turn_complete: the seed's FIFO turn protocol, with its
// checks in its order. The events are the record; the `turns` table follows them in the same
// transaction so the queue is cheap to read. Better than the seed: a scheduled or started turn holds
// a lease (turns.lease_seconds) and expires when it runs out, so one stuck agent never blocks a run.

import type { Env } from "../engine/env.ts";
import { requireEnabledAgent, requireRun } from "../engine/records.ts";
import { failedPrecondition, invalidArgument, notFound, ToolError } from "../errors.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { TurnRow } from "../store/turns.ts";
import { expireTurn, leaseEnd } from "../turns/lease.ts";
import type { RunRecord } from "../vocabulary/records.ts";

const MAX_REASON_CODE_POINTS = 1000;

/** RFC 3339 with nanoseconds, as the seed's `requested_at`: the millisecond clock, zero-padded. */
const nano = (iso: string) => iso.replace(/\.(\d{3})Z$/, ".$1000000Z");

async function activeRun(tx: Tx, id: string, what: string): Promise<RunRecord> {
	const run = await requireRun(tx, id);
	if (run.status !== "active") {
		throw failedPrecondition(`run ${id} is ${run.status} and cannot accept ${what}`, {
			run_id: id,
			status: run.status,
		});
	}
	return run;
}

const leaseRanOut = (t: TurnRow, now: string) =>
	(t.status === "scheduled" || t.status === "started") &&
	t.lease_expires_at !== null &&
	t.lease_expires_at <= now;

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
