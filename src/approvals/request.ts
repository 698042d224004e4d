// human.request_approval: a new request, bound to the proposal's current patch revision; or, with
// status (the seed's way), the operator's decision on an existing one.
import { actorId } from "../context.ts";
import { invalidArgument, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { newRecordId, requireProposal, requireTask } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { type Decision, decide } from "./decide.ts";

const DECISION_FIELDS = ["status", "decision_md", "decided_by", "override_policy"] as const;

export async function requestApproval(tx: Tx, a: Args<"human.request_approval">, env: Env) {
	if (a.status !== undefined) return decideRequest(tx, env, a);
	const stray = DECISION_FIELDS.find((f) => a[f] !== undefined);
	if (stray)
		throw invalidArgument(`${stray} belongs to a decision: give approval_id and status`, { field: stray });
	const proposal = a.proposal_id === undefined ? undefined : await requireProposal(tx, a.proposal_id);
	const taskId = a.task_id ?? proposal?.task_id ?? null;
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	const id = await newRecordId(
		"approval",
		{ field: "approval_id", value: a.approval_id, label: "approval" },
		(x) => tx.approvals.get(x),
	);
	const approval = await tx.approvals.request(
		{
			id,
			proposal_id: proposal?.id ?? null,
			task_id: taskId,
			subject: a.subject,
			reason_md: a.reason_md,
			requested_by: a.requested_by ?? actorId(env.ctx),
			patch_revision: proposal?.patch_revision ?? null,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "approval.requested",
			actor_id: approval.requested_by,
			run_id: proposal?.run_id ?? null,
			task_id: taskId,
			payload: {
				approval_id: id,
				proposal_id: approval.proposal_id,
				subject: approval.subject,
				patch_revision: approval.patch_revision,
			},
		},
		env.now,
	);
	return { approval };
}

/** A decision on an existing request through human.request_approval (the seed's way): the operator's alone. */
async function decideRequest(tx: Tx, env: Env, a: Args<"human.request_approval">) {
	if (env.ctx.principal.kind !== "operator") {
		throw new ToolError("permission_denied", "only the operator decides human approvals");
	}
	if (a.approval_id === undefined) {
		throw invalidArgument("a decision needs the approval_id of a request (create one without status first)", {
			field: "approval_id",
		});
	}
	return decide(tx, { ...a, approval_id: a.approval_id, status: a.status as Decision }, env);
}
