// Where a run stands (reference §10.2), from counts of its tasks, proposals and turns. A run with
// nothing left to do completes; one where only blocked tasks remain is blocked; anything else stays
// active, with the reason.
import type { TaskStatus } from "../vocabulary/statuses.ts";

export const CONVERGENCE = [
	"pending_agent_turn",
	"awaiting_initial_work",
	"all_tasks_and_proposals_terminal",
	"all_remaining_tasks_blocked",
	"work_remains",
	"run_not_active",
] as const;

export type Convergence = (typeof CONVERGENCE)[number];

const ACTIVE_TASK = ["open", "in_progress", "review"] as const;

export interface RunCounts {
	tasks: Partial<Record<TaskStatus, number>>;
	proposals: number;
	/** Proposals still pending or in review. */
	activeProposals: number;
	outstandingTurns: number;
	/** Sessions of the run still at work: while one stands, the run has not converged. */
	liveSessions?: number;
}

export function convergenceOf(c: RunCounts): Convergence {
	// A proposed task is nobody's work until the operator opens it: it neither holds a run open nor
	// counts as the run's first work.
	const total = Object.entries(c.tasks).reduce((a, [s, n]) => (s === "proposed" ? a : a + (n ?? 0)), 0);
	const activeTasks = ACTIVE_TASK.reduce((n, s) => n + (c.tasks[s] ?? 0), 0);
	const blocked = c.tasks.blocked ?? 0;
	if (c.outstandingTurns > 0) return "pending_agent_turn";
	if (total === 0 && c.proposals === 0) return "awaiting_initial_work";
	if ((c.liveSessions ?? 0) > 0 && activeTasks === 0 && c.activeProposals === 0) return "work_remains";
	if (activeTasks === 0 && c.activeProposals === 0 && blocked === 0)
		return "all_tasks_and_proposals_terminal";
	if (activeTasks === 0 && c.activeProposals === 0) return "all_remaining_tasks_blocked";
	return "work_remains";
}

/** The status a run ends with at this convergence, if it ends. */
export const endOf = (c: Convergence): "completed" | "blocked" | undefined =>
	c === "all_tasks_and_proposals_terminal"
		? "completed"
		: c === "all_remaining_tasks_blocked"
			? "blocked"
			: undefined;
