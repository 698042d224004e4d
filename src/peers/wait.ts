// peer.wait: block until a request is answered or cancelled, or the wait runs out. It holds no
// transaction while it waits (SPEC §4): each look is a short read transaction, and between looks it
// sleeps on the store's commit signal, which this process's commits wake at once and another
// process's within ~20 ms. A bounded wait never closes the request: at the timeout it is returned
// still open, with `timed_out: true`.

import { ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { PeerAnswerRecord, PeerRequestRecord } from "../vocabulary/records.ts";
import { actorIn } from "./actor.ts";
import { mustRead, requireRequest, withAnswers } from "./requests.ts";

const DEFAULT_WAIT_MS = 10_000;
// Commits wake the wait; this only caps one sleep before the request is read again.
const POLL_MS = 1000;

export async function wait(
	a: Args<"peer.wait">,
	env: Env,
): Promise<{ request: PeerRequestRecord; answers: PeerAnswerRecord[]; timed_out: boolean }> {
	const { store } = env.rt;
	const deadline = Date.now() + (a.wait_ms ?? DEFAULT_WAIT_MS);
	for (;;) {
		// Checked before each look: an aborted signal would no longer wake the sleep below.
		if (env.ctx.signal.aborted) throw new ToolError("cancelled", "peer.wait was cancelled while waiting");
		const remaining = deadline - Date.now();
		// Listen before looking: a commit landing between the read and the sleep still wakes us.
		// `stop` drops the listener (and its timer) when no sleep follows.
		const stop = new AbortController();
		const woken = store.eventsCommitted(
			Math.max(0, Math.min(POLL_MS, remaining)),
			AbortSignal.any([env.ctx.signal, stop.signal]),
		);
		try {
			const seen = await store.withTransaction("read", async (tx) => {
				const actor = await actorIn(tx, env, a.agent_id);
				const request = await requireRequest(tx, a.request_id);
				mustRead(env, actor, request);
				return withAnswers(tx, request);
			});
			const open = seen.request.status === "open";
			if (!open || remaining <= 0) return { ...seen, timed_out: open };
			await woken;
		} finally {
			stop.abort();
		}
	}
}
