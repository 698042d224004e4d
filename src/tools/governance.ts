// Human approvals and security reviews. A human decision is the operator's alone; an approval
// satisfies the human gate only. A security review scans (or records a manual verdict) and binds to
// the proposal's current patch revision. The engines: src/approvals/ and src/security/.
import { decideApproval } from "../approvals/decide.ts";
import { requestOrDecide } from "../approvals/request.ts";
import { statusOfApproval } from "../approvals/status.ts";
import type { Env } from "../engine/env.ts";
import type { Args } from "../registry/index.ts";
import { recordReview } from "../security/record.ts";
import { type ReviewInput, scanForReview } from "../security/scan.ts";
import type { Tx } from "../store/index.ts";

/** human.request_approval: a request, or with status the operator's decision on one. */
export const requestApproval = (tx: Tx, a: Args<"human.request_approval">, env: Env) =>
	requestOrDecide(tx, env, a);

/** human.decide: the operator's decision, as the CLI and the dashboard make it. */
export const decide = (tx: Tx, a: Args<"human.decide">, env: Env) => decideApproval(tx, env, a);

export const approvalStatus = (tx: Tx, a: Args<"human.approval_status">) =>
	statusOfApproval(tx, a.approval_id);

/** security.review, before its transaction: the scan. */
export const prepareReview = (a: Args<"security.review">, env: Env): Promise<ReviewInput> =>
	scanForReview(env, a);

/** security.review, in its transaction: the record. */
export const review = (tx: Tx, a: Args<"security.review">, env: Env, input: ReviewInput) =>
	recordReview(tx, env, a, input);
