// Decisions: an append-only record with its links (proposal, task, run) and its event. decision.record
// makes one; rejecting a proposal makes one too, through insertDecision.
import { actorId } from "../context.ts";
import type { Env } from "../handlers/env.ts";
import { newRecordId, requireProposal, requireRun, requireTask } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

/** A decision row and its decision.recorded event: what decision.record and patch.reject both write. */
export async function insertDecision(
	tx: Tx,
	env: Env,
	d: {
		decision_id?: string;
		decision: string;
		rationale_md: string;
		decided_by: string;
		proposal_id: string | null;
		task_id: string | null;
		run_id: string | null;
	},
) {
	const id = await newRecordId(
		"decision",
		{ field: "decision_id", value: d.decision_id, label: "decision" },
		(x) => tx.decisions.get(x),
	);
	const decision = await tx.decisions.insert(
		{
			id,
			decision: d.decision,
			rationale_md: d.rationale_md,
			decided_by: d.decided_by,
			proposal_id: d.proposal_id,
			task_id: d.task_id,
			run_id: d.run_id,
			status: "recorded",
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "decision.recorded",
			actor_id: actorId(env.ctx),
			run_id: decision.run_id,
			task_id: decision.task_id,
			payload: {
				decision_id: decision.id,
				decision: decision.decision,
				decided_by: decision.decided_by,
				proposal_id: decision.proposal_id,
			},
		},
		env.now,
	);
	return decision;
}

export async function record(tx: Tx, a: Args<"decision.record">, env: Env) {
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	if (a.run_id !== undefined) await requireRun(tx, a.run_id);
	if (a.proposal_id !== undefined) await requireProposal(tx, a.proposal_id);
	const decision = await insertDecision(tx, env, {
		decision_id: a.decision_id,
		decision: a.decision,
		rationale_md: a.rationale_md,
		decided_by: a.decided_by,
		proposal_id: a.proposal_id ?? null,
		task_id: a.task_id ?? null,
		run_id: a.run_id ?? null,
	});
	return { decision };
}
