import { type } from "arktype";
import { callerId, nonBlank } from "../domain/scalars.ts";
import { REVIEW_STATUSES } from "../domain/statuses.ts";
import { approvalRecord, findingRecord, securityReviewRecord } from "./records.ts";
import { tool } from "./types.ts";

export const governanceTools = [
	tool({
		name: "human.request_approval",
		family: "governance",
		title: "Request (or decide) a human approval",
		description:
			"Without `approval_id`: ask the operator to approve a proposal (or a task); the request is `requested` and bound to the proposal's current patch revision. With `approval_id` and `status` approved or rejected: record the operator's decision on that request (operator only; agents cannot decide). The latest decision on the current revision counts, so a later rejection revokes an earlier approval. An approval satisfies the human gate only, never the vote quorum; with `override_policy` it may override a security veto.",
		args: type({
			subject: nonBlank,
			reason_md: nonBlank,
			"approval_id?": callerId,
			"proposal_id?": callerId,
			"task_id?": callerId,
			"requested_by?": callerId,
			"status?": "'approved' | 'rejected'",
			"decision_md?": nonBlank,
			"decided_by?": callerId,
			"override_policy?": "boolean",
		}),
		argDocs: {
			subject: "What is to be approved (on a decision: the request's subject).",
			reason_md: "Why it needs a human (on a decision: the request's reason).",
			approval_id: "The request a decision is about.",
			proposal_id: "The proposal to approve.",
			task_id: "The task (default: the proposal's).",
			requested_by: "Who asks (default: the caller).",
			status: "The decision: approved or rejected (with approval_id).",
			decision_md: "The operator's reasoning.",
			decided_by: "Who decided (default: operator).",
			override_policy: "With an approval: also override a security veto.",
		},
		output: type({ approval: approvalRecord }),
		mutates: true,
	}),
	tool({
		name: "human.approval_status",
		family: "governance",
		title: "Approval status",
		description:
			"Fetch one human approval and its status, and whether it counts for its proposal now (it was decided on the proposal's current patch revision).",
		args: type({ approval_id: callerId }),
		output: type({ approval: approvalRecord, current: "boolean" }),
		mutates: false,
	}),
	tool({
		name: "security.review",
		family: "governance",
		title: "Security review",
		description:
			"Without `status`: scan a proposal's added lines (or, with only `resource_id`, that resource's current content) for dangerous commands and secrets; each finding has path, line, code and severity, and a critical finding vetoes (otherwise findings mean needs_changes, none means approved). With `status` (approved, needs_changes or veto): record a manual review. Reviews of a proposal bind to its current patch revision.",
		args: type({
			"review_id?": callerId,
			"proposal_id?": callerId,
			"resource_id?": nonBlank,
			"task_id?": callerId,
			"reviewer_id?": callerId,
			"status?": type.enumerated(...REVIEW_STATUSES),
			"summary_md?": nonBlank,
		}),
		argDocs: {
			review_id: "Choose the id yourself; by default one is minted (SR-…). An id in use is `already_exists`.",
			proposal_id: "The proposal to review.",
			resource_id: "A resource to review (file:, directory: or symbol: id) when there is no proposal.",
			reviewer_id: "Who reviews (default security-1).",
			status: "A manual verdict; leave it out to scan.",
			summary_md: "Your summary (default: one written from the findings).",
		},
		output: type({ review: securityReviewRecord, findings: findingRecord.array() }),
		mutates: true,
	}),
] as const;
