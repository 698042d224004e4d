// FIFO under concurrency (seed lines 39–46): twenty agents in twenty processes, released together by a
// start barrier, each request a turn once in the same run. Proves that
// - the requests really overlap in time (the last one started before the first one finished): the
//   test holds the database's write lock across the release so all twenty are in flight together;
// - each gets its own event, none is a duplicate, and queue_position is its rank by event id (the
//   write transactions serialize, so positions are exactly 1..20);
// - the Chair then schedules every one exactly once, in ascending event-id order, one at a time:
//   a second tick while a turn is scheduled or started schedules nothing;
// - and one agent racing itself from four processes still has one outstanding request.

import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { databasePath } from "../../src/runtime.ts";
import { chairTick, completeTurn, events, floorOf, startTurn } from "../_helpers/chair-helpers.ts";
import { addRun, atBarrier, makeProject, type Project } from "../_helpers/helpers.ts";

const AGENTS = 20;
/** The children fire this long after the release is sent… */
const RELEASE_DELAY_MS = 200;
/** …and the write lock is held this long after they fired. */
const HOLD_MS = 400;

interface Report {
	agent: string;
	start: number;
	end: number;
	request_event_id: number;
	duplicate: boolean;
	queue_position: number;
	error?: unknown;
}

const clock = () => performance.timeOrigin + performance.now();

/** Spawns one child per agent; resolves once every child printed "ready". */
async function spawnRequesters(root: string, agents: string[]) {
	const children = await atBarrier(
		"turn-request-race.ts",
		agents.map((agent) => [root, "R1", agent]),
	);
	return {
		/** Releases every child at one instant a little ahead, and collects their reports. */
		async go(): Promise<Report[]> {
			const lines = await children.go(`go ${clock() + RELEASE_DELAY_MS}\n`);
			return lines.map((l) => JSON.parse(l) as Report);
		},
	};
}

/**
 * One agent.turn_request per entry of `agents` (an agent may repeat), each from its own process, all
 * released together. The test holds the write lock from before the release until well after it, so
 * every call is in flight together however the scheduler spreads their starts; then they race.
 * Checks that they overlapped: each began before the lock was let go, so the last began before the
 * first ended.
 */
async function race(p: Project, agents: string[]): Promise<Report[]> {
	const requesters = await spawnRequesters(p.root, agents);
	const lock = new Database(databasePath(p.rt.root, p.rt.config));
	lock.run("BEGIN IMMEDIATE");
	const released = requesters.go();
	released.catch(() => undefined); // awaited below, once the lock is gone
	await Bun.sleep(RELEASE_DELAY_MS + HOLD_MS);
	const unlockedAt = clock();
	lock.run("ROLLBACK");
	lock.close();
	const reports = await released;

	expect(reports.filter((r) => r.error !== undefined)).toEqual([]);
	const lastStart = Math.max(...reports.map((r) => r.start));
	const firstEnd = Math.min(...reports.map((r) => r.end));
	expect(lastStart).toBeLessThan(unlockedAt);
	expect(lastStart).toBeLessThan(firstEnd);
	return reports;
}

test("twenty concurrent turn requests from twenty processes are scheduled once each, in event-id order", async () => {
	const p = await makeProject({ config: `agents:\n  implementers: { count: ${AGENTS} }\n` });
	await addRun(p, "R1");
	const agents = Array.from({ length: AGENTS }, (_, i) => `implementer-${i + 1}`);
	const reports = await race(p, agents);

	// Every call made a fresh request.
	expect(reports.every((r) => r.duplicate === false)).toBe(true);
	expect(new Set(reports.map((r) => r.agent)).size).toBe(AGENTS);

	// Distinct event ids; the position each was told is its rank by event id.
	const byId = [...reports].sort((a, b) => a.request_event_id - b.request_event_id);
	expect(new Set(byId.map((r) => r.request_event_id)).size).toBe(AGENTS);
	expect(byId.map((r) => r.queue_position)).toEqual(Array.from({ length: AGENTS }, (_, i) => i + 1));
	const requested = await events(p, { run_id: "R1", type: "agent.turn_requested" });
	expect(requested.map((e) => [e.id, e.actor_id])).toEqual(byId.map((r) => [r.request_event_id, r.agent]));

	// The Chair serves them one at a time, oldest event id first.
	const served: number[] = [];
	for (let i = 0; i < AGENTS; i++) {
		const outstanding = await p.rt.store.withTransaction("read", (tx) => tx.turns.queue("R1"));
		const oldest = Math.min(...outstanding.map((t) => t.request_event_id));
		const report = await chairTick(p, "R1");
		expect(report.scheduled).toBe(oldest);
		const id = report.scheduled as number;
		const owner = byId.find((r) => r.request_event_id === id)?.agent as string;
		expect((await floorOf(p, "R1")).map((t) => t.request_event_id)).toEqual([id]);

		// Nothing else is scheduled while this turn is scheduled, nor while it is started.
		expect((await chairTick(p, "R1")).scheduled).toBeNull();
		await startTurn(p, "R1", owner, id);
		expect((await chairTick(p, "R1")).scheduled).toBeNull();
		expect((await floorOf(p, "R1")).map((t) => [t.request_event_id, t.status])).toEqual([[id, "started"]]);

		await completeTurn(p, "R1", owner, id);
		expect(await floorOf(p, "R1")).toEqual([]);
		served.push(id);
	}

	expect(served).toEqual(byId.map((r) => r.request_event_id));
	const schedules = await events(p, { run_id: "R1", type: "agent.turn_scheduled" });
	expect(schedules.map((e) => e.payload.request_event_id)).toEqual(served);
	expect(schedules.map((e) => e.payload.agent_id)).toEqual(byId.map((r) => r.agent));
	expect(schedules.every((e) => e.payload.position === 1 && e.actor_id === "chair-1")).toBe(true);

	// The queue is empty: another tick schedules nothing.
	const last = await chairTick(p, "R1");
	expect(last.scheduled).toBeNull();
	expect(await p.rt.store.withTransaction("read", (tx) => tx.turns.countOutstanding("R1"))).toBe(0);
}, 60_000);

test("one agent requesting from four processes at once gets one request: the others are duplicates of it", async () => {
	const p = await makeProject();
	await addRun(p, "R1");
	const reports = await race(p, Array(4).fill("implementer-1"));
	const fresh = reports.filter((r) => !r.duplicate);
	expect(fresh.length).toBe(1);
	const id = fresh[0]?.request_event_id;
	expect(reports.map((r) => [r.request_event_id, r.queue_position])).toEqual(Array(4).fill([id, 1]));
	expect((await events(p, { type: "agent.turn_requested" })).map((e) => e.id)).toEqual([id as number]);
}, 60_000);
