// peer.wait: block until a request is answered or cancelled, or the wait runs out, looking as every
// waiting tool does (src/handlers/wait.ts). A bounded wait never closes the request: at the timeout
// it is returned still open, with `timed_out: true`.

import type { Env } from "../handlers/env.ts";
import { lookUntil } from "../handlers/wait.ts";
import type { Args } from "../registry/index.ts";
import type { PeerAnswerRecord, PeerRequestRecord } from "../vocabulary/records.ts";
import { actorIn } from "./actor.ts";
import { mustRead, requireRequest, withAnswers } from "./requests.ts";

const DEFAULT_WAIT_MS = 10_000;

export async function wait(
	a: Args<"peer.wait">,
	env: Env,
): Promise<{ request: PeerRequestRecord; answers: PeerAnswerRecord[]; timed_out: boolean }> {
	const seen = await lookUntil(
		env,
		"peer.wait",
		a.wait_ms ?? DEFAULT_WAIT_MS,
		() =>
			env.rt.store.withTransaction("read", async (tx) => {
				const actor = await actorIn(tx, env, a.agent_id);
				const request = await requireRequest(tx, a.request_id);
				mustRead(env, actor, request);
				return withAnswers(tx, request);
			}),
		(view) => view.request.status !== "open",
	);
	return { ...seen, timed_out: seen.request.status === "open" };
}
