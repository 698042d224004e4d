// Small helpers shared by the turn and Chair tests: runs finished directly, the Chair ticked in
// process, the turns table and the event log read back.
import { setSystemTime } from "bun:test";
import { type TickReport, tick } from "../../src/chair/tick.ts";
import type { TurnRow } from "../../src/store/turns.ts";
import type { RunStatus } from "../../src/vocabulary/statuses.ts";
import { expectDeclaredOutput, type Project } from "./helpers.ts";

export interface Event {
	id: number;
	run_id: string | null;
	type: string;
	actor_id: string;
	task_id: string | null;
	payload: Record<string, unknown>;
	created_at: string;
}

export function setRunStatus(p: Project, id: string, status: Exclude<RunStatus, "active">) {
	return p.rt.store.withTransaction("write", (tx) => tx.runs.finish(id, status, new Date().toISOString()));
}

/** One Chair tick of the run, its log lines collected. */
export function chairTick(
	p: Project,
	runId: string,
	options: { reported?: Set<string>; log?: string[] } = {},
): Promise<TickReport> {
	return tick(p.rt, runId, { log: (l) => options.log?.push(l), reported: options.reported });
}

export function turnOf(p: Project, requestEventId: number): Promise<TurnRow | undefined> {
	return p.rt.store.withTransaction("read", (tx) => tx.turns.get(requestEventId));
}

/** The run's requests that hold the floor (scheduled or started). */
export async function floorOf(p: Project, runId: string): Promise<TurnRow[]> {
	const queue = await p.rt.store.withTransaction("read", (tx) => tx.turns.queue(runId));
	return queue.filter((t) => t.status === "scheduled" || t.status === "started");
}

/** Every event (optionally of one run), oldest first, paging through table.watch. */
export async function events(p: Project, filter: { run_id?: string; type?: string } = {}): Promise<Event[]> {
	const out: Event[] = [];
	let after = 0;
	for (;;) {
		const page = (await p.call("table.watch", {
			after_event_id: after,
			limit: 200,
			...(filter.run_id !== undefined && { run_id: filter.run_id }),
		})) as { events: Event[]; next_after_event_id: number; has_more_events: boolean };
		out.push(...page.events);
		after = page.next_after_event_id;
		if (!page.has_more_events) break;
	}
	return filter.type === undefined ? out : out.filter((e) => e.type === filter.type);
}

/** Calls a tool that must succeed and checks its result against the declared output schema. */
export async function ok<T = Record<string, unknown>>(p: Project, tool: string, args: unknown): Promise<T> {
	const out = await p.call(tool, args);
	expectDeclaredOutput(tool, out);
	return out as T;
}

export interface Requested {
	request_event_id: number;
	agent_id: string;
	queued: boolean;
	duplicate: boolean;
	queue_position: number;
}

export const request = (
	p: Project,
	run_id: string,
	agent_id: string,
	reason_md = `${agent_id} needs a turn`,
) => ok<Requested>(p, "agent.turn_request", { run_id, agent_id, reason_md });

export const startTurn = (p: Project, run_id: string, agent_id: string, request_event_id: number) =>
	ok<{ event: Event; request_event_id: number; status: string }>(p, "agent.turn_start", {
		run_id,
		agent_id,
		request_event_id,
	});

export const completeTurn = (p: Project, run_id: string, agent_id: string, request_event_id: number) =>
	ok<{ event: Event; request_event_id: number; status: string }>(p, "agent.turn_complete", {
		run_id,
		agent_id,
		request_event_id,
	});

/**
 * A clock the test moves by hand (bun's setSystemTime freezes Date). Call `restore` when done;
 * test files using it restore in afterEach too.
 */
export function manualClock(start = Date.now()) {
	let now = start;
	setSystemTime(new Date(now));
	return {
		advance(ms: number) {
			now += ms;
			setSystemTime(new Date(now));
		},
		now: () => now,
		restore: () => setSystemTime(),
	};
}
