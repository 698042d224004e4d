// Type-level checks, run by `tsc --noEmit -p .` (CI runs it): each `@ts-expect-error` line must
// fail to compile, or tsc reports the directive as unused and CI fails. Never executed.

import { operatorContext } from "../../src/context.ts";
import { call, route } from "../../src/dispatch.ts";
import type { Done, Key, Ticket } from "../../src/handlers/env.ts";
import type { MutationHandler, TxHandler } from "../../src/handlers/types.ts";
import type { Result } from "../../src/registry/index.ts";
import type { Runtime } from "../../src/runtime.ts";
import type { Tx } from "../../src/store/index.ts";

declare const rt: Runtime;
declare const tx: Tx;
declare const task: Result<"task.get">["task"];
declare const testRun: Result<"test.run">["test_run"];

// A handler returning the wrong shape does not compile.
export const wrongShape: TxHandler<"task.get"> = async () =>
	// @ts-expect-error: task.get declares { task }, not { tasks }
	({ tasks: [task] });
export const rightShape: TxHandler<"task.get"> = async () => ({ task });

// call() resolves with the declared result: no cast, and a wrong field does not compile.
export async function typedCall() {
	const out = await call(rt, "task.get", { task_id: "T-1" }, operatorContext());
	const title: string = out.task.title;
	// @ts-expect-error: task.get's result has no `tasks`
	out.tasks;
	return title;
}

// A mutation must return what its key made: forgetting remember does not compile…
// @ts-expect-error: its plain result is not Done; only key.remember makes one
export const forgetsRemember: MutationHandler<"test.run"> = async (_a, _env, key) => {
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	return { test_run: testRun, log: "" };
};
// …remembering needs the ticket only claim gives, so skipping the replay check does not compile…
export async function skipsClaim(key: Key<Result<"test.run">>) {
	// @ts-expect-error: {} is not a Ticket
	return key.remember(tx, {}, { test_run: testRun, log: "" });
}
// …and the protocol followed compiles.
export const follows: MutationHandler<"test.run"> = async (_a, _env, key) => {
	const claimed = await key.claim(tx);
	if (claimed.earlier) return claimed.earlier;
	const ticket: Ticket = claimed.ticket;
	const done: Done<Result<"test.run">> = await key.remember(tx, ticket, { test_run: testRun, log: "" });
	return done;
};

// The switch routes registry names only: anything else does not compile.
// @ts-expect-error: "task.nope" is not a ToolName
export const unknownRoute = () => route("task.nope");
