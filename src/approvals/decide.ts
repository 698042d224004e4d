// The operator's decision on a human approval request: approved or rejected, bound to the request's
// patch revision, an `approval.decided` event. human.decide and human.request_approval share it.

import { invalidArgument } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { checkRevision } from "../handlers/records.ts";
import type { Tx } from "../store/index.ts";
import { requireApproval } from "./status.ts";

export type Decision = "approved" | "rejected";

export async function decide(
	tx: Tx,
	a: {
		approval_id: string;
		status: Decision;
		proposal_id?: string;
		decision_md?: string;
		decided_by?: string;
		override_policy?: boolean;
		expected_revision?: number;
	},
	env: Env,
) {
	const request = await requireApproval(tx, a.approval_id);
	checkRevision(request, a.expected_revision);
	if (a.proposal_id !== undefined && a.proposal_id !== request.proposal_id) {
		throw invalidArgument(
			`approval ${request.id} is about ${request.proposal_id ?? "no proposal"}, not ${a.proposal_id}`,
			{
				field: "proposal_id",
			},
		);
	}
	if (a.override_policy && a.status !== "approved") {
		throw invalidArgument("override_policy goes with an approval, not a rejection", {
			field: "override_policy",
		});
	}
	const approval = await tx.approvals.decide(
		request.id,
		{
			status: a.status,
			decided_by: a.decided_by ?? "operator",
			decision_md: a.decision_md ?? null,
			override_policy: a.override_policy ?? false,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "approval.decided",
			actor_id: approval.decided_by ?? "operator",
			task_id: approval.task_id,
			payload: {
				approval_id: approval.id,
				proposal_id: approval.proposal_id,
				status: approval.status,
				override_policy: approval.override_policy,
				patch_revision: approval.patch_revision,
				previous_status: request.status,
			},
		},
		env.now,
	);
	return { approval };
}
