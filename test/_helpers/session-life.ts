// A headless session's life as the events tell it (session.started, exited, retrying, gave_up, closed).
import { runCli, until } from "./helpers.ts";

export interface Event {
	type: string;
	payload: Record<string, unknown>;
}

/** `roundtable sessions start --root root ARGS…`: the new session's id (throws with what it said when it fails). */
export async function startSession(root: string, ...args: string[]): Promise<string> {
	const r = await runCli(["sessions", "start", "--root", root, ...args]);
	if (r.code !== 0) throw new Error(`sessions start failed (${r.code}): ${r.stderr}`);
	return r.stdout.trim();
}

/** The session's own events, oldest first, of the supervision's kinds and its close. */
export async function lifeOf(root: string, id: string): Promise<Event[]> {
	const r = await runCli(["watch", "--root", root, "--limit", "1000", "--json"]);
	return (JSON.parse(r.stdout) as { events: Event[] }).events.filter(
		(e) => e.payload.session_id === id && /^session\.(started|exited|retrying|gave_up|closed)$/.test(e.type),
	);
}

/** The session's life in short: `started 1`, `exited 1 3`, `retrying 2`, `gave_up`, `closed`. */
export const brief = (events: Event[]) =>
	events.map((e) => {
		const p = e.payload;
		const kind = e.type.slice("session.".length);
		if (kind === "started" || kind === "retrying") return `${kind} ${p.attempt}`;
		if (kind === "exited") return `exited ${p.attempt} ${p.status}${p.interrupted ? " interrupted" : ""}`;
		return kind;
	});

export async function closed(root: string, id: string, ms = 30_000): Promise<Event[]> {
	return until(
		async () => {
			const events = await lifeOf(root, id);
			return events.some((e) => e.type === "session.closed") && events;
		},
		ms,
		`session ${id} to close`,
	);
}
