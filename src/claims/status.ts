// resource.claim_status: claims listed by resource, agent, task and status, a page at a time; with
// reconcile, first the live write/exclusive claims whose resource changed since it was claimed are
// suspended (hashed outside any transaction, suspended inside it only if nothing moved them meanwhile).

import { ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import type { Args } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import { contentHash } from "../repo/hash.ts";
import type { Tx } from "../store/index.ts";
import { nowIso } from "../vocabulary/ids.ts";
import { claimEvent } from "./lifecycle.ts";

/** A claim whose resource no longer has the content it was claimed on. */
export interface Stale {
	claim_id: string;
	resource_id: string;
	base_hash: string;
	current_hash: string;
}

/** With reconcile: the live write/exclusive claims whose resource changed (hashed outside any transaction). */
export async function prepareStatus(a: Args<"resource.claim_status">, env: Env): Promise<Stale[]> {
	if (!a.reconcile) return [];
	const candidates = await env.rt.store.withTransaction("read", (tx) =>
		tx.claims.reconcilable(
			{ resource_id: a.resource_id, agent_id: a.agent_id, task_id: a.task_id },
			nowIso(),
		),
	);
	const guard = new RepoGuard(env.rt.root);
	const hashes = new Map<string, Promise<string>>();
	const stale: Stale[] = [];
	for (const c of candidates) {
		if (env.ctx.signal.aborted) throw new ToolError("cancelled", "resource.claim_status was cancelled");
		let current = hashes.get(c.resource_id);
		if (!current) {
			current = contentHash(guard, c);
			hashes.set(c.resource_id, current);
		}
		const hash = await current;
		if (hash !== "" && hash !== c.base_hash) {
			stale.push({ claim_id: c.id, resource_id: c.resource_id, base_hash: c.base_hash, current_hash: hash });
		}
	}
	return stale;
}

/** Suspends the stale claims nothing moved meanwhile, then lists a page of claims. */
export async function claimStatus(tx: Tx, a: Args<"resource.claim_status">, env: Env, stale: Stale[]) {
	const { now } = env;
	const suspended: string[] = [];
	for (const s of stale) {
		const c = await tx.claims.get(s.claim_id, now);
		// Only if nothing moved it meanwhile (released, renewed onto a new base, …).
		if (c?.status !== "active" || c.base_hash !== s.base_hash) continue;
		const reason = `stale base hash: claimed ${s.base_hash} current ${s.current_hash}`;
		await tx.claims.setStatus(c.id, "suspended", reason, now);
		await tx.resources.setHash(s.resource_id, s.current_hash, now);
		await claimEvent(
			tx,
			"claim.suspended",
			"system",
			c,
			{ reason, base_hash: s.base_hash, current_hash: s.current_hash },
			now,
		);
		suspended.push(c.id);
	}
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const rows = await tx.claims.list(
		{ resource_id: a.resource_id, agent_id: a.agent_id, task_id: a.task_id, status: a.status },
		key && { created_at: key[0] as string, id: key[1] as string },
		limit + 1,
		now,
	);
	const { rows: claims, next } = page(rows, limit, (c) => [c.created_at, c.id]);
	return { claims, next_cursor: next, suspended };
}
