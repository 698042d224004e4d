// chair.expire, the first step of the Chair's tick: every claim whose lease ran out, and the run's
// turns whose lease ran out (src/claims/lifecycle.ts and src/turns/lease.ts end them).

import { expireDue } from "../claims/lifecycle.ts";
import { actorId } from "../context.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { expireTurn } from "../turns/lease.ts";

/** Claims whose lease ran out (all of them, as `claims expire` does), and the run's turn leases. */
export async function expire(tx: Tx, a: Args<"chair.expire">, env: Env) {
	const runId = a.run_id;
	const { now } = env;
	const claims = await expireDue(tx, now);
	const due = (await tx.turns.leaseDue(now)).filter((t) => t.run_id === runId);
	for (const t of due) await expireTurn(tx, t, now, actorId(env.ctx));
	return { expired_claims: claims.length, expired_turns: due.length };
}
