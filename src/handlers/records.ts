// Lookups and checks the engines share: existence with a did-you-mean, revisions, new ids, and the
// claims and scopes a proposal is judged by.

import type { Scope } from "../domain/claims.ts";
import { didYouMean, suggestion } from "../domain/text.ts";
import { conflict, failedPrecondition, notFound, ToolError } from "../errors.ts";
import type { StoredAgent } from "../store/agents.ts";
import type { Tx } from "../store/index.ts";
import { type IdKind, mintId } from "../vocabulary/ids.ts";
import type {
	ClaimRecord,
	ProposalRecord,
	ResourceRecord,
	RunRecord,
	TaskRecord,
} from "../vocabulary/records.ts";

export async function requireTask(tx: Tx, id: string): Promise<TaskRecord> {
	const task = await tx.tasks.get(id);
	if (!task) throw notFound(`task ${id} not found`, { task_id: id });
	return task;
}

export async function requireRun(tx: Tx, id: string): Promise<RunRecord> {
	const run = await tx.runs.get(id);
	if (!run) throw notFound(`run ${id} not found`, { run_id: id });
	return run;
}

/** An agent that exists and is enabled; unknown ids get the nearest agent id as a hint. */
export async function requireEnabledAgent(tx: Tx, id: string, field: string): Promise<StoredAgent> {
	const agent = await tx.agents.get(id);
	if (!agent) {
		const near = didYouMean(id, await tx.agents.ids());
		throw notFound(`agent ${id} not found${suggestion(near)}`, {
			field,
			agent_id: id,
			...(near && { did_you_mean: near }),
		});
	}
	if (!agent.enabled) throw failedPrecondition(`agent ${id} is disabled`, { field, agent_id: id });
	return agent;
}

/** `expected_revision`, when given, must equal the record's current revision. */
export function checkRevision(record: { id: string; revision: number }, expected: number | undefined): void {
	if (expected !== undefined && expected !== record.revision) {
		throw conflict(`${record.id} is at revision ${record.revision}, not ${expected}`, {
			id: record.id,
			expected_revision: expected,
			actual_revision: record.revision,
		});
	}
}

export async function requireProposal(tx: Tx, id: string): Promise<ProposalRecord> {
	const proposal = await tx.proposals.get(id);
	if (!proposal) throw notFound(`proposal ${id} not found`, { proposal_id: id });
	return proposal;
}

/** A stored resource as a scope (with its symbol lines). */
export const scopeOfResource = (r: ResourceRecord): Scope => ({
	resource_id: r.id,
	resource_type: r.type,
	path: r.path,
	symbol: r.symbol,
	start_line: r.start_line,
	end_line: r.end_line,
});

/** The agent's live write and exclusive claims: the ones that may cover a proposal's resources. */
export async function writeClaimsOf(tx: Tx, agentId: string, now: string): Promise<ClaimRecord[]> {
	return (await tx.claims.activeOf(agentId, now)).filter(
		(c) => c.claim_type === "write" || c.claim_type === "exclusive",
	);
}

/**
 * The id for a new record: the caller's choice when given and free (taken is `already_exists`,
 * never an overwrite), otherwise a freshly minted one.
 */
export async function newRecordId(
	kind: IdKind,
	chosen: { field: string; value: string | undefined; label: string },
	find: (id: string) => Promise<unknown>,
): Promise<string> {
	if (chosen.value === undefined) return mintId(kind);
	if (await find(chosen.value)) {
		throw new ToolError("already_exists", `${chosen.label} ${chosen.value} already exists`, {
			[chosen.field]: chosen.value,
		});
	}
	return chosen.value;
}
