// Renewing a claim (resource.renew): its holder extends the lease; a suspended claim comes back
// only with rebase (its resource hashed anew, outside any transaction) and only if it overlaps
// nothing others took meanwhile.

import { failedPrecondition, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { repoGuard } from "../handlers/env.ts";
import { checkRevision } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import { contentHash } from "../repo/hash.ts";
import type { Tx } from "../store/index.ts";
import { nowIso } from "../vocabulary/ids.ts";
import { later, mustMove, requireClaim } from "./lifecycle.ts";
import { refuseConflicts } from "./take.ts";

/** With rebase: the claim's resource hashed now, outside any transaction. */
export async function prepareRenew(a: Args<"resource.renew">, env: Env): Promise<string | undefined> {
	if (!a.rebase) return undefined;
	const c = await env.rt.store.withTransaction("read", (tx) => tx.claims.get(a.claim_id, nowIso()));
	return c && contentHash(repoGuard(env), c);
}

/** The holder's renewal: a new expiry, with rebase a new base hash; a suspended claim is active again. */
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
