// The briefing's required next action: one sentence saying what to do first. A question addressed to
// the agent comes before its own work (someone is waiting on it); then a proposal whose files moved
// on in the project since its base (sync first: its other failing gates may follow from that); then
// a proposal failing a gate its author can fix, naming the gate; then any proposal in play, the task, a claim to reconcile.
// Unread messages are mentioned after whichever it is.

import type { Result } from "../registry/index.ts";

type Facts = Omit<Result<"agent.brief">, "required_next_action">;

/**
 * Gates the author fixes: the patch, its claims and coverage, whether it applies, a test run, the
 * rollback plan. The others (quorum, blocking votes, vetoes, roles, human and security review) wait
 * on other people, which reviewing the proposal's feedback covers.
 */
const AUTHOR_GATES = ["artifact", "parse", "claims", "coverage", "apply_check", "tests", "rollback_plan"];

/** `moved`: by proposal, the files its revision touches that changed in the project since its base. */
export function nextAction(
	b: Facts,
	operator: boolean,
	moved: ReadonlyMap<string, string[]> = new Map(),
): string {
	const action = first(b, operator, moved);
	const n = b.unread_count;
	if (n === 0) return action;
	const stop = /[.?!]$/.test(action) ? "" : ".";
	return `${action}${stop} You have ${n} unread message${n === 1 ? "" : "s"}: read ${n === 1 ? "it" : "them"} with message.inbox.`;
}

function first(b: Facts, operator: boolean, moved: ReadonlyMap<string, string[]>): string {
	const question = b.questions_to_me[0];
	if (question)
		return `Answer ${question.id} from ${question.requester_id} with peer.answer: ${clip(firstLine(question.question_md))}`;
	for (const p of b.pending_proposals) {
		const files = moved.get(p.proposal.id);
		if (files)
			return `Proposal ${p.proposal.id} (${oneLine(p.proposal.title)}) is stale: ${clip(files.join(", "))} changed in the project since its base. Run workspace.sync, resolve any conflicts it lists, make sure your write claims are live (resource.claim, or resource.renew with rebase), then workspace.propose with proposal_id ${p.proposal.id} for a new revision.`;
	}
	for (const p of b.pending_proposals) {
		const gate = p.failing_gates.find((g) => AUTHOR_GATES.includes(g));
		if (gate)
			return `Fix the ${gate} gate of proposal ${p.proposal.id} (${oneLine(p.proposal.title)}), then check it again with patch.validate.`;
	}
	const proposal = b.pending_proposals[0]?.proposal;
	if (proposal)
		return `Review proposal ${proposal.id} (${oneLine(proposal.title)}) and address any blocking feedback before revising or resubmitting it.`;
	if (b.task) return `Resume task ${b.task.id}: ${oneLine(b.task.title)}`;
	const claim = b.claims[0];
	if (claim)
		return `Reconcile active claim ${claim.id} on ${claim.resource_id} with the current table state before continuing.`;
	if (operator) return "No question awaits your answer.";
	return "Query the table and memory, then wait for task assignment or claim work.";
}

/** Titles and rationales are free text: one line each in the briefing's lists. */
export const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** The first line of Markdown that says something. */
export const firstLine = (text: string) => oneLine(text.split("\n").find((l) => l.trim() !== "") ?? "");

export const clip = (text: string, max = 200) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
