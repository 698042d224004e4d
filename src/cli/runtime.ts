// Opening the project for a CLI command, and a signal that Ctrl-C aborts.
import { type CallContext, operatorContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { type ErrorCode, ToolError } from "../errors.ts";
import { findOwner } from "../owner/presence.ts";
import type { Args, Result } from "../registry/index.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import { callSocket } from "../transports/socket-client.ts";
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

/**
 * A waiting table.watch for a command that follows the table (`watch --follow`, `inbox --follow`):
 * through the live owner's socket, where this process's commits and other processes' datagrams wake
 * it at once (src/os/wake.ts); in this process, on its own poll, where no owner runs. Ctrl-C (the
 * context's signal) ends it as `cancelled` either way.
 */
export async function waitForEvents(
	rt: Runtime,
	ctx: CallContext,
	args: Args<"table.watch">,
): Promise<Result<"table.watch">> {
	const path = findOwner(rt.root)?.socket_path;
	if (path) {
		const stopped = new Promise<undefined>((resolve) => {
			if (ctx.signal.aborted) resolve(undefined);
			ctx.signal.addEventListener("abort", () => resolve(undefined), { once: true });
		});
		const reply = await Promise.race([
			// A read: when the owner is gone or goes mid-wait, this process looks on its own below.
			callSocket(path, "table.watch", args).catch(() => undefined),
			stopped,
		]);
		if (ctx.signal.aborted) throw new ToolError("cancelled", "table.watch was cancelled while waiting");
		if (reply?.ok) return reply.result as Result<"table.watch">;
		if (reply)
			throw new ToolError((reply.code ?? "internal") as ErrorCode, reply.error ?? "table.watch failed");
	}
	return call(rt, "table.watch", args, ctx);
}
