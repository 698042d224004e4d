// The required next action's order, as a pure function of the briefing's facts: a question to the
// agent first, then a gate its author can fix, then the proposal, the task, a claim, nothing; unread
// messages mentioned after any of them. Gates that wait on others do not ask the author to fix them.
import { describe, expect, test } from "bun:test";
import type { Briefing, PendingProposal } from "../../src/briefing/build.ts";
import { nextAction } from "../../src/briefing/next-action.ts";

type Facts = Omit<Briefing, "required_next_action">;

const none: Facts = {
	agent_id: "implementer-1",
	task: null,
	claims: [],
	pending_proposals: [],
	questions_to_me: [],
	questions_from_me: [],
	unread_messages: [],
	unread_count: 0,
	latest_decisions: [],
};
const task = { id: "T-1", title: "Refresh\n tokens" } as Facts["task"];
const claim = { id: "C-1", resource_id: "file:a.ts" } as Facts["claims"][number];
const question = {
	id: "Q-1",
	requester_id: "reviewer-1",
	question_md: "\nWhich format?\nMore.",
} as Facts["questions_to_me"][number];
const proposal = (id: string, failing: string[]): PendingProposal => ({
	proposal: { id, title: `Change ${id}` } as PendingProposal["proposal"],
	valid: failing.length === 0,
	approvable: failing.length === 0,
	failing_gates: failing,
});

describe("the required next action", () => {
	test("a question addressed to the agent comes before its own work", () => {
		const b = {
			...none,
			task,
			claims: [claim],
			questions_to_me: [question],
			pending_proposals: [proposal("P-1", ["claims"])],
		};
		expect(nextAction(b, false)).toBe("Answer Q-1 from reviewer-1 with peer.answer: Which format?");
	});

	test("a gate the author can fix is named, on whichever pending proposal fails one", () => {
		const b = {
			...none,
			task,
			pending_proposals: [proposal("P-2", ["quorum"]), proposal("P-1", ["quorum", "apply_check"])],
		};
		expect(nextAction(b, false)).toBe(
			"Fix the apply_check gate of proposal P-1 (Change P-1), then check it again with patch.validate.",
		);
	});

	test("a proposal whose files moved on since its base comes first: sync, claims, a new revision", () => {
		const b = {
			...none,
			task,
			pending_proposals: [proposal("P-1", ["claims"]), proposal("P-2", ["claims", "apply_check"])],
		};
		expect(nextAction(b, false, new Map([["P-2", ["src/a.ts", "src/b.ts"]]]))).toBe(
			"Proposal P-2 (Change P-2) is stale: src/a.ts, src/b.ts changed in the project since its base. Run workspace.sync, resolve any conflicts it lists, make sure your write claims are live (resource.claim, or resource.renew with rebase), then workspace.propose with proposal_id P-2 for a new revision.",
		);
	});

	test("gates waiting on others leave the proposal to review; then the task, a claim, nothing", () => {
		const waiting = { ...none, task, pending_proposals: [proposal("P-2", ["quorum", "human_approval"])] };
		expect(nextAction(waiting, false)).toStartWith(
			"Review proposal P-2 (Change P-2) and address any blocking",
		);
		expect(nextAction({ ...none, task, claims: [claim] }, false)).toBe("Resume task T-1: Refresh tokens");
		expect(nextAction({ ...none, claims: [claim] }, false)).toStartWith(
			"Reconcile active claim C-1 on file:a.ts",
		);
		expect(nextAction(none, false)).toBe(
			"Query the table and memory, then wait for task assignment or claim work.",
		);
		expect(nextAction({ ...none, agent_id: "operator" }, true)).toBe("No question awaits your answer.");
	});

	test("unread messages are mentioned after the action, counted", () => {
		expect(nextAction({ ...none, task, unread_count: 3 }, false)).toBe(
			"Resume task T-1: Refresh tokens. You have 3 unread messages: read them with message.inbox.",
		);
		expect(nextAction({ ...none, unread_count: 1 }, true)).toBe(
			"No question awaits your answer. You have 1 unread message: read it with message.inbox.",
		);
	});
});
