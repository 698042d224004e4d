// The evidence every gate reads, gathered in one read transaction: what the patch is, who voted on
// its current revision, which test runs passed, and the human and security decisions.

import type { Scope } from "../domain/claims.ts";
import { scopeOfId } from "../domain/coverage.ts";
import { type ParsedPatch, touchedPaths } from "../domain/patch.ts";
import { notFound } from "../errors.ts";
import { requireProposal, scopeOfResource, writeClaimsOf } from "../handlers/records.ts";
import type { EvaluationInput } from "../policy/types.ts";
import type { Tx } from "../store/index.ts";
import type { ClaimRecord, ProposalRecord } from "../vocabulary/records.ts";
import type { Vote } from "../vocabulary/statuses.ts";

/**
 * What the policy's decision on a proposal's current revision rests on: the votes on it, the test
 * runs that passed, and the human and security decisions. A review request reads only this.
 */
export interface DecisionEvidence {
	proposal: ProposalRecord;
	votes: EvaluationInput["votes"];
	passes: EvaluationInput["passes"];
	human: EvaluationInput["human"];
	security: EvaluationInput["security"];
}

/** What the database says about a proposal's current revision: the decision's part and the gates'. */
export interface Evidence extends DecisionEvidence {
	resources: string[];
	/** Affected resources as scopes (symbol lines from their stored rows). */
	scopes: Scope[];
	/** The author's live write and exclusive claims. */
	claims: ClaimRecord[];
	patch: { sha256: string; strip: number; number: number; base: Record<string, string> | null };
}

export async function gatherEvidence(tx: Tx, proposalId: string, now: string): Promise<Evidence> {
	const proposal = await requireProposal(tx, proposalId);
	const resources = await tx.proposals.resources(proposal.id);
	const scopes: Scope[] = [];
	for (const id of resources) {
		const row = await tx.resources.get(id);
		scopes.push(row ? scopeOfResource(row) : scopeOfId(id));
	}
	const claims = await writeClaimsOf(tx, proposal.agent_id, now);
	const patch = await tx.proposals.currentPatch(proposal.id);
	if (!patch) throw notFound(`proposal ${proposal.id} has no patch revision`, { proposal_id: proposal.id });
	const decision = await gatherDecisionEvidence(tx, proposal, await tx.agents.list());
	return { ...decision, resources, scopes, claims, patch };
}

/**
 * The decision's evidence of a proposal just read, with the agents as read in the same transaction
 * (their roles weigh the votes): a batch reads them once for all its proposals.
 */
export async function gatherDecisionEvidence(
	tx: Tx,
	proposal: ProposalRecord,
	agents: readonly { id: string; role: string }[],
): Promise<DecisionEvidence> {
	const roles = new Map(agents.map((a) => [a.id, a.role]));
	const votes = (await tx.votes.list(proposal.id))
		.filter((v) => v.patch_revision === proposal.patch_revision)
		.map((v) => ({ agent_id: v.agent_id, role: roles.get(v.agent_id) ?? "", vote: v.vote as Vote }));
	const passes = await tx.testRuns.passes(proposal.id, proposal.patch_revision);
	const decision = await tx.approvals.latestDecision(proposal.id, proposal.patch_revision);
	const review = await tx.reviews.latest(proposal.id, proposal.patch_revision);
	return {
		proposal,
		votes,
		passes,
		human:
			decision && decision.status !== "requested"
				? { status: decision.status, override_policy: decision.override_policy }
				: null,
		security: review ? { status: review.status } : null,
	};
}

/** The decision evidence of a proposal nothing was recorded on yet (see proposals.withVerdicts). */
export const noVerdictsYet = (proposal: ProposalRecord): DecisionEvidence => ({
	proposal,
	votes: [],
	passes: [],
	human: null,
	security: null,
});

export function evaluationInput(e: DecisionEvidence, parsed: ParsedPatch | undefined): EvaluationInput {
	return {
		risk: e.proposal.risk,
		revision: e.proposal.patch_revision,
		touched: parsed ? touchedPaths(parsed) : e.proposal.patch_files,
		added: parsed ? addedLines(parsed) : [],
		symlinks: parsed ? parsed.files.flatMap((f) => (f.symlink && f.new_path ? [f.new_path] : [])) : [],
		author: e.proposal.agent_id,
		votes: e.votes,
		passes: e.passes,
		expected_tests: e.proposal.expected_tests,
		rollback_notes: e.proposal.rollback_notes,
		human: e.human,
		security: e.security,
	};
}

/** The lines a patch adds, where it leaves them. */
export const addedLines = (parsed: ParsedPatch): EvaluationInput["added"] =>
	parsed.files.flatMap((f) =>
		f.new_path === null
			? []
			: f.added.map((a) => ({ path: f.new_path as string, line: a.line, text: a.text })),
	);
