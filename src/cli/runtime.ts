// Opening the project for a CLI command, and a signal that Ctrl-C aborts.
import { type CallContext, operatorContext } from "../context.ts";
import { openRuntime, type Runtime } from "../runtime.ts";

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
