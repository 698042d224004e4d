import { type } from "arktype";
import { callerId, nonBlank } from "../domain/scalars.ts";
import { pendingRecord } from "./records.ts";
import { tool } from "./types.ts";

export const governanceTools = [
	tool({
		name: "human.request_approval",
		family: "governance",
		title: "Request human approval",
		description: "Ask the operator to approve or reject a proposal or task.",
		args: type({
			subject: nonBlank,
			reason_md: nonBlank,
			"approval_id?": callerId,
			"proposal_id?": callerId,
			"task_id?": callerId,
			"requested_by?": callerId,
			"status?": nonBlank,
			"decision_md?": nonBlank,
			"decided_by?": callerId,
			"override_policy?": "boolean",
		}),
		output: type({ approval: pendingRecord }),
		mutates: true,
	}),
	tool({
		name: "human.approval_status",
		family: "governance",
		title: "Approval status",
		description: "Fetch one human approval and its status.",
		args: type({ approval_id: callerId }),
		output: type({ approval: pendingRecord }),
		mutates: false,
	}),
	tool({
		name: "security.review",
		family: "governance",
		title: "Security review",
		description: "Scan a proposal's patch for security findings, or record a manual security review.",
		args: type({
			"review_id?": callerId,
			"proposal_id?": callerId,
			"resource_id?": nonBlank,
			"task_id?": callerId,
			"reviewer_id?": callerId,
			"status?": nonBlank,
			"summary_md?": nonBlank,
		}),
		output: type({ review: pendingRecord, findings: pendingRecord.array() }),
		mutates: true,
	}),
] as const;
