// chair.request_reviews: the Chair's review step for a whole run at once. Before the transaction it
// reads the policy once and each stored patch once (proposals that share a patch share the read);
// then one transaction sends every pending proposal to review, each in a savepoint, so one that
// fails (a poison record) is returned as a failure and leaves no rows while the others commit.

import type { ParsedPatch } from "../domain/patch.ts";
import { asToolError, type ErrorCode } from "../errors.ts";
import { gatherDecisionEvidence, noVerdictsYet } from "../gates/evidence.ts";
import type { Env } from "../handlers/env.ts";
import { requireProposal } from "../handlers/records.ts";
import { parsedPatch, type ReviewInputs, reviewPolicy, sendToReview } from "../proposals/review.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { TransactionLost } from "../store/savepoints.ts";

export interface ReviewFailure {
	proposal_id: string;
	code: ErrorCode;
	message: string;
}

/** Each pending proposal of the run with what its review needs, or why it cannot have one. */
export type PendingReviews = { proposal_id: string; inputs: ReviewInputs | ReviewFailure }[];

const failure = (proposal_id: string, err: unknown): ReviewFailure => {
	const e = asToolError(err);
	return { proposal_id, code: e.code, message: e.message };
};

export async function prepareReviews(a: Args<"chair.request_reviews">, env: Env): Promise<PendingReviews> {
	const { rt } = env;
	const pending = await rt.store.withTransaction("read", (tx) =>
		tx.proposals.ofRun(a.run_id, ["pending"], true),
	);
	if (pending.length === 0) return [];
	let policy: ReviewInputs["policy"];
	try {
		policy = reviewPolicy(rt);
	} catch (err) {
		// As each proposal.request_review would: every one fails with the policy's error.
		return pending.map((p) => ({ proposal_id: p.id, inputs: failure(p.id, err) }));
	}
	const patches = new Map<string, ParsedPatch | undefined>();
	return pending.map((p) => {
		if (!patches.has(p.patch_sha256)) patches.set(p.patch_sha256, parsedPatch(rt.root, p.patch_sha256));
		const parsed = patches.get(p.patch_sha256);
		return { proposal_id: p.id, inputs: { policy, patch_revision: p.patch_revision, parsed } };
	});
}

export async function requestReviews(
	tx: Tx,
	a: Args<"chair.request_reviews">,
	env: Env,
	pending: PendingReviews,
) {
	const requested: string[] = [];
	const failed: ReviewFailure[] = [];
	if (pending.length === 0) return { requested, failed };
	const agents = await tx.agents.list();
	// Read again now, in this transaction: the ones still pending in one read, any other one alone.
	const current = new Map((await tx.proposals.ofRun(a.run_id, ["pending"], true)).map((p) => [p.id, p]));
	// Most pending proposals have no votes, test runs or decisions yet: one read finds those that do.
	const judged = await tx.proposals.withVerdicts(pending.map((r) => r.proposal_id));
	for (const { proposal_id, inputs } of pending) {
		if (!("policy" in inputs)) {
			failed.push(inputs);
			continue;
		}
		try {
			await tx.savepoints.atomic(async () => {
				const p = current.get(proposal_id) ?? (await requireProposal(tx, proposal_id));
				const e = judged.has(p.id) ? await gatherDecisionEvidence(tx, p, agents) : noVerdictsYet(p);
				return sendToReview(tx, env, e, {}, inputs, agents);
			});
			requested.push(proposal_id);
		} catch (err) {
			if (err instanceof TransactionLost) throw err;
			failed.push(failure(proposal_id, err));
		}
	}
	return { requested, failed };
}
