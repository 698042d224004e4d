// The owner's headless sessions (session.start, session.stop). Each is a launched session run
// inside the owner, stopped by its own signal, never by the owner's. Its agent is started again when
// it fails (a non-zero exit, the wall time), after a backoff, up to sessions.max_attempts in all, in
// the same workspace and home, resuming its CLI's conversation where the adapter can; an agent whose
// command is missing is never started again. When the owner dies under its sessions, the next owner
// finds them open: each attempt that was cut short is recorded as interrupted, what is left of its
// agent is killed first (never two at once), and it is started once more. The owner stops them all
// when it stops.
import { existsSync, readFileSync } from "node:fs";
import { systemContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { type Outcome, pidFile, recordExit, runAttempt } from "../launch/attempt.ts";
import { closeLeftover, closeSession, type Opened, openSession, reopenSession } from "../launch/session.ts";
import { startTime } from "../os/process.ts";
import { sleep } from "../os/sleep.ts";
import type { HeadlessSessions, Runtime } from "../runtime.ts";
import { capabilityHash, lapsed } from "../sessions/capability.ts";
import { sessionDir } from "../sessions/paths.ts";
import type { SessionRow } from "../store/sessions.ts";
import { nowIso } from "../vocabulary/ids.ts";

interface Running {
	abort: AbortController;
	/** Settles once the session is closed. */
	closed: Promise<void>;
}

export function headlessSessions(
	rt: Runtime,
	log: (line: string) => void,
	/** Serves a just-minted session's socket at once (the owner's endpoints, once they run). */
	serve: () => Promise<void> = async () => {},
): HeadlessSessions & { stopAll(): Promise<void>; recover(): Promise<void> } {
	const running = new Map<string, Running>();
	/** Supervises one open session from attempt `first` on; closes it at the end. */
	const supervise = (s: Opened, signal: AbortSignal, first: Attempted): Promise<void> =>
		attempts(s, signal, first, log).then((reason) => closeSession(s, reason));
	/** Runs `work` for session `id` until it is closed; session.stop aborts it meanwhile. */
	const track = (id: string, abort: AbortController, work: Promise<void>) => {
		const closed = work
			.catch((err: unknown) => log(`roundtable: headless session ${id} failed: ${(err as Error).message}`))
			.finally(() => running.delete(id));
		running.set(id, { abort, closed });
	};
	return {
		start(o) {
			const abort = new AbortController();
			// Answers as soon as the session is minted; its folder, workspace and agent follow.
			return new Promise<string>((resolve, reject) => {
				const opening: Promise<Opened> = openSession(rt, {
					agent: o.agent,
					binding: o.binding,
					...(o.adapter !== undefined && { adapter: o.adapter }),
					...(o.prompt !== undefined && { prompt: o.prompt }),
					log,
					supervised: {
						signal: abort.signal,
						serve,
						// Called after the mint, inside openSession: `opening` stands by then.
						onSession: (id) => {
							resolve(id);
							track(
								id,
								abort,
								opening.then(
									(opened) =>
										supervise(opened, abort.signal, { number: 1, last: rt.config.sessions.max_attempts }),
									// Set up failed after the mint (the session is closed): the caller only hears of it here.
									(err: Error) => supervision(rt, id, { event: "gave_up", why: err.message }).then(() => {}),
								),
							);
						},
					},
				});
				opening.catch(reject);
			});
		},
		stop(id) {
			const r = running.get(id);
			if (!r) return false;
			r.abort.abort();
			return true;
		},
		async stopAll() {
			const all = [...running.values()];
			for (const r of all) r.abort.abort();
			await Promise.all(all.map((r) => r.closed));
		},
		async recover() {
			const open = await rt.store.withTransaction("read", (tx) => tx.sessions.supervisedLive());
			for (const session of open) {
				if (running.has(session.id)) continue;
				const abort = new AbortController();
				track(session.id, abort, resume(rt, session, abort.signal, log, supervise, serve));
			}
		},
	};
}

interface Attempted {
	/** The attempt to run now, and the last one allowed. */
	number: number;
	last: number;
	/** The CLI's conversation to resume, and why the one before ended. */
	resume?: string | undefined;
	after?: string | undefined;
	capabilityHash?: string | undefined;
}

/** Runs the session's agent until it succeeds, is stopped, or its attempts are spent; says why it ended. */
async function attempts(s: Opened, signal: AbortSignal, first: Attempted, log: (line: string) => void) {
	const { rt, session } = s;
	let a = first;
	for (;;) {
		// An attempt that could not start (the login busy, the disk full) failed like one that exited.
		const outcome: Outcome = await runAttempt(s, a).catch((err: Error) => ({
			code: 1,
			reason: err.message,
			durationMs: 0,
		}));
		await recordExit(s, a.number, outcome);
		log(`roundtable: headless session ${session.id} attempt ${a.number} ended: ${outcome.reason}`);
		if (outcome.code === 0 || outcome.endedBy === "stop" || signal.aborted) return outcome.reason;
		const why = outcome.hopeless
			? outcome.reason
			: a.number >= a.last
				? `${a.number} attempt(s) failed; the last: ${outcome.reason}`
				: undefined;
		if (why !== undefined) {
			await supervision(rt, session.id, { event: "gave_up", why });
			await taskFailed(rt, session, why, log);
			return `gave up: ${why}`;
		}
		const delay = rt.config.sessions.retry_backoff_ms * 2 ** (a.number - 1);
		const external = (await rt.store.withTransaction("read", (tx) => tx.sessions.get(session.id)))
			?.external_session_id;
		await supervision(rt, session.id, {
			event: "retrying",
			attempt: a.number + 1,
			delay_ms: delay,
			why: outcome.reason,
		});
		await sleep(delay, signal);
		if (signal.aborted) return "stopped";
		a = { number: a.number + 1, last: a.last, resume: external ?? undefined, after: outcome.reason };
	}
}

/**
 * A supervised session the owner was running when it died: what is left of its agent killed, the
 * attempt recorded as interrupted, then one more attempt (resuming its conversation) with a new
 * capability, unless an owner already died under it before.
 */
async function resume(
	rt: Runtime,
	session: SessionRow,
	signal: AbortSignal,
	log: (line: string) => void,
	supervise: (s: Opened, signal: AbortSignal, first: Attempted) => Promise<void>,
	serve: () => Promise<void>,
): Promise<void> {
	await killLeftover(sessionDir(rt.root, session.id), log);
	const after = "the owner stopped while it ran";
	if (session.attempt > 0)
		await recordExit(
			{ rt, session, o: { agent: session.agent_id, log } },
			session.attempt,
			{ code: -1, reason: after, durationMs: 0 },
			true,
		);
	// Once is enough: an owner that died under it twice, or a capability that lapsed meanwhile (its
	// lifetime is the session's), and it is not started again.
	const lapse = lapsed(session, nowIso());
	const why =
		session.interrupted > 0
			? "an owner stopped under it twice"
			: lapse !== undefined
				? `${lapse} while no owner ran`
				: undefined;
	if (why !== undefined) {
		await supervision(rt, session.id, { event: "gave_up", why });
		await taskFailed(rt, session, why, log);
		await closeLeftover(rt, session, `gave up: ${why}`, log);
		return;
	}
	const prompt = await rt.store.withTransaction("read", (tx) => tx.sessions.promptOf(session.id));
	const opened = await reopenSession(rt, session, {
		agent: session.agent_id,
		log,
		supervised: { signal, onSession: () => {}, serve },
		...(prompt !== undefined && { prompt }),
	});
	const number = session.attempt + 1;
	await supervision(rt, session.id, { event: "retrying", attempt: number, delay_ms: 0, why: after });
	log(`roundtable: headless session ${session.id} was interrupted by the owner's stop: starting it again`);
	await supervise(opened, signal, {
		number,
		// Once more, even past max_attempts: the owner's death was not the agent's failure.
		last: Math.max(number, rt.config.sessions.max_attempts),
		resume: session.external_session_id ?? undefined,
		after,
		capabilityHash: capabilityHash(opened.capability),
	});
}

/** Ends what is left of an agent an earlier owner ran (its pid and start time recorded), and waits for it. */
async function killLeftover(dir: string, log: (line: string) => void): Promise<void> {
	const file = pidFile(dir);
	if (!existsSync(file)) return;
	const [pid, start] = readFileSync(file, "utf8").trim().split(" ");
	const n = Number(pid);
	if (!Number.isInteger(n) || n <= 1 || startTime(n) !== start) return;
	log(`roundtable: killing process ${n}, left of an agent an earlier owner ran`);
	try {
		process.kill(n, "SIGKILL");
	} catch {
		return;
	}
	for (let i = 0; i < 500 && startTime(n) === start; i++) await Bun.sleep(20);
}

/** An implementer's session on its own task that gave up: the task is failed, with why; the run goes on. */
async function taskFailed(rt: Runtime, session: SessionRow, why: string, log: (line: string) => void) {
	if (session.task_id === null) return;
	const task = await rt.store.withTransaction("read", (tx) => tx.tasks.get(session.task_id as string));
	if (!task || task.assigned_agent_id !== session.agent_id || !["open", "in_progress"].includes(task.status))
		return;
	await call(
		rt,
		"task.update_status",
		{
			task_id: task.id,
			status: "failed",
			reason_md: `${session.agent_id}'s session ${session.id} gave up: ${why}`,
		},
		systemContext(),
	).catch((err: Error) => log(`roundtable: could not mark task ${task.id} failed: ${err.message}`));
}

function supervision(
	rt: Runtime,
	session_id: string,
	a: { event: "retrying" | "gave_up"; why: string; attempt?: number; delay_ms?: number },
) {
	return call(rt, "session.supervision", { session_id, ...a }, systemContext());
}
