// `roundtable sessions launch`: one agent, once, in a session of its own (src/launch/session.ts),
// at the operator's terminal or for a script; the session closes when the agent exits.
import type { Runtime } from "../runtime.ts";
import { type Outcome, recordExit, runAttempt } from "./attempt.ts";
import { closeSession, type LaunchOptions, openSession } from "./session.ts";

/** Runs one agent for one session, once; resolves with its exit status once the session is closed. */
export async function launch(rt: Runtime, o: LaunchOptions): Promise<number> {
	const opened = await openSession(rt, o);
	let outcome: Outcome | undefined;
	try {
		outcome = await runAttempt(opened, { number: 1 });
		await recordExit(opened, 1, outcome);
		if (outcome.hopeless) o.log(`roundtable: ${outcome.reason}`);
		return outcome.code;
	} finally {
		await closeSession(opened, outcome?.reason ?? "the launch failed");
	}
}
