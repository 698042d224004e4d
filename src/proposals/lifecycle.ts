// A proposal's life: created with its first patch revision, revised (attach_patch makes the next
// revision), withdrawn by its author, or rejected with a decision. Only its author revises or
// withdraws it, and only while it is open.
import { actorId } from "../context.ts";
import { ToolError } from "../errors.ts";
import { type Env, named } from "../handlers/env.ts";
import {
	checkRevision,
	newRecordId,
	requireEnabledAgent,
	requireProposal,
	requireRun,
	requireTask,
} from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { ProposalRecord } from "../vocabulary/records.ts";
import { insertDecision } from "./decisions.ts";
import { mustBeOpen } from "./open.ts";
import { affectedResources, type PreparedPatch } from "./patch.ts";

/** Only a proposal's author may revise or withdraw it. */
function mustBeAuthor(p: ProposalRecord, agentId: string, action: string): void {
	if (p.agent_id !== agentId) {
		throw new ToolError("permission_denied", `only its author ${p.agent_id} may ${action} proposal ${p.id}`, {
			proposal_id: p.id,
			agent_id: p.agent_id,
		});
	}
}

export async function create(tx: Tx, a: Args<"proposal.create">, env: Env, patch: PreparedPatch) {
	const { now } = env;
	await requireEnabledAgent(tx, a.agent_id, "agent_id");
	await requireTask(tx, a.task_id);
	if (a.run_id !== undefined) await requireRun(tx, a.run_id);
	const id = await newRecordId(
		"proposal",
		{ field: "proposal_id", value: a.proposal_id, label: "proposal" },
		(p) => tx.proposals.get(p),
	);
	const open = await tx.proposals.openCount(a.task_id);
	const maxOpen = env.rt.config.limits.max_open_proposals_per_task;
	if (open >= maxOpen) {
		throw new ToolError(
			"resource_exhausted",
			`task ${a.task_id} already has ${open} open proposals, the most limits.max_open_proposals_per_task allows (${maxOpen}): withdraw one, or revise it with proposal.attach_patch`,
			{ field: "task_id", limit: "limits.max_open_proposals_per_task", max: maxOpen, open },
		);
	}
	const resources = await affectedResources(tx, a.agent_id, a.affected_resources, patch.files, now);
	const proposal = await tx.proposals.insert(
		{
			id,
			task_id: a.task_id,
			agent_id: a.agent_id,
			run_id: a.run_id ?? null,
			title: a.title,
			summary_md: a.summary_md,
			risk: a.risk,
			expected_tests: a.expected_tests ?? [],
			rollback_notes: a.rollback_notes ?? null,
		},
		{ ...patch, created_by: a.agent_id },
		now,
	);
	await tx.proposals.setResources(id, resources);
	await tx.events.append(
		{
			type: "proposal.created",
			actor_id: a.agent_id,
			run_id: proposal.run_id,
			task_id: proposal.task_id,
			payload: {
				proposal_id: id,
				title: proposal.title,
				risk: proposal.risk,
				patch_revision: 1,
				patch_sha256: patch.sha256,
				files: patch.files,
				affected_resources: resources,
			},
		},
		now,
	);
	return { proposal, proposal_resources: resources };
}

export async function attachPatch(
	tx: Tx,
	given: Args<"proposal.attach_patch">,
	env: Env,
	patch: PreparedPatch,
) {
	const a = { ...given, agent_id: named(given.agent_id, "agent_id") };
	const p = await requireProposal(tx, a.proposal_id);
	checkRevision(p, a.expected_revision);
	mustBeAuthor(p, a.agent_id, "revise");
	mustBeOpen(p, "revised");
	const explicit = a.affected_resources ?? (await tx.proposals.resources(p.id));
	const resources = await affectedResources(tx, p.agent_id, explicit, patch.files, env.now);
	const number = p.patch_revision + 1;
	const maxRevisions = env.rt.config.limits.max_revisions_per_proposal;
	if (number > maxRevisions) {
		throw new ToolError(
			"resource_exhausted",
			`proposal ${p.id} has ${p.patch_revision} revisions, the most limits.max_revisions_per_proposal allows (${maxRevisions}): open a new proposal`,
			{ field: "proposal_id", limit: "limits.max_revisions_per_proposal", max: maxRevisions },
		);
	}
	const revised = await tx.proposals.revise(p.id, number, { ...patch, created_by: a.agent_id }, env.now);
	await tx.proposals.setResources(p.id, resources);
	await tx.events.append(
		{
			type: "proposal.revised",
			actor_id: a.agent_id,
			run_id: p.run_id,
			task_id: p.task_id,
			payload: {
				proposal_id: p.id,
				patch_revision: number,
				patch_sha256: patch.sha256,
				previous_revision: p.patch_revision,
				files: patch.files,
				affected_resources: resources,
			},
		},
		env.now,
	);
	return { proposal: revised, proposal_resources: resources };
}

export async function withdraw(tx: Tx, a: Args<"proposal.withdraw">, env: Env) {
	const p = await requireProposal(tx, a.proposal_id);
	checkRevision(p, a.expected_revision);
	mustBeAuthor(p, a.agent_id, "withdraw");
	mustBeOpen(p, "withdrawn");
	const withdrawn = await tx.proposals.setStatus(p.id, "withdrawn", a.reason_md ?? null, env.now);
	await tx.events.append(
		{
			type: "proposal.withdrawn",
			actor_id: a.agent_id,
			run_id: p.run_id,
			task_id: p.task_id,
			payload: { proposal_id: p.id, reason_md: a.reason_md ?? null },
		},
		env.now,
	);
	return { proposal: withdrawn, proposal_resources: await tx.proposals.resources(p.id) };
}

export async function reject(tx: Tx, a: Args<"patch.reject">, env: Env) {
	const p = await requireProposal(tx, a.proposal_id);
	checkRevision(p, a.expected_revision);
	mustBeOpen(p, "rejected");
	const rejected = await tx.proposals.setStatus(p.id, "rejected", a.reason_md, env.now);
	await tx.events.append(
		{
			type: "proposal.rejected",
			actor_id: a.decided_by ?? actorId(env.ctx),
			run_id: p.run_id,
			task_id: p.task_id,
			payload: { proposal_id: p.id, patch_revision: p.patch_revision, reason_md: a.reason_md },
		},
		env.now,
	);
	const decision = await insertDecision(tx, env, {
		decision_id: a.decision_id,
		decision: "rejected",
		rationale_md: a.reason_md,
		decided_by: a.decided_by ?? actorId(env.ctx),
		proposal_id: p.id,
		task_id: p.task_id,
		run_id: p.run_id,
	});
	return { proposal: rejected, decision };
}
