// run.open (the operator's), and the Chair's batch steps: chair.expire, .assign_tasks,
// .schedule_turn, .report_error, run.converge and run.tick_failed. Each is one transaction however
// many records it touches; the tick in src/chair/ calls them in order.

import { expireDue } from "../claims/lifecycle.ts";
import { actorId } from "../context.ts";
import { convergenceOf, endOf } from "../domain/convergence.ts";
import type { Env } from "../engine/env.ts";
import { requireRun } from "../engine/records.ts";
import { failedPrecondition, notFound } from "../errors.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { expireTurn, leaseEnd } from "../turns/lease.ts";
import { mintId } from "../vocabulary/ids.ts";
import type { RunRecord } from "../vocabulary/records.ts";
import { PROPOSAL_STATUSES } from "../vocabulary/statuses.ts";

const ASSIGN_CURSOR = "assign.last_agent";
/** implementer-2 before implementer-10. */
const byId = new Intl.Collator("en", { numeric: true }).compare;

/**
 * A new run is created active. An existing active run is continued (its goal updated when one is
 * given). An ended run is made active again only with `resume`, so a typo never revives one.
 */
export async function open(tx: Tx, a: Args<"run.open">, env: Env) {
	const { now } = env;
	const existing =
		a.run_id !== undefined ? await tx.runs.get(a.run_id) : a.resume ? await tx.runs.latest() : undefined;
	if (a.resume && !existing) {
		throw a.run_id !== undefined
			? notFound(`run ${a.run_id} not found`, { run_id: a.run_id })
			: notFound("there is no run to resume");
	}
	let run: RunRecord;
	let action: "created" | "continued" | "resumed";
	if (!existing) {
		run = await tx.runs.insert({ id: a.run_id ?? mintId("run"), goal: a.goal ?? "", status: "active" }, now);
		action = "created";
	} else if (existing.status === "active") {
		run =
			a.goal !== undefined && a.goal !== existing.goal
				? await tx.runs.reactivate(existing.id, a.goal, now)
				: existing;
		action = "continued";
	} else if (a.resume) {
		run = await tx.runs.reactivate(existing.id, a.goal, now);
		action = "resumed";
	} else {
		throw failedPrecondition(
			`run ${existing.id} is ${existing.status}; pass --resume to make it active again`,
			{
				run_id: existing.id,
				status: existing.status,
			},
		);
	}
	if (action !== "continued" || run !== existing) {
		await tx.events.append(
			{
				type: `run.${action === "continued" ? "updated" : action}`,
				actor_id: actorId(env.ctx),
				run_id: run.id,
				payload: { run_id: run.id, goal: run.goal, status: run.status },
			},
			now,
		);
	}
	return { run, action };
}

/** Claims whose lease ran out (all of them, as `claims expire` does), and the run's turn leases. */
export async function expire(tx: Tx, a: Args<"chair.expire">, env: Env) {
	const { now } = env;
	const claims = await expireDue(tx, now);
	const due = (await tx.turns.leaseDue(now)).filter((t) => t.run_id === a.run_id);
	for (const t of due) await expireTurn(tx, t, now, actorId(env.ctx));
	return { expired_claims: claims.length, expired_turns: due.length };
}

/**
 * Open, unassigned tasks of the run (or of no run, which the run then adopts) go round-robin to the
 * enabled implementers. The cursor is the last agent given a task, kept across ticks and restarts.
 */
export async function assignTasks(tx: Tx, a: Args<"chair.assign_tasks">, env: Env) {
	const { now } = env;
	const runId = a.run_id;
	const tasks = await tx.tasks.assignable(runId);
	if (tasks.length === 0) return { assigned: [] };
	const implementers = (await tx.agents.list())
		.filter((x) => x.role === "Implementer" && x.enabled)
		.map((x) => x.id)
		.sort(byId);
	if (implementers.length === 0) return { assigned: [] };
	const last = await tx.chairState.get(ASSIGN_CURSOR);
	// The first implementer after the last one served (ids sort, so a removed agent still has a place).
	let next = implementers.findIndex((id) => last === undefined || byId(id, last) > 0);
	if (next === -1) next = 0;
	const assigned: { task_id: string; agent_id: string }[] = [];
	for (const task of tasks) {
		const agent = implementers[next % implementers.length] as string;
		next++;
		await tx.tasks.update(task.id, { assigned_agent_id: agent, status: "in_progress", run_id: runId }, now);
		await tx.events.append(
			{
				type: "task.assigned",
				actor_id: actorId(env.ctx),
				run_id: runId,
				task_id: task.id,
				payload: { task_id: task.id, assigned_agent_id: agent },
			},
			now,
		);
		assigned.push({ task_id: task.id, agent_id: agent });
	}
	await tx.chairState.set(ASSIGN_CURSOR, assigned.at(-1)?.agent_id as string);
	return { assigned };
}

/** One turn at a time per run: when none holds the floor, the oldest request gets it. */
export async function scheduleTurn(tx: Tx, a: Args<"chair.schedule_turn">, env: Env) {
	const { now } = env;
	if (await tx.turns.current(a.run_id)) return { scheduled: null };
	const next = await tx.turns.next(a.run_id);
	if (!next) return { scheduled: null };
	await tx.turns.schedule(next.request_event_id, leaseEnd(now, env.rt.config.turns.lease_seconds), now);
	await tx.events.append(
		{
			type: "agent.turn_scheduled",
			actor_id: actorId(env.ctx),
			run_id: a.run_id,
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

/** Counts the tick, records where the run stands, and ends it (with an event) when nothing is left. */
export async function converge(tx: Tx, a: Args<"run.converge">, env: Env) {
	const { now } = env;
	const current = await requireRun(tx, a.run_id);
	if (current.status !== "active") return { convergence: "run_not_active" as const, run: current };
	const proposals = await tx.proposals.ofRun(a.run_id, PROPOSAL_STATUSES);
	const convergence = convergenceOf({
		tasks: await tx.tasks.statusCounts(a.run_id),
		proposals: proposals.length,
		activeProposals: proposals.filter((p) => p.status === "pending" || p.status === "in_review").length,
		outstandingTurns: await tx.turns.countOutstanding(a.run_id),
	});
	let run = await tx.runs.ticked(a.run_id, convergence, now);
	const end = endOf(convergence);
	if (end) {
		run = await tx.runs.finish(a.run_id, end, now);
		await tx.events.append(
			{
				type: `orchestrator.${end}`,
				actor_id: actorId(env.ctx),
				run_id: a.run_id,
				payload: { iterations: run.ticks, reason: convergence },
			},
			now,
		);
	}
	return { convergence, run };
}

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
