// What happens to a launched session's agent process, recorded as it happens: each start (attempt),
// each exit, a retry and its delay, giving up, and the CLI's own conversation id a retry resumes.
// The launcher and the owner's supervisor call it; the events are what the dashboard and `roundtable
// watch` show of a session's life.
import { invalidArgument } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { requireSession, resumeCommandFor } from "./registration.ts";

const need = <T>(value: T | undefined, field: string, event: string): T => {
	if (value === undefined) throw invalidArgument(`${event} needs ${field}`, { field });
	return value;
};

export async function supervision(tx: Tx, a: Args<"session.supervision">, env: Env) {
	const { now } = env;
	let session = await requireSession(tx, a.session_id);
	const event = (type: string, payload: Record<string, unknown>) =>
		tx.events.append(
			{
				type,
				actor_id: session.agent_id,
				run_id: session.run_id,
				task_id: session.task_id,
				payload: { session_id: session.id, agent_id: session.agent_id, ...payload },
			},
			now,
		);
	switch (a.event) {
		case "started": {
			const attempt = need(a.attempt, "attempt", "started");
			session = await tx.sessions.attemptStarted(
				session.id,
				{
					attempt,
					supervised: a.supervised ?? false,
					...(a.prompt !== undefined && { prompt: a.prompt }),
					...(a.capability_sha256 !== undefined && { capability_sha256: a.capability_sha256 }),
				},
				now,
			);
			if (session.outcome !== null) session = await tx.sessions.setOutcome(session.id, null, now);
			await event("session.started", {
				attempt,
				supervised: a.supervised ?? false,
				adapter: session.adapter,
				proposal_id: session.proposal_id,
				resumes: session.external_session_id,
			});
			break;
		}
		case "exited": {
			const status = need(a.status, "status", "exited");
			if (a.interrupted) session = await tx.sessions.interrupt(session.id, now);
			session = await tx.sessions.setOutcome(
				session.id,
				a.stopped ? "stopped" : status === 0 ? "succeeded" : "failed",
				now,
			);
			await event("session.exited", {
				attempt: need(a.attempt, "attempt", "exited"),
				status,
				duration_ms: need(a.duration_ms, "duration_ms", "exited"),
				interrupted: a.interrupted ?? false,
				stopped: a.stopped ?? false,
				...(a.why !== undefined && { reason: a.why }),
			});
			break;
		}
		case "retrying":
			await event("session.retrying", {
				attempt: need(a.attempt, "attempt", "retrying"),
				delay_ms: need(a.delay_ms, "delay_ms", "retrying"),
				why: need(a.why, "why", "retrying"),
			});
			break;
		case "gave_up":
			session = await tx.sessions.setOutcome(session.id, "gave_up", now);
			await event("session.gave_up", { attempts: session.attempt, why: need(a.why, "why", "gave_up") });
			break;
		case "captured": {
			const external = need(a.external_session_id, "external_session_id", "captured");
			const resume = resumeCommandFor(env.rt, session.adapter, external);
			session = await tx.sessions.heartbeat(
				session.id,
				{ external_session_id: external, ...(resume !== null && { resume_command: resume }) },
				now,
			);
			break;
		}
	}
	return { session };
}
