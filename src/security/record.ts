// The security review record: the scan's verdict (or a manual one) with its findings and summary,
// bound to the patch revision that was scanned, and a `security.reviewed` event.
import { type Finding, verdictOf } from "../domain/security-scan.ts";
import { conflict } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { newRecordId, requireProposal, requireTask } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { ReviewInput } from "./scan.ts";

function summaryOf(findings: Finding[]): string {
	if (findings.length === 0) return "No security findings.";
	const worst = findings[0] as Finding;
	const counts = new Map<string, number>();
	for (const f of findings) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
	const tally = [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
	return `${findings.length} finding(s) (${tally}); first: ${worst.code} at ${worst.path}:${worst.line}: ${worst.message}`;
}

/** Records the review, refusing one whose proposal got a new patch revision since the scan. */
export async function review(tx: Tx, a: Args<"security.review">, env: Env, input: ReviewInput) {
	const proposal = a.proposal_id === undefined ? undefined : await requireProposal(tx, a.proposal_id);
	if (proposal && input.patch_revision !== proposal.patch_revision) {
		throw conflict(`proposal ${proposal.id} got a new patch revision during the review; review again`, {
			proposal_id: proposal.id,
		});
	}
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	const id = await newRecordId(
		"securityReview",
		{ field: "review_id", value: a.review_id, label: "security review" },
		(x) => tx.reviews.get(x),
	);
	const manual = a.status !== undefined;
	const status = a.status ?? verdictOf(input.findings);
	const stored = await tx.reviews.insert(
		{
			id,
			proposal_id: proposal?.id ?? null,
			resource_id: a.resource_id ?? null,
			task_id: a.task_id ?? proposal?.task_id ?? null,
			reviewer_id: a.reviewer_id ?? "security-1",
			status,
			mode: manual ? "manual" : "auto",
			summary_md: a.summary_md ?? (manual ? "Security review recorded." : summaryOf(input.findings)),
			findings: input.findings,
			patch_revision: input.patch_revision,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "security.reviewed",
			actor_id: stored.reviewer_id,
			run_id: proposal?.run_id ?? null,
			task_id: stored.task_id,
			payload: {
				review_id: stored.id,
				proposal_id: stored.proposal_id,
				resource_id: stored.resource_id,
				status,
				mode: stored.mode,
				findings: input.findings.length,
				patch_revision: stored.patch_revision,
			},
		},
		env.now,
	);
	return { review: stored, findings: input.findings };
}
