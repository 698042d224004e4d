// run.converge, the last step of the Chair's tick: counts the tick, records where the run stands
// (src/domain/convergence.ts), and ends the run with an event when nothing is left to do.

import { actorId } from "../context.ts";
import { convergenceOf, endOf } from "../domain/convergence.ts";
import type { Env } from "../handlers/env.ts";
import { requireRun } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

/** Counts the tick, records where the run stands, and ends it (with an event) when nothing is left. */
export async function converge(tx: Tx, a: Args<"run.converge">, env: Env) {
	const runId = a.run_id;
	const { now } = env;
	const current = await requireRun(tx, runId);
	if (current.status !== "active") return { convergence: "run_not_active" as const, run: current };
	const proposals = await tx.proposals.statusCounts(runId);
	const tasks = await tx.tasks.statusCounts(runId);
	const sessions = await tx.sessions.countsOfRun(runId, now);
	const convergence = convergenceOf({
		tasks,
		proposals: Object.values(proposals).reduce((sum, n) => sum + n, 0),
		activeProposals: (proposals.pending ?? 0) + (proposals.in_review ?? 0),
		outstandingTurns: await tx.turns.countOutstanding(runId),
		liveSessions: sessions.live,
	});
	let run = await tx.runs.ticked(runId, convergence, sessions, now);
	const end = endOf(convergence);
	if (end) {
		run = await tx.runs.finish(runId, end, now);
		await tx.events.append(
			{
				type: `orchestrator.${end}`,
				actor_id: actorId(env.ctx),
				run_id: runId,
				// What the run leaves: its tasks by status, and its sessions (how many failed or were given up).
				payload: { iterations: run.ticks, reason: convergence, tasks, sessions },
			},
			now,
		);
	}
	return { convergence, run };
}
