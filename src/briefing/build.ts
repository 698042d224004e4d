// The briefing: everything an agent needs to (re)start, read from the table in one call. agent.brief
// returns it and `roundtable resume` prints it (render.ts), so both say the same. The table is read
// in one short transaction (gate evidence included); each pending proposal's file checks run after
// it, outside any transaction.

import { checkProposal, policyOf } from "../gates/check.ts";
import { type Evidence, gatherEvidence } from "../gates/evidence.ts";
import type { Env } from "../handlers/env.ts";
import { OPERATOR, requireKnown } from "../peers/actor.ts";
import type { Result } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { TaskRecord } from "../vocabulary/records.ts";
import type { ProposalStatus, TaskStatus } from "../vocabulary/statuses.ts";
import { nextAction } from "./next-action.ts";

export type Briefing = Result<"agent.brief">;
export type PendingProposal = Briefing["pending_proposals"][number];

/** Task statuses that are still the agent's work (done, cancelled and failed tasks are not). */
const WORK: readonly TaskStatus[] = ["in_progress", "open", "blocked", "review"];
/** Proposal statuses still being decided: withdrawn, rolled back, accepted and rejected ones are settled. */
const UNDECIDED: readonly ProposalStatus[] = ["pending", "in_review"];
/** How many open questions (each way) and unread messages a briefing lists, oldest first. */
export const LISTED = 20;

/** What the table says, before the file checks. */
type Read = Omit<Briefing, "pending_proposals" | "required_next_action"> & { evidence: Evidence[] };

/** The briefing of `agentId` (an agent, or `operator`: its questions and messages, no work). */
export async function buildBriefing(env: Env, agentId: string): Promise<Briefing> {
	const { evidence, ...read } = await env.rt.store.withTransaction("read", (tx) =>
		readTable(tx, agentId, env.now),
	);
	const policy = policyOf(env.rt);
	const pending: PendingProposal[] = [];
	const moved = new Map<string, string[]>();
	for (const e of evidence) {
		const report = await checkProposal(env.rt.root, e, policy);
		if (report.moved_since_base.length > 0) moved.set(e.proposal.id, report.moved_since_base);
		pending.push({
			proposal: e.proposal,
			valid: report.valid,
			approvable: report.approvable,
			failing_gates: report.gates.filter((g) => !g.ok).map((g) => g.gate),
		});
	}
	const briefing = { ...read, pending_proposals: pending };
	return { ...briefing, required_next_action: nextAction(briefing, agentId === OPERATOR, moved) };
}

async function readTable(tx: Tx, agentId: string, now: string): Promise<Read> {
	const operator = agentId === OPERATOR;
	await requireKnown(tx, agentId, "agent_id");
	const claims = operator ? [] : await tx.claims.activeOf(agentId, now);
	const proposals = operator ? [] : await tx.proposals.ofAgent(agentId, UNDECIDED);
	const evidence: Evidence[] = [];
	for (const p of proposals) evidence.push(await gatherEvidence(tx, p.id, now));
	return {
		agent_id: agentId,
		task: operator ? null : await currentTask(tx, agentId, claims),
		claims,
		evidence,
		questions_to_me: await tx.peers.list({ to: agentId, status: "open" }, undefined, LISTED),
		questions_from_me: await tx.peers.list({ from: agentId, status: "open" }, undefined, LISTED),
		unread_messages: await tx.messages.inbox(agentId, true, undefined, LISTED),
		unread_count: await tx.messages.unreadCount(agentId),
		latest_decisions: await tx.decisions.newest(3),
	};
}

/** The task to resume: the agent's open work, else the task of its first active claim. */
async function currentTask(
	tx: Tx,
	agentId: string,
	claims: readonly { task_id: string }[],
): Promise<TaskRecord | null> {
	const own = (await tx.tasks.ofAgent(agentId, WORK))[0];
	if (own) return own;
	for (const c of claims) {
		const task = await tx.tasks.get(c.task_id);
		if (task) return task;
	}
	return null;
}
