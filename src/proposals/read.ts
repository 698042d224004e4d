// Reading proposals: one with its resources, its patch revisions and its current patch text; every
// revision with its own text (the operator's proposal.revisions); or a page of them, filtered by
// task, status, author or run.
import type { Env } from "../engine/env.ts";
import { cursorKey, page } from "../engine/paging.ts";
import { requireProposal } from "../engine/records.ts";
import { readPatch } from "../patches.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export async function getProposal(a: Args<"proposal.get">, env: Env) {
	const found = await env.rt.store.withTransaction("read", async (tx) => {
		const proposal = await requireProposal(tx, a.proposal_id);
		return {
			proposal,
			proposal_resources: await tx.proposals.resources(proposal.id),
			revisions: await tx.proposals.revisions(proposal.id),
		};
	});
	// The patch text is read after the transaction: no file I/O inside one.
	return { ...found, patch: readPatch(env.rt.root, found.proposal.patch_sha256) ?? null };
}

/** proposal.revisions: each revision with its stored patch text, read after the transaction. */
export async function proposalRevisions(a: Args<"proposal.revisions">, env: Env) {
	const revisions = await env.rt.store.withTransaction("read", async (tx) => {
		const proposal = await requireProposal(tx, a.proposal_id);
		return tx.proposals.revisions(proposal.id);
	});
	return {
		proposal_id: a.proposal_id,
		revisions: revisions.map((r) => ({ ...r, patch: readPatch(env.rt.root, r.sha256) ?? null })),
	};
}

export async function listProposals(tx: Tx, a: Args<"proposal.list">) {
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const rows = await tx.proposals.list(
		{ task_id: a.task_id, status: a.status, agent_id: a.agent_id, run_id: a.run_id },
		key && { created_at: key[0] as string, id: key[1] as string },
		limit + 1,
	);
	const { rows: proposals, next } = page(rows, limit, (p) => [p.created_at, p.id]);
	return { proposals, next_cursor: next };
}
