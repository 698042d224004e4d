// Proposals, votes, decisions and patches. Only decision.record is built so far; the rest of the
// family arrives with the proposals work (see the dispatcher).
import { actorId } from "../context.ts";
import type { Env } from "../dispatch.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { newRecordId, requireProposal, requireRun, requireTask } from "./common.ts";

export async function recordDecision(tx: Tx, a: Args<"decision.record">, env: Env) {
	const id = await newRecordId(
		"decision",
		{ field: "decision_id", value: a.decision_id, label: "decision" },
		(id) => tx.decisions.get(id),
	);
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	if (a.run_id !== undefined) await requireRun(tx, a.run_id);
	if (a.proposal_id !== undefined) await requireProposal(tx, a.proposal_id);

	const decision = await tx.decisions.insert(
		{
			id,
			decision: a.decision,
			rationale_md: a.rationale_md,
			decided_by: a.decided_by,
			proposal_id: a.proposal_id ?? null,
			task_id: a.task_id ?? null,
			run_id: a.run_id ?? null,
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
	return { decision };
}
