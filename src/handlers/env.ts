// What an engine is given for one call: the runtime, who is calling, the call's clock and read
// scope; and the idempotency Key a long mutation must claim and remember through. Below both the
// tool families and the engines, so neither imports upward for it.
import type { CallContext } from "../context.ts";
import { type ReadScope, readRefusal } from "../domain/read-scope.ts";
import { ToolError } from "../errors.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";

/** What a handler gets besides its arguments. `now` is read once, after the transaction began. */
export interface Env {
	rt: Runtime;
	ctx: CallContext;
	now: string;
	/** For an agent's call: what repository content it may show (see src/sessions/access.ts). */
	reads?: ReadScope;
}

declare const DONE: unique symbol;
declare const TICKET: unique symbol;
/** A mutation's result as only its Key makes one: remembered with the key, or the key's first result. */
export type Done<R> = R & { readonly [DONE]: true };
/** Proof that the key was claimed: what `remember` asks for. */
export type Ticket = { readonly [TICKET]: true };

/**
 * The idempotency key of a mutation that manages its own transactions (patch.apply, test.run). The
 * types make the handler use it: only `claim` gives the Ticket `remember` needs, and only these two
 * give the Done result the handler must return.
 */
export interface Key<R> {
	/**
	 * Call once the handler holds whatever serializes it, in `tx` when given (the check and the
	 * handler's first write atomic). The first result of this key, to return as it is; or a ticket:
	 * the key is now held (a retry from any process is a conflict) until `remember` or a failure.
	 */
	claim(tx?: Tx): Promise<{ earlier: Done<R> } | { earlier?: undefined; ticket: Ticket }>;
	/** Inside the handler's final write transaction: the result stored beside the events it produced. */
	remember(tx: Tx, ticket: Ticket, result: R): Promise<Done<R>>;
}

/**
 * An actor argument the schema leaves optional for the seed's sake (a tool's `namedByCaller`):
 * call() refused the call without it, or filled it in from the capability.
 */
export function named(value: string | undefined, field: string): string {
	if (value === undefined) throw new ToolError("internal", `${field} reached the engine unnamed`);
	return value;
}

/** The repository as this call may read it: all of it for the operator, an agent's scope for an agent. */
export function repoGuard(env: Env): RepoGuard {
	const { reads } = env;
	return new RepoGuard(env.rt.root, reads && ((rel) => readRefusal(reads, rel)));
}
