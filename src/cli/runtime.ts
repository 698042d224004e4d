// Opening the project for a CLI command, and a signal that Ctrl-C aborts.
import { type CallContext, operatorContext } from "../context.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import type { Flags } from "./args.ts";
import type { CommandRun } from "./command.ts";

export function withRuntime<T>(root: string, fn: (rt: Runtime, ctx: CallContext) => Promise<T>): Promise<T> {
	const rt = openRuntime(root);
	const abort = new AbortController();
	const onSignal = () => abort.abort();
	process.once("SIGINT", onSignal);
	process.once("SIGTERM", onSignal);
	return fn(rt, operatorContext("cli", abort.signal)).finally(() => {
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
		rt.close();
	});
}

/** A command that runs with the project open. */
export const command = (
	run: (rt: Runtime, ctx: CallContext, flags: Flags) => Promise<number>,
): CommandRun => ({
	run: (flags) => withRuntime(flags.root, (rt, ctx) => run(rt, ctx, flags)),
});
