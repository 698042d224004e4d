// The one way a tool waits for the table to change (table.watch, message.inbox, peer.wait): each
// look is its own short read transaction, none is held while waiting (SPEC §4), and between looks
// it sleeps on the store's commit signal, which this process's commits wake at once and another
// process's within ~20 ms.

import { ToolError } from "../errors.ts";
import type { Tx } from "../store/index.ts";
import type { Env } from "./env.ts";

// Commits wake the sleep; this only caps one sleep before the next look.
const POLL_MS = 1000;

/**
 * Looks until `done(view)` or `waitMs` ran out, and returns the last view and whether it ran out
 * first. It listens before each look, so a commit landing between the look and the sleep still
 * wakes it. Aborted while asleep: `cancelled`, naming the tool.
 */
export async function lookUntil<V>(
	env: Env,
	tool: string,
	waitMs: number,
	look: (tx: Tx) => Promise<V>,
	done: (view: V) => boolean,
): Promise<{ view: V; timedOut: boolean }> {
	const { store } = env.rt;
	const deadline = Date.now() + waitMs;
	for (;;) {
		const remaining = deadline - Date.now();
		// `stop` drops the listener (and its timer) when no sleep follows the look.
		const stop = new AbortController();
		const woken = store.eventsCommitted(
			Math.max(0, Math.min(POLL_MS, remaining)),
			AbortSignal.any([env.ctx.signal, stop.signal]),
		);
		try {
			const view = await store.withTransaction("read", look);
			if (done(view)) return { view, timedOut: false };
			if (remaining <= 0) return { view, timedOut: true };
			await woken;
		} finally {
			stop.abort();
		}
		if (env.ctx.signal.aborted) throw new ToolError("cancelled", `${tool} was cancelled while waiting`);
	}
}
