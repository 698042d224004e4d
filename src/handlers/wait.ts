// The one way a tool waits for the table to change (table.watch, message.inbox, peer.wait): it holds
// no transaction while it waits (SPEC §4). Each look is the caller's own short read; between looks
// it sleeps on the store's commit signal, which this process's commits wake at once and another
// process's as soon as it says so (src/os/wake.ts). It listens before it looks, so a commit landing
// between a look and the sleep still wakes it.
import { ToolError } from "../errors.ts";
import type { Env } from "./env.ts";

/** Commits wake the wait; this only caps one sleep before the caller looks again. */
const LOOK_AGAIN_MS = 1000;

/**
 * Looks until `ready(view)` or until `waitMs` has passed (or the owner stops), and returns the last
 * look; a cancelled call ends with `cancelled` naming `tool`.
 */
export async function lookUntil<T>(
	env: Env,
	tool: string,
	waitMs: number,
	look: () => Promise<T>,
	ready: (view: T) => boolean,
): Promise<T> {
	const cancelled = () => new ToolError("cancelled", `${tool} was cancelled while waiting`);
	// No wait asked (most calls): one look, with nothing to listen for and no poller started.
	if (waitMs <= 0) {
		if (env.ctx.signal.aborted) throw cancelled();
		return look();
	}
	const deadline = Date.now() + waitMs;
	for (;;) {
		if (env.ctx.signal.aborted) throw cancelled();
		const remaining = deadline - Date.now();
		// `stop` drops the listener (and its timer) when no sleep follows.
		const stop = new AbortController();
		const woken = env.rt.store.eventsCommitted(
			Math.max(0, Math.min(LOOK_AGAIN_MS, remaining)),
			AbortSignal.any([env.ctx.signal, stop.signal]),
		);
		try {
			const view = await look();
			if (ready(view) || remaining <= 0 || env.rt.store.waitsEnded) return view;
			await woken;
		} finally {
			stop.abort();
		}
	}
}
