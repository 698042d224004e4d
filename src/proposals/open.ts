// Which proposals are still open to change: pending or in review.
import { failedPrecondition } from "../errors.ts";
import type { ProposalRecord } from "../vocabulary/records.ts";
import type { ProposalStatus } from "../vocabulary/statuses.ts";

export const OPEN: readonly ProposalStatus[] = ["pending", "in_review"];

export function mustBeOpen(p: ProposalRecord, action: string): void {
	if (!OPEN.includes(p.status)) {
		throw failedPrecondition(
			`proposal ${p.id} is ${p.status}; only a pending or in-review proposal can be ${action}`,
			{
				proposal_id: p.id,
				status: p.status,
			},
		);
	}
}
