// A claim's life after it is taken: release, suspension, revocation and expiry, each a status move
// the domain allows and an event naming the claim, its resource and its agent.
import { canMove } from "../domain/claims.ts";
import { failedPrecondition, notFound } from "../errors.ts";
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
