// Idempotency keys (SPEC §4): a mutation given `idempotency_key` stores its result with the key, in
// the same transaction as its change and its events, so a retry with the same key and arguments gets
// the first result without acting twice, and other arguments are a conflict. A mutation that works
// outside one transaction (patch.apply, test.run) holds its key in the database while it runs: a
// second call with it is a conflict until the first ends, and a key whose holder died is taken over.
import { canonicalJson, sha256 } from "./domain/canonical.ts";
import { conflict } from "./errors.ts";
import type { Done, Env, Key, Ticket } from "./handlers/env.ts";
import { isAlive } from "./os/process.ts";
import type { Tool } from "./registry/index.ts";
import type { Runtime } from "./runtime.ts";
import type { Tx } from "./store/index.ts";
import { nowIso } from "./vocabulary/ids.ts";

/** A handler as the dispatcher holds it, its argument types erased (route() checked them). */
type Run<A extends unknown[], R> = (...args: A) => Promise<R>;

export interface Keyed {
	key: string | undefined;
	argsHash: string;
}

const unkeyed: Keyed = { key: undefined, argsHash: "" };

export function keyOf(args: Record<string, unknown>): Keyed {
	const key = args.idempotency_key as string | undefined;
	if (key === undefined) return unkeyed;
	const { idempotency_key: _, ...rest } = args;
	return { key, argsHash: sha256(canonicalJson(rest)) };
}

/** The result a key already stored for this tool, or undefined; other arguments are a conflict. */
export async function replay(
	tx: Tx,
	tool: Tool,
	{ key, argsHash }: Keyed,
	now: string,
): Promise<object | undefined> {
	if (key === undefined) return undefined;
	const first = await tx.idempotency.get(tool.name, key, now);
	if (!first) return undefined;
	if (first.args_hash !== argsHash) {
		throw conflict(`idempotency key '${key}' was already used for ${tool.name} with other arguments`, {
			idempotency_key: key,
		});
	}
	return first.state === "done" ? (first.result as object) : undefined;
}

/** When a key given now stops guarding its tool: the configured idempotency TTL from now. */
const keyExpiry = (rt: Runtime, now: string) =>
	new Date(Date.parse(now) + rt.config.idempotency.ttl_hours * 3_600_000).toISOString();

/** Stores a result under its key (none given: nothing to store). */
export async function rememberResult(
	rt: Runtime,
	tx: Tx,
	tool: Tool,
	{ key, argsHash }: Keyed,
	result: object,
	now: string,
) {
	if (key === undefined) return;
	await tx.idempotency.put(tool.name, key, argsHash, result, now, keyExpiry(rt, now));
}

/**
 * The key's first result; or, when it is free, the key held by this process's call. A key another
 * live call holds (in any process) is a conflict; one held by a process that died is taken over.
 */
export async function claimKey(
	rt: Runtime,
	tx: Tx,
	tool: Tool,
	keyed: Keyed,
	now: string,
): Promise<object | undefined> {
	const { key, argsHash } = keyed;
	if (key === undefined) return undefined;
	const held = await tx.idempotency.get(tool.name, key, now);
	if (held?.state === "running" && held.args_hash === argsHash && isAlive(held.pid)) {
		throw conflict(`a ${tool.name} call with idempotency key '${key}' is still running`, {
			idempotency_key: key,
		});
	}
	if (held?.state === "done") return replay(tx, tool, keyed, now);
	if (held && held.args_hash !== argsHash) return replay(tx, tool, keyed, now); // the conflict it names
	await tx.idempotency.hold(tool.name, key, argsHash, now, keyExpiry(rt, now));
	return undefined;
}

/**
 * A mutation that works outside one transaction (patch.apply touches files between its reads and
 * its write; test.run waits for a process), given its Key.
 */
export async function runMutation(
	rt: Runtime,
	tool: Tool,
	run: Run<[Record<string, unknown>, Env, Key<object>], object>,
	args: Record<string, unknown>,
	env: () => Env,
) {
	const keyed = keyOf(args);
	let holding = false;
	const ticket = {} as Ticket;
	const key: Key<object> = {
		async claim(tx) {
			// Without a key there is nothing to hold: no transaction for it either.
			if (keyed.key === undefined) return { ticket };
			const go = (t: Tx) => claimKey(rt, t, tool, keyed, nowIso());
			const earlier = tx ? await go(tx) : await rt.store.withTransaction("write", go);
			if (earlier) return { earlier: earlier as Done<object> };
			holding = true;
			return { ticket };
		},
		async remember(tx, _ticket, result) {
			await rememberResult(rt, tx, tool, keyed, result, nowIso());
			return result as Done<object>;
		},
	};
	try {
		return await run(args, env(), key);
	} catch (err) {
		// The key is free again for a retry; a result it stored stays (remember was in that commit).
		const held = keyed.key;
		if (holding && held !== undefined) {
			await rt.store
				.withTransaction("write", (tx) => tx.idempotency.release(tool.name, held))
				.catch(() => {});
		}
		throw err;
	}
}

/** A call in one transaction: a read in a read transaction; a mutation with its key checked and stored beside its change. */
export async function runInTransaction(
	rt: Runtime,
	tool: Tool,
	run: Run<[Tx, Record<string, unknown>, Env], object>,
	args: Record<string, unknown>,
	env: () => Env,
): Promise<object> {
	if (!tool.mutates) return rt.store.withTransaction("read", (tx) => run(tx, args, env()));

	const keyed = keyOf(args);
	return rt.store.withTransaction("write", async (tx) => {
		const e = env();
		const { now } = e;
		const earlier = await replay(tx, tool, keyed, now);
		if (earlier) return earlier;
		const result = await run(tx, args, e);
		await rememberResult(rt, tx, tool, keyed, result, now);
		return result;
	});
}
