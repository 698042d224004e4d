// An approval request's record, and whether its decision still holds: it binds to the patch revision
// it was made on, so it counts only while that is the proposal's current one.

import { notFound } from "../errors.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { ApprovalRecord } from "../vocabulary/records.ts";

export async function requireApproval(tx: Tx, id: string): Promise<ApprovalRecord> {
	const approval = await tx.approvals.get(id);
	if (!approval) throw notFound(`approval ${id} not found`, { approval_id: id });
	return approval;
}

/** human.approval_status: the request, and whether it is about the proposal's current patch revision. */
export async function approvalStatus(tx: Tx, a: Args<"human.approval_status">) {
	const approval = await requireApproval(tx, a.approval_id);
	const proposal = approval.proposal_id === null ? undefined : await tx.proposals.get(approval.proposal_id);
	return { approval, current: proposal !== undefined && approval.patch_revision === proposal.patch_revision };
}
