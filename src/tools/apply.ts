// patch.apply, patch.rollback and patch.recover: each a transaction over the repository that cannot
// be left half done, wholly before or wholly after whatever crash. The engine is src/apply/: the
// journaled transaction (transact.ts), applying (apply.ts), rolling back (rollback.ts), recovery.
import { applyProposal } from "../apply/apply.ts";
import { recoverNow } from "../apply/recover.ts";
import { rollbackTransaction } from "../apply/rollback.ts";
import type { Env, Key } from "../engine/env.ts";
import type { Args, Result } from "../registry/index.ts";

export function apply(a: Args<"patch.apply">, env: Env, key: Key<Result<"patch.apply">>) {
	return applyProposal(env, a, key);
}

export function rollback(a: Args<"patch.rollback">, env: Env, key: Key<Result<"patch.rollback">>) {
	return rollbackTransaction(env, a, key);
}

/** patch.recover: the owner's start-up settlement of applies a crash interrupted. */
export async function recover(_: Args<"patch.recover">, env: Env, key: Key<Result<"patch.recover">>) {
	const { rt } = env;
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	const settled = await recoverNow(rt);
	return rt.store.withTransaction("write", (tx) => key.remember(tx, claimed.ticket, { settled }));
}
