// A claim's life after it is taken: release, suspension, revocation and expiry, each a status move
// the domain allows and an event naming the claim, its resource and its agent; and the tools that
// ask for them (resource.release, resource.revoke, resource.expire).
import { canMove } from "../domain/claims.ts";
import { failedPrecondition, invalidArgument, notFound, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { checkRevision } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { ClaimRecord } from "../vocabulary/records.ts";
import type { ClaimStatus } from "../vocabulary/statuses.ts";

export const later = (now: string, seconds: number) =>
	new Date(Date.parse(now) + seconds * 1000).toISOString();

export async function requireClaim(tx: Tx, id: string, now: string): Promise<ClaimRecord> {
	const claim = await tx.claims.get(id, now);
	if (!claim) throw notFound(`claim ${id} not found`, { claim_id: id });
	return claim;
}

export function mustMove(claim: ClaimRecord, to: ClaimStatus): void {
	if (!canMove(claim.status, to)) {
		throw failedPrecondition(`claim ${claim.id} is ${claim.status}, so it cannot become ${to}`, {
			claim_id: claim.id,
			status: claim.status,
		});
	}
}

/** Appends an event about a claim: its ids, then what this event adds. */
export function claimEvent(
	tx: Tx,
	type: string,
	actor: string,
	c: ClaimRecord,
	extra: Record<string, unknown>,
	now: string,
) {
	return tx.events.append(
		{
			type,
			actor_id: actor,
			run_id: c.run_id,
			task_id: c.task_id,
			payload: { claim_id: c.id, resource_id: c.resource_id, agent_id: c.agent_id, ...extra },
		},
		now,
	);
}

/** Releases a live claim, with its claim.released event. */
export async function releaseClaim(
	tx: Tx,
	c: ClaimRecord,
	release: { actor: string; reason: string | null; forced: boolean },
	now: string,
): Promise<ClaimRecord> {
	const released = await tx.claims.setStatus(c.id, "released", release.reason, now);
	await claimEvent(
		tx,
		"claim.released",
		release.actor,
		c,
		{ reason: release.reason, forced: release.forced },
		now,
	);
	return released;
}

/** Suspends a live claim, with its claim.suspended event: it blocks nobody until renewed with rebase. */
export async function suspendClaim(
	tx: Tx,
	c: ClaimRecord,
	actor: string,
	reason: string,
	now: string,
): Promise<ClaimRecord> {
	const suspended = await tx.claims.setStatus(c.id, "suspended", reason, now);
	await claimEvent(tx, "claim.suspended", actor, c, { reason }, now);
	return suspended;
}

/** Records leases that ran out by `at` as `expired`, with events (the Chair's chair.expire too). */
export async function expireDue(tx: Tx, at: string): Promise<ClaimRecord[]> {
	const expired: ClaimRecord[] = [];
	for (const c of await tx.claims.due(at)) {
		expired.push(await tx.claims.setStatus(c.id, "expired", "ttl elapsed", at));
		await claimEvent(tx, "claim.expired", "system", c, { expires_at: c.expires_at }, at);
	}
	return expired;
}

/** resource.release: by its holder, or forced by the operator with a reason. */
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

/** resource.revoke, the operator's: revoke any live claim, with a reason the event records. */
export async function revoke(tx: Tx, a: Args<"resource.revoke">, env: Env) {
	const c = await requireClaim(tx, a.claim_id, env.now);
	checkRevision(c, a.expected_revision);
	mustMove(c, "revoked");
	const claim = await tx.claims.setStatus(c.id, "revoked", a.reason, env.now);
	await claimEvent(tx, "claim.revoked", "operator", c, { reason: a.reason }, env.now);
	return { claim };
}

/** resource.expire: the operator's sweep of the leases that ran out by `at` (default: now). */
export async function expire(tx: Tx, a: Args<"resource.expire">, env: Env) {
	const at = a.at === undefined ? Date.parse(env.now) : Date.parse(a.at);
	if (Number.isNaN(at)) throw invalidArgument("at is not a time", { field: "at" });
	return { claims: await expireDue(tx, new Date(at).toISOString()) };
}
