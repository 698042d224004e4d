// Proposals, votes, decisions and rejection. A proposal's patch is stored by content and versioned:
// attach_patch makes the next patch revision, and evidence (votes, reviews, approvals, tests) only
// counts for the revision it saw. patch.validate lives in validate.ts; apply comes with its issue.
import { actorId } from "../context.ts";
import { type ParsedPatch, parsePatch } from "../domain/patch.ts";
import type { Env } from "../engine/env.ts";
import { cursorKey, page } from "../engine/paging.ts";
import {
	checkRevision,
	newRecordId,
	requireEnabledAgent,
	requireProposal,
	requireRun,
	requireTask,
} from "../engine/records.ts";
import { conflict, failedPrecondition, ToolError } from "../errors.ts";
import { policyOf, validateProposal } from "../gates/check.ts";
import { evaluationInput, gatherEvidence } from "../gates/evidence.ts";
import { readPatch } from "../patches.ts";
import { evaluate, PolicyError, reviewRoles } from "../policy/index.ts";
import type { Evaluation, Policy } from "../policy/types.ts";
import { insertDecision } from "../proposals/decisions.ts";
import { mustBeOpen } from "../proposals/open.ts";
import { affectedResources, type PreparedPatch } from "../proposals/patch.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { ProposalRecord } from "../vocabulary/records.ts";

export { recordDecision } from "../proposals/decisions.ts";
export { preparePatch } from "../proposals/patch.ts";
export { castVote, listVotes } from "../proposals/votes.ts";

function mustBeAuthor(p: ProposalRecord, agentId: string, action: string): void {
	if (p.agent_id !== agentId) {
		throw new ToolError("permission_denied", `only its author ${p.agent_id} may ${action} proposal ${p.id}`, {
			proposal_id: p.id,
			agent_id: p.agent_id,
		});
	}
}

export async function create(tx: Tx, a: Args<"proposal.create">, env: Env, patch: PreparedPatch) {
	const { now } = env;
	await requireEnabledAgent(tx, a.agent_id, "agent_id");
	await requireTask(tx, a.task_id);
	if (a.run_id !== undefined) await requireRun(tx, a.run_id);
	const id = await newRecordId(
		"proposal",
		{ field: "proposal_id", value: a.proposal_id, label: "proposal" },
		(p) => tx.proposals.get(p),
	);
	const resources = await affectedResources(tx, a.agent_id, a.affected_resources, patch.files, now);
	const proposal = await tx.proposals.insert(
		{
			id,
			task_id: a.task_id,
			agent_id: a.agent_id,
			run_id: a.run_id ?? null,
			title: a.title,
			summary_md: a.summary_md,
			risk: a.risk,
			expected_tests: a.expected_tests ?? [],
			rollback_notes: a.rollback_notes ?? null,
		},
		{ ...patch, created_by: a.agent_id },
		now,
	);
	await tx.proposals.setResources(id, resources);
	await tx.events.append(
		{
			type: "proposal.created",
			actor_id: a.agent_id,
			run_id: proposal.run_id,
			task_id: proposal.task_id,
			payload: {
				proposal_id: id,
				title: proposal.title,
				risk: proposal.risk,
				patch_revision: 1,
				patch_sha256: patch.sha256,
				files: patch.files,
				affected_resources: resources,
			},
		},
		now,
	);
	return { proposal, proposal_resources: resources };
}

export async function attachPatch(tx: Tx, a: Args<"proposal.attach_patch">, env: Env, patch: PreparedPatch) {
	const p = await requireProposal(tx, a.proposal_id);
	checkRevision(p, a.expected_revision);
	mustBeAuthor(p, a.agent_id, "revise");
	mustBeOpen(p, "revised");
	const explicit = a.affected_resources ?? (await tx.proposals.resources(p.id));
	const resources = await affectedResources(tx, p.agent_id, explicit, patch.files, env.now);
	const number = p.patch_revision + 1;
	const revised = await tx.proposals.revise(p.id, number, { ...patch, created_by: a.agent_id }, env.now);
	await tx.proposals.setResources(p.id, resources);
	await tx.events.append(
		{
			type: "proposal.revised",
			actor_id: a.agent_id,
			run_id: p.run_id,
			task_id: p.task_id,
			payload: {
				proposal_id: p.id,
				patch_revision: number,
				patch_sha256: patch.sha256,
				previous_revision: p.patch_revision,
				files: patch.files,
				affected_resources: resources,
			},
		},
		env.now,
	);
	return { proposal: revised, proposal_resources: resources };
}

export async function get(a: Args<"proposal.get">, env: Env) {
	const found = await env.rt.store.withTransaction("read", async (tx) => {
		const proposal = await requireProposal(tx, a.proposal_id);
		return {
			proposal,
			proposal_resources: await tx.proposals.resources(proposal.id),
			revisions: await tx.proposals.revisions(proposal.id),
		};
	});
	// The patch text is read after the transaction: no file I/O inside one.
	return { ...found, patch: readPatch(env.rt.root, found.proposal.patch_sha256) ?? null };
}

export async function list(tx: Tx, a: Args<"proposal.list">) {
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const rows = await tx.proposals.list(
		{ task_id: a.task_id, status: a.status, agent_id: a.agent_id, run_id: a.run_id },
		key && { created_at: key[0] as string, id: key[1] as string },
		limit + 1,
	);
	const { rows: proposals, next } = page(rows, limit, (p) => [p.created_at, p.id]);
	return { proposals, next_cursor: next };
}

/** The policy and the parsed current patch, read before the review's transaction. */
interface ReviewInputs {
	policy: Policy;
	patch_revision: number;
	parsed: ParsedPatch | undefined;
}

export async function prepareReview(a: Args<"proposal.request_review">, env: Env): Promise<ReviewInputs> {
	const p = await env.rt.store.withTransaction("read", (tx) => requireProposal(tx, a.proposal_id));
	const policy = policyOf(env.rt);
	if (policy instanceof PolicyError)
		throw failedPrecondition(policy.message, { file: policy.file, line: policy.line });
	const text = readPatch(env.rt.root, p.patch_sha256);
	let parsed: ParsedPatch | undefined;
	try {
		parsed = text === undefined ? undefined : parsePatch(text);
	} catch {
		parsed = undefined; // validate reports it; review roles then come from the recorded files
	}
	return { policy, patch_revision: p.patch_revision, parsed };
}

export async function requestReview(
	tx: Tx,
	a: Args<"proposal.request_review">,
	env: Env,
	inputs: ReviewInputs,
) {
	const e = await gatherEvidence(tx, a.proposal_id, env.now);
	let p = e.proposal;
	checkRevision(p, a.expected_revision);
	if (p.patch_revision !== inputs.patch_revision) {
		throw conflict(`proposal ${p.id} got a new patch revision meanwhile; request review again`, {
			proposal_id: p.id,
		});
	}
	mustBeOpen(p, "sent to review");
	const input = evaluationInput(e, inputs.parsed);
	const roles = reviewRoles(inputs.policy, input);
	const agents = (await tx.agents.list()).filter((ag) => ag.enabled && ag.id !== p.agent_id);
	const reviewers = roles.flatMap((role) => {
		const matching = agents.filter((ag) => ag.role.toLowerCase() === role.toLowerCase());
		return matching.length > 0
			? matching.map((ag) => ({
					role,
					agent_id: ag.id as string | null,
					adapter: ag.adapter as string | null,
				}))
			: [{ role, agent_id: null, adapter: null }];
	});
	if (p.status === "pending") {
		p = await tx.proposals.setStatus(p.id, "in_review", null, env.now);
		await tx.events.append(
			{
				type: "proposal.review_requested",
				actor_id: actorId(env.ctx),
				run_id: p.run_id,
				task_id: p.task_id,
				payload: {
					proposal_id: p.id,
					patch_revision: p.patch_revision,
					roles,
					reviewers: reviewers.map((r) => r.agent_id).filter(Boolean),
				},
			},
			env.now,
		);
	}
	const policy: Evaluation = evaluate(inputs.policy, input);
	return {
		proposal: p,
		proposal_resources: e.resources,
		review_roles: roles,
		reviewers,
		policy,
		human_approval_required: policy.human_approval_required,
		security_review_required: policy.security_review_required,
	};
}

export async function withdraw(tx: Tx, a: Args<"proposal.withdraw">, env: Env) {
	const p = await requireProposal(tx, a.proposal_id);
	checkRevision(p, a.expected_revision);
	mustBeAuthor(p, a.agent_id, "withdraw");
	mustBeOpen(p, "withdrawn");
	const withdrawn = await tx.proposals.setStatus(p.id, "withdrawn", a.reason_md ?? null, env.now);
	await tx.events.append(
		{
			type: "proposal.withdrawn",
			actor_id: a.agent_id,
			run_id: p.run_id,
			task_id: p.task_id,
			payload: { proposal_id: p.id, reason_md: a.reason_md ?? null },
		},
		env.now,
	);
	return { proposal: withdrawn, proposal_resources: await tx.proposals.resources(p.id) };
}

export async function reject(tx: Tx, a: Args<"patch.reject">, env: Env) {
	const p = await requireProposal(tx, a.proposal_id);
	checkRevision(p, a.expected_revision);
	mustBeOpen(p, "rejected");
	const rejected = await tx.proposals.setStatus(p.id, "rejected", a.reason_md, env.now);
	await tx.events.append(
		{
			type: "proposal.rejected",
			actor_id: a.decided_by ?? actorId(env.ctx),
			run_id: p.run_id,
			task_id: p.task_id,
			payload: { proposal_id: p.id, patch_revision: p.patch_revision, reason_md: a.reason_md },
		},
		env.now,
	);
	const decision = await insertDecision(tx, env, {
		decision_id: a.decision_id,
		decision: "rejected",
		rationale_md: a.reason_md,
		decided_by: a.decided_by ?? actorId(env.ctx),
		proposal_id: p.id,
		task_id: p.task_id,
		run_id: p.run_id,
	});
	return { proposal: rejected, decision };
}

export const validate = (a: Args<"patch.validate">, env: Env) => validateProposal(env, a.proposal_id);
