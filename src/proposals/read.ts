// Reading proposals: one with its resources, its patch revisions and its current patch text (to an
// agent, only the files its read scope covers); every
// revision with its own text (the operator's proposal.revisions); or a page of them, filtered by
// task, status, author or run.
import { fileSections, type ParsedPatch, parsePatch } from "../domain/patch.ts";
import { type ReadScope, readRefusal } from "../domain/read-scope.ts";
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import { requireProposal } from "../handlers/records.ts";
import { readPatch } from "../patches.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export async function get(a: Args<"proposal.get">, env: Env) {
	const found = await env.rt.store.withTransaction("read", async (tx) => {
		const proposal = await requireProposal(tx, a.proposal_id);
		return {
			proposal,
			proposal_resources: await tx.proposals.resources(proposal.id),
			revisions: await tx.proposals.revisions(proposal.id),
		};
	});
	// The patch text is read after the transaction: no file I/O inside one.
	const text = readPatch(env.rt.root, found.proposal.patch_sha256) ?? null;
	const { patch, withheld } =
		env.reads && text !== null ? readableHunks(text, env.reads) : { patch: text, withheld: [] };
	return { ...found, patch, withheld };
}

/**
 * What of a patch an agent may see: the files its read scope covers, whole; the others are left
 * out and named, so it knows the patch is larger than what it sees. A patch that does not parse
 * shows nothing to an agent.
 */
export function readableHunks(text: string, reads: ReadScope): { patch: string; withheld: string[] } {
	let parsed: ParsedPatch;
	try {
		parsed = parsePatch(text);
	} catch {
		return { patch: "", withheld: ["(the whole patch: it does not parse)"] };
	}
	const sections = fileSections(text, parsed);
	const shown: string[] = [];
	const withheld: string[] = [];
	parsed.files.forEach((f, i) => {
		const paths = [f.old_path, f.new_path].filter((p): p is string => p !== null);
		if (paths.every((p) => readRefusal({ ...reads, claimed: undefined }, p) === undefined))
			shown.push(sections[i] ?? "");
		else withheld.push(...new Set(paths));
	});
	return { patch: shown.join(""), withheld };
}

/** proposal.revisions: each revision with its stored patch text, read after the transaction. */
export async function revisions(a: Args<"proposal.revisions">, env: Env) {
	const revisions = await env.rt.store.withTransaction("read", async (tx) => {
		const proposal = await requireProposal(tx, a.proposal_id);
		return tx.proposals.revisions(proposal.id);
	});
	return {
		proposal_id: a.proposal_id,
		revisions: revisions.map((r) => ({ ...r, patch: readPatch(env.rt.root, r.sha256) ?? null })),
	};
}

export async function list(tx: Tx, a: Args<"proposal.list">) {
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
