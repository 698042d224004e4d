// What a tool family's handler is given and must return. The dispatcher (src/dispatch.ts) pairs each
// handler with its tool; the families import only these types from it, never the dispatcher.
import type { CallContext } from "../context.ts";
import type { ReadScope } from "../domain/read-scope.ts";
import type { Args, Result, ToolName } from "../registry/index.ts";
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

/** Runs inside the call's single transaction. */
export type TxHandler<N extends ToolName> = (tx: Tx, args: Args<N>, env: Env) => Promise<Result<N>>;
/** Manages its own short transactions, for tools that wait or run long. */
export type DirectHandler<N extends ToolName> = (args: Args<N>, env: Env) => Promise<Result<N>>;
/** A direct handler that changes state: its result comes through its idempotency key. */
export type MutationHandler<N extends ToolName> = (
	args: Args<N>,
	env: Env,
	key: Key<Result<N>>,
) => Promise<Done<Result<N>>>;
/** Reads files first (no transaction open), then commits in the call's single transaction. */
export type Prepare<N extends ToolName, P> = (args: Args<N>, env: Env) => Promise<P>;
export type PreparedRun<N extends ToolName, P> = (
	tx: Tx,
	args: Args<N>,
	env: Env,
	prepared: P,
) => Promise<Result<N>>;
