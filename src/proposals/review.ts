// proposal.request_review: the policy and the current patch read first (no transaction open), then
// the review roles the policy asks for, the agents who can fill them, and pending → in_review. The
// Chair's batch (src/runs/reviews.ts) reads the policy and each patch once for many proposals and
// sends each to review with the same sendToReview.
import { actorId } from "../context.ts";
import { type ParsedPatch, parsePatch } from "../domain/patch.ts";
import { conflict, failedPrecondition } from "../errors.ts";
import { policyOf } from "../gates/check.ts";
import { type DecisionEvidence, evaluationInput, gatherDecisionEvidence } from "../gates/evidence.ts";
import type { Env } from "../handlers/env.ts";
import { checkRevision, requireProposal } from "../handlers/records.ts";
import { readPatch } from "../patches.ts";
import { evaluate, PolicyError, reviewRoles } from "../policy/index.ts";
import type { Evaluation, Policy } from "../policy/types.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import type { StoredAgent } from "../store/agents.ts";
import type { Tx } from "../store/index.ts";
import { mustBeOpen } from "./open.ts";

/** The policy and the parsed current patch, read before the review's transaction. */
export interface ReviewInputs {
	policy: Policy;
	patch_revision: number;
	parsed: ParsedPatch | undefined;
}

/** The policy review roles come from; one that does not load fails the request. */
export function reviewPolicy(rt: Runtime): Policy {
	const policy = policyOf(rt);
	if (policy instanceof PolicyError)
		throw failedPrecondition(policy.message, { file: policy.file, line: policy.line });
	return policy;
}

/** A stored patch, parsed; undefined when it is missing or does not parse. */
export function parsedPatch(root: string, digest: string): ParsedPatch | undefined {
	const text = readPatch(root, digest);
	try {
		return text === undefined ? undefined : parsePatch(text);
	} catch {
		return undefined; // validate reports it; review roles then come from the recorded files
	}
}

export async function prepareReview(a: Args<"proposal.request_review">, env: Env): Promise<ReviewInputs> {
	const p = await env.rt.store.withTransaction("read", (tx) => requireProposal(tx, a.proposal_id));
	const policy = reviewPolicy(env.rt);
	return { policy, patch_revision: p.patch_revision, parsed: parsedPatch(env.rt.root, p.patch_sha256) };
}

export async function requestReview(
	tx: Tx,
	a: Args<"proposal.request_review">,
	env: Env,
	inputs: ReviewInputs,
) {
	const p = await requireProposal(tx, a.proposal_id);
	const agents = await tx.agents.list();
	const e = await gatherDecisionEvidence(tx, p, agents);
	const { proposal, ...named } = await sendToReview(tx, env, e, a, inputs, agents);
	return { proposal, proposal_resources: await tx.proposals.resources(proposal.id), ...named };
}

/**
 * Names the review roles and reviewers of a proposal and moves it from pending to in_review (an
 * in-review one stays as it is). The evidence (its proposal with it) and the agents are read in
 * the same transaction.
 */
export async function sendToReview(
	tx: Tx,
	env: Env,
	e: DecisionEvidence,
	a: { expected_revision?: number },
	inputs: ReviewInputs,
	agents: readonly StoredAgent[],
) {
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
	const candidates = agents.filter((ag) => ag.enabled && ag.id !== p.agent_id);
	const reviewers = roles.flatMap((role) => {
		const matching = candidates.filter((ag) => ag.role.toLowerCase() === role.toLowerCase());
		return matching.length > 0
			? matching.map((ag) => ({
					role,
					agent_id: ag.id as string | null,
					adapter: ag.adapter as string | null,
				}))
			: [{ role, agent_id: null, adapter: null }];
	});
	if (p.status === "pending") {
		p = await tx.proposals.setStatusOf(p, "in_review", null, env.now);
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
		review_roles: roles,
		reviewers,
		policy,
		human_approval_required: policy.human_approval_required,
		security_review_required: policy.security_review_required,
	};
}
