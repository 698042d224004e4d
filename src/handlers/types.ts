// What a tool family's handler is given and must return. The dispatcher (src/dispatch.ts) pairs each
// handler with its tool; the families import only these types from it, never the dispatcher.

import type { Args, Result, ToolName } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { Done, Env, Key } from "./env.ts";

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
