// Votes on an open proposal: one per agent, recorded against the patch revision it saw (a new vote
// replaces the agent's earlier one), and listed a page at a time.
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import { requireEnabledAgent, requireProposal } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";
import { mustBeOpen } from "./open.ts";

export async function cast(tx: Tx, a: Args<"vote.cast">, env: Env) {
	const p = await requireProposal(tx, a.proposal_id);
	await requireEnabledAgent(tx, a.agent_id, "agent_id");
	mustBeOpen(p, "voted on");
	const previous = await tx.votes.byAgent(p.id, a.agent_id);
	const vote = await tx.votes.cast(
		{
			id: previous?.id ?? mintId("vote"),
			proposal_id: p.id,
			agent_id: a.agent_id,
			vote: a.vote,
			confidence: a.confidence ?? null,
			reason_md: a.reason_md,
			patch_revision: p.patch_revision,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "vote.cast",
			actor_id: a.agent_id,
			run_id: p.run_id,
			task_id: p.task_id,
			payload: {
				vote_id: vote.id,
				proposal_id: p.id,
				agent_id: a.agent_id,
				vote: a.vote,
				patch_revision: p.patch_revision,
				// One vote per agent: say what this one replaced.
				replaced: previous ? { vote: previous.vote, patch_revision: previous.patch_revision } : null,
			},
		},
		env.now,
	);
	return { vote, replaced: previous !== undefined };
}

export async function list(tx: Tx, a: Args<"vote.list">) {
	const p = await requireProposal(tx, a.proposal_id);
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const rows = await tx.votes.page(
		p.id,
		key && { created_at: key[0] as string, id: key[1] as string },
		limit + 1,
	);
	const { rows: votes, next } = page(rows, limit, (v) => [v.created_at, v.id]);
	return { votes, next_cursor: next, patch_revision: p.patch_revision };
}
