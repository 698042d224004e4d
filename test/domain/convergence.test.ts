// Where a run stands, from counts alone (reference §10.2).
import { expect, test } from "bun:test";
import { convergenceOf, endOf } from "../../src/domain/convergence.ts";

const counts = (tasks: Record<string, number>, proposals = 0, activeProposals = 0, outstandingTurns = 0) => ({
	tasks,
	proposals,
	activeProposals,
	outstandingTurns,
});

test("each outcome, and which of them end the run", () => {
	expect(convergenceOf(counts({ done: 1 }, 0, 0, 1))).toBe("pending_agent_turn");
	expect(convergenceOf(counts({}))).toBe("awaiting_initial_work");
	expect(convergenceOf(counts({ done: 2, cancelled: 1 }, 1))).toBe("all_tasks_and_proposals_terminal");
	expect(convergenceOf(counts({ done: 1, blocked: 1 }))).toBe("all_remaining_tasks_blocked");
	expect(convergenceOf(counts({ open: 1, blocked: 1 }))).toBe("work_remains");
	expect(convergenceOf(counts({ done: 1 }, 1, 1))).toBe("work_remains");
	expect(endOf("all_tasks_and_proposals_terminal")).toBe("completed");
	expect(endOf("all_remaining_tasks_blocked")).toBe("blocked");
	expect(endOf("work_remains")).toBeUndefined();
});

test("a proposed task is nobody's work yet: it neither starts a run's work nor holds the run open", () => {
	expect(convergenceOf(counts({ proposed: 2 }))).toBe("awaiting_initial_work");
	expect(convergenceOf(counts({ proposed: 1, done: 1 }))).toBe("all_tasks_and_proposals_terminal");
	expect(convergenceOf(counts({ proposed: 1, blocked: 1 }))).toBe("all_remaining_tasks_blocked");
});
