// session.start and session.stop: headless sessions, which only the owner runs (it wires the
// launcher into its runtime: rt.sessions). The engine asks it; it never imports the launcher.
import { failedPrecondition, notFound, ToolError } from "../errors.ts";
import type { Env, Key } from "../handlers/env.ts";
import type { Args, Result } from "../registry/index.ts";

const ownerOnly = () =>
	failedPrecondition(
		"only the owner runs headless sessions: start it with `roundtable start`, then try again",
	);

export async function start(a: Args<"session.start">, env: Env, key: Key<Result<"session.start">>) {
	const { rt } = env;
	const sessions = rt.sessions;
	if (!sessions) throw ownerOnly();
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	const id = await sessions
		.start({
			agent: a.agent_id,
			binding: {
				...(a.task_id !== undefined && { task_id: a.task_id }),
				...(a.proposal_id !== undefined && { proposal_id: a.proposal_id }),
				...(a.run_id !== undefined && { run_id: a.run_id }),
			},
			...(a.adapter !== undefined && { adapter: a.adapter }),
			...(a.prompt !== undefined && { prompt: a.prompt }),
		})
		.catch((err: unknown) => {
			// What stops a launch before its agent starts (an unknown adapter, no sandbox where one is required).
			throw err instanceof ToolError ? err : failedPrecondition((err as Error).message);
		});
	return rt.store.withTransaction("write", async (tx) => {
		const session = await tx.sessions.get(id);
		if (!session) throw notFound(`session ${id} not found`, { session_id: id });
		return key.remember(tx, claimed.ticket, { session });
	});
}

export async function stop(a: Args<"session.stop">, env: Env, key: Key<Result<"session.stop">>) {
	const { rt } = env;
	if (!rt.sessions) throw ownerOnly();
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	const stopping = rt.sessions.stop(a.session_id);
	return rt.store.withTransaction("write", (tx) =>
		key.remember(tx, claimed.ticket, { session_id: a.session_id, stopping }),
	);
}
