// proposal.request_review: the policy and the current patch read first (no transaction open), then
// the review roles the policy asks for, the agents who can fill them, and pending → in_review.
import { actorId } from "../context.ts";
import { type ParsedPatch, parsePatch } from "../domain/patch.ts";
import type { Env } from "../engine/env.ts";
import { checkRevision, requireProposal } from "../engine/records.ts";
import { conflict, failedPrecondition } from "../errors.ts";
import { policyOf } from "../gates/check.ts";
import { evaluationInput, gatherEvidence } from "../gates/evidence.ts";
import { readPatch } from "../patches.ts";
import { evaluate, PolicyError, reviewRoles } from "../policy/index.ts";
import type { Evaluation, Policy } from "../policy/types.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { mustBeOpen } from "./open.ts";

/** The policy and the parsed current patch, read before the review's transaction. */
export interface ReviewInputs {
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
