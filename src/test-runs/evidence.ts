// test.evidence.submit: a Tester's own report of a test it ran, bound to the proposal's current
// patch revision and its active session, with bounded command and summary sizes.

import { invalidArgument, ToolError } from "../errors.ts";
import { type Env, named } from "../handlers/env.ts";
import { requireEnabledAgent, requireProposal } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";

const MAX_EVIDENCE_COMMAND = 4 * 1024;
const MAX_EVIDENCE_SUMMARY = 16 * 1024;

export async function evidenceSubmit(tx: Tx, a: Args<"test.evidence.submit">, env: Env) {
	if (Buffer.byteLength(a.command) > MAX_EVIDENCE_COMMAND) {
		throw invalidArgument(`command must be at most ${MAX_EVIDENCE_COMMAND} bytes`, { field: "command" });
	}
	if (Buffer.byteLength(a.summary_md) > MAX_EVIDENCE_SUMMARY) {
		throw invalidArgument(`summary_md must be at most ${MAX_EVIDENCE_SUMMARY} bytes`, {
			field: "summary_md",
		});
	}
	const agent = await requireEnabledAgent(tx, named(a.agent_id, "agent_id"), "agent_id");
	if (agent.role !== "Tester") {
		throw new ToolError(
			"permission_denied",
			`only an agent with the Tester role submits test evidence; ${agent.id} is ${agent.role}`,
			{
				agent_id: agent.id,
				role: agent.role,
			},
		);
	}
	const proposal = await requireProposal(tx, a.proposal_id);
	const session = await tx.sessions.latestFor(agent.id);
	const evidence = await tx.testEvidence.insert(
		{
			id: mintId("evidence"),
			proposal_id: proposal.id,
			patch_revision: proposal.patch_revision,
			agent_id: agent.id,
			session_id: session?.status === "active" ? session.id : null,
			command: a.command.trim(),
			outcome: a.outcome,
			summary_md: a.summary_md,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "test.evidence_submitted",
			actor_id: agent.id,
			run_id: proposal.run_id,
			task_id: proposal.task_id,
			payload: {
				evidence_id: evidence.id,
				proposal_id: proposal.id,
				patch_revision: evidence.patch_revision,
				outcome: evidence.outcome,
				command: evidence.command,
			},
		},
		env.now,
	);
	return { evidence };
}
