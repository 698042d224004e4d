// Taking a claim (resource.claim): its scope and base hash worked out first, outside any
// transaction; then, in one write transaction, the conflict check and the insert, so of several
// agents racing for the same resource exactly one wins.
import { modesConflict, overlaps, type Scope } from "../domain/claims.ts";
import { conflict } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { named, repoGuard } from "../handlers/env.ts";
import { newRecordId, requireEnabledAgent, requireRun, requireTask } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import { contentHash } from "../repo/hash.ts";
import type { Tx } from "../store/index.ts";
import type { ClaimRecord, ResourceRecord } from "../vocabulary/records.ts";
import type { ClaimType } from "../vocabulary/statuses.ts";
import { later } from "./lifecycle.ts";
import { scopeOf } from "./scope.ts";

/** Throws `conflict` naming the holder when another agent's live claim overlaps in a conflicting mode. */
export function refuseConflicts(near: ClaimRecord[], agent: string, mode: ClaimType, scope: Scope): void {
	const holder = near.find(
		(c) => c.agent_id !== agent && modesConflict(mode, c.claim_type) && overlaps(scope, c),
	);
	if (!holder) return;
	throw conflict(
		`claim conflict: ${holder.claim_type} claim ${holder.id} of ${holder.agent_id} already holds overlapping ${holder.resource_type} ${holder.resource_id}`,
		{
			claim_id: holder.id,
			agent_id: holder.agent_id,
			claim_type: holder.claim_type,
			resource_id: holder.resource_id,
			expires_at: holder.expires_at,
		},
	);
}

export type PreparedClaim = Scope & { language: string | null; base_hash: string };

/** Outside any transaction: what the arguments point at, and its content hash unless base_hash is given. */
export async function prepareClaim(a: Args<"resource.claim">, env: Env): Promise<PreparedClaim> {
	const guard = repoGuard(env);
	const scope = await scopeOf(guard, a);
	return { ...scope, base_hash: a.base_hash ?? (await contentHash(guard, scope)) };
}

/** The claim the agent already holds for this task, resource and mode; or a new one, if nothing conflicts. */
export async function claim(tx: Tx, given: Args<"resource.claim">, env: Env, s: PreparedClaim) {
	const { now } = env;
	const a = { ...given, agent_id: named(given.agent_id, "agent_id") };
	await requireEnabledAgent(tx, a.agent_id, "agent_id");
	await requireTask(tx, a.task_id);
	if (a.run_id !== undefined) await requireRun(tx, a.run_id);

	const near = await tx.claims.liveNear(s, now);
	// The same agent, task, resource and mode: the claim it already holds.
	const held = near.find(
		(c) =>
			c.agent_id === a.agent_id &&
			c.task_id === a.task_id &&
			c.resource_id === s.resource_id &&
			c.claim_type === a.claim_type,
	);
	if (held)
		return {
			claim: held,
			resource: (await tx.resources.get(held.resource_id)) as ResourceRecord,
			duplicate: true,
		};
	refuseConflicts(near, a.agent_id, a.claim_type, s);
	const id = await newRecordId("claim", { field: "claim_id", value: a.claim_id, label: "claim" }, (c) =>
		tx.claims.get(c, now),
	);
	const resource = await tx.resources.upsert(
		{
			id: s.resource_id,
			type: s.resource_type,
			path: s.path,
			symbol: s.symbol,
			language: s.language,
			start_line: s.start_line,
			end_line: s.end_line,
			current_hash: s.base_hash,
		},
		now,
	);
	const created = await tx.claims.insert(
		{
			id,
			resource_id: s.resource_id,
			resource_type: s.resource_type,
			path: s.path,
			symbol: s.symbol,
			start_line: s.start_line,
			end_line: s.end_line,
			agent_id: a.agent_id,
			task_id: a.task_id,
			run_id: a.run_id ?? null,
			claim_type: a.claim_type,
			base_hash: s.base_hash,
			expires_at: later(now, a.ttl_seconds ?? env.rt.config.claims.default_ttl_seconds),
			renewable: a.renewable ?? true,
			resume_policy: a.resume_policy ?? "hold",
			session_id: env.ctx.principal.kind === "agent" ? env.ctx.principal.session_id : null,
			rationale: a.rationale ?? null,
		},
		now,
	);
	await tx.events.append(
		{
			type: "claim.created",
			actor_id: a.agent_id,
			run_id: created.run_id,
			task_id: created.task_id,
			payload: {
				claim_id: created.id,
				resource_id: created.resource_id,
				resource_type: created.resource_type,
				claim_type: created.claim_type,
				path: created.path,
				symbol: created.symbol,
				start_line: created.start_line,
				end_line: created.end_line,
				expires_at: created.expires_at,
			},
		},
		now,
	);
	return { claim: created, resource, duplicate: false };
}
