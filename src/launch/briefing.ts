// The resume briefing (`roundtable resume`): what an agent coming back to a session must know before
// it does anything, read from the table (never from the external session's own memory): its current
// task, its live claims, its proposals still in play, the newest decisions, and what to do next.

import type { Tx } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";
import type { ClaimRecord, DecisionRecord, ProposalRecord, TaskRecord } from "../vocabulary/records.ts";
import type { ProposalStatus, TaskStatus } from "../vocabulary/statuses.ts";

export interface Briefing {
	session: SessionRow;
	/** The task to resume: the agent's open work, else the task of its first active claim. */
	task: TaskRecord | null;
	/** Active claims, by resource id. */
	claims: ClaimRecord[];
	/** Proposals still being decided (pending or in review), newest first. */
	pending_proposals: ProposalRecord[];
	/** The three newest decisions, whoever made them, newest first. */
	latest_decisions: DecisionRecord[];
	required_next_action: string;
	/** Claims this resume suspended because their resource changed since they were taken. */
	suspended_claims: ClaimRecord[];
}

/** Task statuses that are still the agent's work (done, cancelled and failed tasks are not). */
const WORK: readonly TaskStatus[] = ["in_progress", "open", "blocked", "review"];
/** Proposal statuses still being decided: withdrawn, rolled back, accepted and rejected ones are settled. */
const UNDECIDED: readonly ProposalStatus[] = ["pending", "in_review"];

export async function buildBriefing(
	tx: Tx,
	session: SessionRow,
	suspendedIds: readonly string[],
	now: string,
): Promise<Briefing> {
	const agent = session.agent_id;
	const claims = await tx.claims.activeOf(agent, now);
	let task = (await tx.tasks.ofAgent(agent, WORK))[0] ?? null;
	for (const c of claims) {
		if (task) break;
		task = (await tx.tasks.get(c.task_id)) ?? null;
	}
	const pending = await tx.proposals.ofAgent(agent, UNDECIDED);
	const suspended: ClaimRecord[] = [];
	for (const id of suspendedIds) {
		const c = await tx.claims.get(id, now);
		if (c) suspended.push(c);
	}
	suspended.sort((a, b) => a.resource_id.localeCompare(b.resource_id) || a.id.localeCompare(b.id));
	return {
		session,
		task,
		claims,
		pending_proposals: pending,
		latest_decisions: await tx.decisions.newest(3),
		required_next_action: nextAction(task, claims, pending),
		suspended_claims: suspended,
	};
}

/** A proposal in play comes first, then the task, then a claim to reconcile, else wait for work. */
function nextAction(task: TaskRecord | null, claims: ClaimRecord[], pending: ProposalRecord[]): string {
	const proposal = pending[0];
	if (proposal)
		return `Review proposal ${proposal.id} (${oneLine(proposal.title)}) and address any blocking feedback before revising or resubmitting it.`;
	if (task) return `Resume task ${task.id}: ${oneLine(task.title)}`;
	const claim = claims[0];
	if (claim)
		return `Reconcile active claim ${claim.id} on ${claim.resource_id} with the current table state before continuing.`;
	return "Query the table and memory, then wait for task assignment or claim work.";
}

/** Titles and rationales are free text: one line each in the briefing's lists. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

const clip = (text: string, max = 200) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The briefing as Markdown; claims this resume suspended follow it, one line each. */
export function renderBriefing(b: Briefing): string {
	const s = b.session;
	const list = (items: string[]) => (items.length === 0 ? "- none" : items.join("\n"));
	const parts = [
		"# Roundtable Resume Briefing",
		`You are resuming as ${s.agent_id}.`,
		[
			`Run: ${s.run_id ?? "-"}`,
			...(s.external_session_id ? [`External session: ${s.external_session_id}`] : []),
		].join("\n"),
		`Current task:\n${b.task ? `${b.task.id} ${oneLine(b.task.title)} (${b.task.status})` : "(no assigned task)"}`,
		`Your active claims:\n${list(b.claims.map((c) => `- ${c.resource_id} (${c.id}, ${c.claim_type})`))}`,
		`Pending proposals:\n${list(
			b.pending_proposals.map(
				(p) =>
					`- ${p.id} from you: ${p.status} — ${oneLine(p.title)}${p.status_reason ? `\n  Reason: ${oneLine(p.status_reason)}` : ""}`,
			),
		)}`,
		`Latest decisions:\n${list(
			b.latest_decisions.map((d) => `- ${d.id}: ${oneLine(d.decision)} — ${clip(oneLine(d.rationale_md))}`),
		)}`,
		`Required next action:\n${b.required_next_action}`,
	];
	let text = `${parts.join("\n\n")}\n`;
	if (b.suspended_claims.length > 0) {
		text += `\nStale claims suspended on resume:\n${b.suspended_claims
			.map((c) => `- ${c.resource_id} (${c.id})`)
			.join("\n")}\n`;
	}
	return text;
}
