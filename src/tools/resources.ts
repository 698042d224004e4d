// resource.claim, .claim_status, .get, .release, .search, .renew, and the operator's revoke and
// expiry sweep. A claim is a lease on a resource; the conflict check and the insert happen in one
// write transaction, so of several agents racing for the same resource exactly one wins.
import { claimEvent, expireDue, later, mustMove, releaseClaim, requireClaim } from "../claims/lifecycle.ts";
import { refuseConflicts } from "../claims/take.ts";
import { clip, echo } from "../domain/did-you-mean.ts";
import type { Env } from "../engine/env.ts";
import { repoGuard } from "../engine/env.ts";
import { cursorKey, page } from "../engine/paging.ts";
import { checkRevision } from "../engine/records.ts";
import { failedPrecondition, invalidArgument, notFound, ToolError } from "../errors.ts";
import type { Args } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import { contentHash } from "../repo/hash.ts";
import type { Tx } from "../store/index.ts";
import { nowIso } from "../vocabulary/ids.ts";

export { claim, prepareClaim } from "../claims/take.ts";

interface Stale {
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

export async function get(tx: Tx, a: Args<"resource.get">, env: Env) {
	const resource = await tx.resources.get(a.resource_id);
	if (!resource)
		throw notFound(`resource ${echo(a.resource_id)} not found`, { resource_id: clip(a.resource_id) });
	const live = [
		...(await tx.claims.list({ resource_id: resource.id, status: "active" }, undefined, 1000, env.now)),
		...(await tx.claims.list({ resource_id: resource.id, status: "suspended" }, undefined, 1000, env.now)),
	];
	return { resource, claims: live };
}

export async function release(tx: Tx, a: Args<"resource.release">, env: Env) {
	const c = await requireClaim(tx, a.claim_id, env.now);
	checkRevision(c, a.expected_revision);
	if (a.force) {
		if (env.ctx.principal.kind !== "operator") {
			throw new ToolError("permission_denied", "only the operator may force a release");
		}
		if (a.reason === undefined) throw invalidArgument("a forced release needs a reason", { field: "reason" });
	} else {
		if (a.agent_id === undefined) {
			throw invalidArgument(
				"agent_id is required: only a claim's holder releases it (or the operator, with force and a reason)",
				{
					field: "agent_id",
				},
			);
		}
		if (a.agent_id !== c.agent_id) {
			throw new ToolError("permission_denied", `only its holder ${c.agent_id} releases claim ${c.id}`, {
				claim_id: c.id,
				agent_id: c.agent_id,
			});
		}
	}
	mustMove(c, "released");
	const release = {
		actor: a.force ? "operator" : c.agent_id,
		reason: a.reason ?? null,
		forced: a.force ?? false,
	};
	return { claim: await releaseClaim(tx, c, release, env.now) };
}

export async function search(tx: Tx, a: Args<"resource.search">) {
	const limit = a.limit ?? 200;
	const after = a.cursor === undefined ? undefined : (cursorKey(a.cursor, ["string"])[0] as string);
	const rows = await tx.resources.search({ query: a.query, type: a.resource_type, after, limit: limit + 1 });
	const { rows: resources, next } = page(rows, limit, (r) => [r.id]);
	return { resources, next_cursor: next };
}

/** With rebase: the claim's resource hashed now, outside any transaction. */
export async function prepareRenew(a: Args<"resource.renew">, env: Env): Promise<string | undefined> {
	if (!a.rebase) return undefined;
	const c = await env.rt.store.withTransaction("read", (tx) => tx.claims.get(a.claim_id, nowIso()));
	return c && contentHash(repoGuard(env), c);
}

export async function renew(tx: Tx, a: Args<"resource.renew">, env: Env, rebasedHash: string | undefined) {
	const c = await requireClaim(tx, a.claim_id, env.now);
	checkRevision(c, a.expected_revision);
	if (a.agent_id !== c.agent_id) {
		throw new ToolError("permission_denied", `only its holder ${c.agent_id} renews claim ${c.id}`, {
			claim_id: c.id,
			agent_id: c.agent_id,
		});
	}
	if (!c.renewable) throw failedPrecondition(`claim ${c.id} is not renewable`, { claim_id: c.id });
	if (c.status === "suspended" && !a.rebase) {
		throw failedPrecondition(
			`claim ${c.id} is suspended because ${c.resource_id} changed since it was taken; review the change, then renew with rebase: true`,
			{ claim_id: c.id, status: c.status },
		);
	}
	if (c.status !== "active") {
		mustMove(c, "active");
		// A suspended claim blocked nobody; coming back, it must not overlap what others took meanwhile.
		refuseConflicts(await tx.claims.liveNear(c, env.now), c.agent_id, c.claim_type, c);
	}
	const expires = later(env.now, a.ttl_seconds ?? env.rt.config.claims.default_ttl_seconds);
	const renewed = await tx.claims.renew(c.id, expires, rebasedHash, env.now);
	if (rebasedHash !== undefined) await tx.resources.setHash(c.resource_id, rebasedHash, env.now);
	await tx.events.append(
		{
			type: "claim.renewed",
			actor_id: c.agent_id,
			run_id: c.run_id,
			task_id: c.task_id,
			payload: {
				claim_id: c.id,
				resource_id: c.resource_id,
				expires_at: expires,
				rebased: rebasedHash !== undefined,
				was: c.status,
			},
		},
		env.now,
	);
	return { claim: renewed };
}

/** The operator's: revoke any live claim, with a reason the event records. */
export async function revoke(tx: Tx, a: Args<"resource.revoke">, env: Env) {
	const c = await requireClaim(tx, a.claim_id, env.now);
	checkRevision(c, a.expected_revision);
	mustMove(c, "revoked");
	const claim = await tx.claims.setStatus(c.id, "revoked", a.reason, env.now);
	await claimEvent(tx, "claim.revoked", "operator", c, { reason: a.reason }, env.now);
	return { claim };
}

export async function expire(tx: Tx, a: Args<"resource.expire">, env: Env) {
	const at = a.at === undefined ? Date.parse(env.now) : Date.parse(a.at);
	if (Number.isNaN(at)) throw invalidArgument("at is not a time", { field: "at" });
	return { claims: await expireDue(tx, new Date(at).toISOString()) };
}
