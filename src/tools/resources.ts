// resource.claim, .claim_status, .get, .release, .search, .renew, and the operator's revoke and
// expiry sweep. A claim is a lease on a resource; the conflict check and the insert happen in one
// write transaction, so of several agents racing for the same resource exactly one wins.
import { claimEvent, expireDue, mustMove, releaseClaim, requireClaim } from "../claims/lifecycle.ts";
import { clip, echo } from "../domain/did-you-mean.ts";
import type { Env } from "../engine/env.ts";
import { cursorKey, page } from "../engine/paging.ts";
import { checkRevision } from "../engine/records.ts";
import { invalidArgument, notFound, ToolError } from "../errors.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export { claimStatus, prepareStatus } from "../claims/status.ts";
export { claim, prepareClaim } from "../claims/take.ts";

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

export { prepareRenew, renew } from "../claims/renew.ts";

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
