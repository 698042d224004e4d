// Where a run stands (reference §10.2), scoped to the run: its tasks, and its proposals (recorded in
// the run, or of one of its tasks). A run with nothing left to do completes; one where only blocked
// tasks remain is blocked; both end with an event. Anything else stays active, with the reason.
import { PROPOSAL_STATUSES } from "../domain/statuses.ts";
import type { RunRecord } from "../registry/records.ts";
import type { Tx } from "../store/index.ts";

export type Convergence =
	| "pending_agent_turn"
	| "awaiting_initial_work"
	| "all_tasks_and_proposals_terminal"
	| "all_remaining_tasks_blocked"
	| "work_remains"
	| "run_not_active";

const ACTIVE_TASK = ["open", "in_progress", "review"] as const;

export async function converge(
	tx: Tx,
	runId: string,
	chair: string,
	now: string,
): Promise<{ convergence: Convergence; run: RunRecord }> {
	const current = await tx.runs.get(runId);
	if (!current) throw new Error(`run ${runId} disappeared`);
	if (current.status !== "active") return { convergence: "run_not_active", run: current };

	const counts = await tx.tasks.statusCounts(runId);
	const total = Object.values(counts).reduce((a, b) => a + b, 0);
	const activeTasks = ACTIVE_TASK.reduce((n, s) => n + (counts[s] ?? 0), 0);
	const blocked = counts.blocked ?? 0;
	const proposals = await tx.proposals.ofRun(runId, PROPOSAL_STATUSES);
	const activeProposals = proposals.filter((p) => p.status === "pending" || p.status === "in_review").length;

	let convergence: Convergence;
	if ((await tx.turns.countOutstanding(runId)) > 0) convergence = "pending_agent_turn";
	else if (total === 0 && proposals.length === 0) convergence = "awaiting_initial_work";
	else if (activeTasks === 0 && activeProposals === 0 && blocked === 0)
		convergence = "all_tasks_and_proposals_terminal";
	else if (activeTasks === 0 && activeProposals === 0) convergence = "all_remaining_tasks_blocked";
	else convergence = "work_remains";

	let run = await tx.runs.ticked(runId, convergence, now);
	const end =
		convergence === "all_tasks_and_proposals_terminal"
			? "completed"
			: convergence === "all_remaining_tasks_blocked"
				? "blocked"
				: undefined;
	if (end) {
		run = await tx.runs.finish(runId, end, now);
		await tx.events.append(
			{
				type: `orchestrator.${end}`,
				actor_id: chair,
				run_id: runId,
				payload: { iterations: run.ticks, reason: convergence },
			},
			now,
		);
	}
	return { convergence, run };
}
