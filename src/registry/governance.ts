import { callerId, nonBlank } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { approvalRecord, findingRecord, securityReviewRecord } from "../vocabulary/records.ts";
import { REVIEW_STATUSES } from "../vocabulary/statuses.ts";
import { tool } from "./types.ts";

export const governanceTools = [
	tool({
		name: "human.request_approval",
		family: "governance",
		access: {
			Implementer: {
				bound: "task",
				only: { status: [], decided_by: [], decision_md: [], override_policy: [] },
			},
		},
		actors: ["requested_by"],
		ownId: "approval_id",
		title: "Request (or decide) a human approval",
		description:
			"Ask the operator to approve a proposal or task; the operator decides with approval_id and status. Next: human.approval_status.",
		details:
			"Without `status`: ask the operator to approve a proposal (or a task); the request is `requested` and bound to the proposal's current patch revision (`approval_id`, if given, is its id). With `approval_id` and `status` approved or rejected: record the operator's decision on that request (operator only; agents cannot decide). The latest decision on the current revision counts, so a later rejection revokes an earlier approval. An approval satisfies the human gate only, never the vote quorum; with `override_policy` it may override a security veto.",
		args: () =>
			type({
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
			subject: "What to approve.",
			reason_md: "Why a human must.",
			approval_id: "With status: request decided; else own id.",
			proposal_id: "Proposal to approve.",
			task_id: "Default the proposal's.",
			requested_by: "Default the caller.",
			status: "The operator's decision.",
			decision_md: "The operator's reasoning.",
			decided_by: "Default operator.",
			override_policy: "Also override a security veto.",
			idempotency_key: "Asks once on retry.",
		},
		output: () => type({ approval: approvalRecord() }),
		mutates: true,
	}),
	tool({
		name: "human.approval_status",
		family: "governance",
		access: "every",
		title: "Approval status",
		description: "Whether an approval is decided and counts for the current diff. Next: patch.validate.",
		details:
			"Fetch one human approval and its status, and whether it counts for its proposal now (it was decided on the proposal's current patch revision).",
		args: () => type({ approval_id: callerId }),
		argDocs: {
			approval_id: "Approval to check.",
		},
		output: () => type({ approval: approvalRecord(), current: "boolean" }),
		mutates: false,
	}),
	tool({
		name: "security.review",
		family: "governance",
		access: { Security: { bound: "proposal" } },
		actors: ["reviewer_id"],
		ownId: "review_id",
		reads: "claimed",
		title: "Security review",
		description:
			"Scan a proposal or resource for secrets and risky commands, or record a verdict (status). Next: patch.validate.",
		details:
			"Without `status`: scan a proposal's added lines (or, with only `resource_id`, that resource's current content) for dangerous commands and secrets; each finding has path, line, code and severity, and a critical finding vetoes (otherwise findings mean needs_changes, none means approved). With `status` (approved, needs_changes or veto): record a manual review. Reviews of a proposal bind to its current patch revision.",
		args: () =>
			type({
				"review_id?": callerId,
				"proposal_id?": callerId,
				"resource_id?": nonBlank,
				"task_id?": callerId,
				"reviewer_id?": callerId,
				"status?": type.enumerated(...REVIEW_STATUSES),
				"summary_md?": nonBlank,
			}),
		argDocs: {
			review_id: "Own id (default new SR-).",
			proposal_id: "Proposal to review.",
			resource_id: "Resource to scan instead.",
			task_id: "Default the proposal's.",
			reviewer_id: "Default security-1.",
			status: "Manual verdict; omit to scan.",
			summary_md: "Default from findings.",
			idempotency_key: "Reviews once on retry.",
		},
		output: () => type({ review: securityReviewRecord(), findings: findingRecord().array() }),
		mutates: true,
	}),
	tool({
		name: "human.decide",
		family: "governance",
		visibility: "operator",
		title: "Decide a human approval",
		description: "Approve or reject a requested human approval.",
		details:
			"The operator's decision on a human approval request: `approved` or `rejected`, with the reasoning. It binds to the revision the request was made on; the latest decision on the current revision counts, so a later rejection revokes an earlier approval. With `override_policy` an approval also overrides a security veto. An `approval.decided` event.",
		args: () =>
			type({
				approval_id: callerId,
				status: "'approved' | 'rejected'",
				"decision_md?": nonBlank,
				"override_policy?": "boolean",
			}),
		argDocs: {
			approval_id: "The request.",
			status: "approved or rejected.",
			decision_md: "The reasoning.",
			override_policy: "Also override a security veto.",
			idempotency_key: "Decides once on retry.",
			expected_revision: "Approval revision you read.",
		},
		output: () => type({ approval: approvalRecord() }),
		mutates: true,
		updates: true,
	}),
] as const;
