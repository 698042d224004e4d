// run.stop, the operator's: the autopilot stops launching for the run, and the run's headless
// sessions this owner runs are stopped (each agent SIGTERM, SIGKILL 10 s later; each session then
// closes as at any end). The run itself stays active: `roundtable run --resume --autopilot` goes on.
import { actorId } from "../context.ts";
import type { Env, Key } from "../handlers/env.ts";
import { requireRun } from "../handlers/records.ts";
import type { Args, Result } from "../registry/index.ts";
import { nowIso } from "../vocabulary/ids.ts";

export async function stop(a: Args<"run.stop">, env: Env, key: Key<Result<"run.stop">>) {
	const { rt } = env;
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	// Launching stops first, so no tick starts a session after the ones stopped here.
	const run = await rt.store.withTransaction("write", async (tx) => {
		const before = await requireRun(tx, a.run_id);
		return before.autopilot === "off" ? before : tx.runs.setAutopilot(before.id, "off", null, env.now);
	});
	const live = await rt.store.withTransaction("read", (tx) => tx.sessions.live(nowIso()));
	// Each of the run's sessions this owner runs, one just minted and not yet started included.
	const stopping = rt.sessions
		? live.filter((s) => s.run_id === run.id && rt.sessions?.stop(s.id)).map((s) => s.id)
		: [];
	return rt.store.withTransaction("write", async (tx) => {
		await tx.events.append(
			{
				type: "run.stopped",
				actor_id: actorId(env.ctx),
				run_id: run.id,
				payload: { run_id: run.id, stopping },
			},
			env.now,
		);
		return key.remember(tx, claimed.ticket, { run, stopping });
	});
}
