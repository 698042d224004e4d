// The turn protocol (seed lines 39–46, reference §5.3/§5.4, SPEC §6 "Turns"), through the dispatcher:
// - agent.turn_request / turn_start / turn_complete refuse bad calls with the seed's checks in the
//   seed's order, an earlier check shadowing the later ones, and append nothing when they refuse;
// - results match the declared output schemas; events carry the seed's payloads (trimmed reason,
//   RFC 3339 `requested_at` with nanoseconds);
// - one outstanding request per agent per run: a repeat is `duplicate: true` with no event, a new
//   request is allowed once the old one finished; queue_position counts outstanding requests;
// - leases: a scheduled turn not started, or a started turn not completed, within turns.lease_seconds
//   expires (agent.turn_expired) on the next tick, which then schedules the next request; an expired
//   turn cannot be started or completed; its agent may request again, even before the tick ran.
// Time is moved with bun's setSystemTime, except in one test that waits out a real one-second lease.
import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import type { ErrorCode } from "../../src/errors.ts";
import {
	chairTick,
	completeTurn,
	events,
	manualClock,
	request,
	setRunStatus,
	startTurn,
	turnOf,
} from "../_helpers/chair-helpers.ts";
import { addRun, disableAgent, makeProject, type Project } from "../_helpers/helpers.ts";

afterEach(() => setSystemTime());

const LEASE_SECONDS = 60;
const A = "implementer-1";
const B = "implementer-2";
const C = "reviewer-1";

/** A project with a 60 s turn lease and an active run R1. */
async function project(): Promise<Project> {
	const p = await makeProject({ config: `turns:\n  lease_seconds: ${LEASE_SECONDS}\n` });
	await addRun(p, "R1");
	return p;
}

/** The call must fail with this code and message, and append no event. */
async function refuse(p: Project, tool: string, args: unknown, code: ErrorCode, message: string | RegExp) {
	const before = (await events(p)).length;
	const e = await p.fail(tool, args);
	expect(e.code).toBe(code);
	if (typeof message === "string") expect(e.message).toBe(message);
	else expect(e.message).toMatch(message);
	expect((await events(p)).length).toBe(before);
	return e;
}

/** Requests a turn for `agent` and ticks until it is the one scheduled (it must be first in line). */
async function scheduled(p: Project, run: string, agent: string): Promise<number> {
	const { request_event_id } = await request(p, run, agent);
	const report = await chairTick(p, run);
	expect(report.scheduled).toBe(request_event_id);
	return request_event_id;
}

const EMOJI = "😀"; // one code point, two UTF-16 units
const NANO_RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;

describe("agent.turn_request: the seed's checks, in its order", () => {
	test("required arguments: missing or empty ids and a blank reason are invalid_argument", async () => {
		const p = await project();
		const args = { run_id: "R1", agent_id: A, reason_md: "ready" };
		for (const field of ["run_id", "agent_id", "reason_md"] as const) {
			const { [field]: _, ...rest } = args;
			const e = await refuse(
				p,
				"agent.turn_request",
				rest,
				"invalid_argument",
				`missing required argument '${field}'`,
			);
			expect(e.details).toMatchObject({ field });
		}
		for (const [field, value] of [
			["run_id", ""],
			["agent_id", ""],
			["reason_md", ""],
			["reason_md", "   \n\t "],
			["reason_md", "\u3000\u00a0"], // whitespace by String.prototype.trim too
		] as const) {
			const e = await refuse(
				p,
				"agent.turn_request",
				{ ...args, [field]: value },
				"invalid_argument",
				new RegExp(`^argument '${field}' must be`),
			);
			expect(e.details).toMatchObject({ field });
		}
	});

	test("reason_md counts code points after trimming: 1000 emoji pass, 1001 fail", async () => {
		const p = await project();
		const thousand = EMOJI.repeat(1000);
		const ok = await request(p, "R1", A, thousand);
		expect(ok.duplicate).toBe(false);

		// Padding beyond 1000 code points is trimmed before counting.
		const padded = await request(p, "R1", B, `  \n${"x".repeat(1000)}\t `);
		const [event] = (await events(p, { type: "agent.turn_requested" })).filter(
			(e) => e.id === padded.request_event_id,
		);
		expect(event?.payload.reason_md).toBe("x".repeat(1000));

		const e = await refuse(
			p,
			"agent.turn_request",
			{ run_id: "R1", agent_id: C, reason_md: EMOJI.repeat(1001) },
			"invalid_argument",
			"reason_md must be 1000 characters or fewer",
		);
		expect(e.details).toMatchObject({ field: "reason_md" });
	});

	test("a too-long reason shadows an unknown run; an unknown run shadows an unknown agent", async () => {
		const p = await project();
		await refuse(
			p,
			"agent.turn_request",
			{ run_id: "NOPE", agent_id: "nobody", reason_md: "y".repeat(1001) },
			"invalid_argument",
			"reason_md must be 1000 characters or fewer",
		);
		const e = await refuse(
			p,
			"agent.turn_request",
			{ run_id: "NOPE", agent_id: "nobody", reason_md: "hi" },
			"not_found",
			"run NOPE not found",
		);
		expect(e.details).toMatchObject({ run_id: "NOPE" });
	});

	test("a run that is not active refuses, whatever its status, before the agent is looked at", async () => {
		const p = await project();
		for (const status of ["completed", "blocked", "failed"] as const) {
			const id = `R-${status}`;
			await addRun(p, id);
			await setRunStatus(p, id, status);
			const e = await refuse(
				p,
				"agent.turn_request",
				{ run_id: id, agent_id: "nobody", reason_md: "hi" },
				"failed_precondition",
				`run ${id} is ${status} and cannot accept turn requests`,
			);
			expect(e.details).toMatchObject({ run_id: id, status });
		}
	});

	test("an unknown agent is not_found (with a did-you-mean); a disabled agent is failed_precondition", async () => {
		const p = await project();
		const unknown = await refuse(
			p,
			"agent.turn_request",
			{ run_id: "R1", agent_id: "implementer-9", reason_md: "hi" },
			"not_found",
			/^agent implementer-9 not found/,
		);
		expect(unknown.details).toMatchObject({ agent_id: "implementer-9" });
		const typo = await p.fail("agent.turn_request", {
			run_id: "R1",
			agent_id: "implementr-1",
			reason_md: "hi",
		});
		expect(typo.details).toMatchObject({ did_you_mean: A });

		await disableAgent(p, B);
		await refuse(
			p,
			"agent.turn_request",
			{ run_id: "R1", agent_id: B, reason_md: "hi" },
			"failed_precondition",
			`agent ${B} is disabled`,
		);
	});
});

describe("agent.turn_request: what it records", () => {
	test("a new request: the declared output, and agent.turn_requested with the trimmed reason and requested_at", async () => {
		const p = await project();
		const out = await request(p, "R1", A, "\n  **Build is red**, I know why.  \n");
		expect(out).toEqual({
			request_event_id: out.request_event_id,
			agent_id: A,
			queued: true,
			duplicate: false,
			queue_position: 1,
		});
		const [event] = await events(p, { type: "agent.turn_requested" });
		expect(event).toMatchObject({
			id: out.request_event_id,
			run_id: "R1",
			actor_id: A,
			task_id: null,
			payload: { agent_id: A, reason_md: "**Build is red**, I know why." },
		});
		expect(Object.keys(event?.payload ?? {}).sort()).toEqual(["agent_id", "reason_md", "requested_at"]);
		const requestedAt = event?.payload.requested_at as string;
		expect(requestedAt).toMatch(NANO_RFC3339_UTC);
		// The same instant as the event, at the clock's millisecond precision.
		expect(requestedAt.slice(0, 23)).toBe(event?.created_at.slice(0, 23) as string);
		expect(Date.parse(requestedAt)).toBe(Date.parse(event?.created_at ?? ""));
	});

	test("a repeat by the same agent returns the outstanding request: duplicate, same id and position, no event, reason ignored", async () => {
		const p = await project();
		const first = await request(p, "R1", A, "first reason");
		const before = await events(p);
		for (const phase of ["requested", "scheduled", "started"]) {
			if (phase === "scheduled") await chairTick(p, "R1");
			if (phase === "started") await startTurn(p, "R1", A, first.request_event_id);
			const again = await request(p, "R1", A, `another reason while ${phase}`);
			expect(again).toEqual({ ...first, duplicate: true });
		}
		const requested = await events(p, { type: "agent.turn_requested" });
		expect(requested.map((e) => e.payload.reason_md)).toEqual(["first reason"]);
		// Only the tick's schedule and the start were added.
		expect((await events(p)).slice(before.length).map((e) => e.type)).toEqual([
			"agent.turn_scheduled",
			"agent.turn_started",
		]);
	});

	test("once the request completed, the agent may request again: a new event and id", async () => {
		const p = await project();
		const first = await scheduled(p, "R1", A);
		await startTurn(p, "R1", A, first);
		await completeTurn(p, "R1", A, first);
		const second = await request(p, "R1", A, "again");
		expect(second.duplicate).toBe(false);
		expect(second.request_event_id).toBeGreaterThan(first);
		expect(second.queue_position).toBe(1);
		expect((await events(p, { type: "agent.turn_requested" })).length).toBe(2);
	});

	test("requests are per run: one agent may have a request outstanding in each of two runs", async () => {
		const p = await project();
		await addRun(p, "R2");
		const r1 = await request(p, "R1", A);
		const r2 = await request(p, "R2", A);
		expect(r2.duplicate).toBe(false);
		expect(r2.request_event_id).not.toBe(r1.request_event_id);
		expect([r1.queue_position, r2.queue_position]).toEqual([1, 1]);
		const requested = await events(p, { type: "agent.turn_requested" });
		expect(requested.map((e) => e.run_id)).toEqual(["R1", "R2"]);
	});

	test("queue_position counts the run's outstanding requests up to this one, at the time of the call", async () => {
		const p = await project();
		await addRun(p, "R2");
		await request(p, "R2", C); // another run's request never counts
		const a = await request(p, "R1", A);
		const b = await request(p, "R1", B);
		const c = await request(p, "R1", C);
		expect([a, b, c].map((r) => r.queue_position)).toEqual([1, 2, 3]);

		// A holds the floor: scheduled and started still count as outstanding.
		await chairTick(p, "R1");
		expect((await request(p, "R1", C)).queue_position).toBe(3);
		await startTurn(p, "R1", A, a.request_event_id);
		expect((await request(p, "R1", C)).queue_position).toBe(3);

		// A is done: it no longer counts.
		await completeTurn(p, "R1", A, a.request_event_id);
		expect((await request(p, "R1", C)).queue_position).toBe(2);
		expect((await request(p, "R1", B)).queue_position).toBe(1);
		// A's new request goes to the back.
		expect((await request(p, "R1", A)).queue_position).toBe(3);
	});
});

describe("agent.turn_start / agent.turn_complete: the seed's checks, in its order", () => {
	const lifecycle = ["agent.turn_start", "agent.turn_complete"] as const;

	test("request_event_id must be a positive integer (and every argument is required)", async () => {
		const p = await project();
		for (const tool of lifecycle) {
			for (const bad of [0, -1, 1.5, "7", null]) {
				const e = await refuse(
					p,
					tool,
					{ run_id: "R1", agent_id: A, request_event_id: bad },
					"invalid_argument",
					/^argument 'request_event_id' must be a positive integer/,
				);
				expect(e.details).toMatchObject({ field: "request_event_id" });
			}
			await refuse(
				p,
				tool,
				{ run_id: "R1", agent_id: A },
				"invalid_argument",
				"missing required argument 'request_event_id'",
			);
			await refuse(
				p,
				tool,
				{ agent_id: A, request_event_id: 1 },
				"invalid_argument",
				"missing required argument 'run_id'",
			);
		}
	});

	test("an unknown run is not_found; a run that is not active beats an unknown request", async () => {
		const p = await project();
		await addRun(p, "R9");
		await setRunStatus(p, "R9", "completed");
		for (const tool of lifecycle) {
			await refuse(
				p,
				tool,
				{ run_id: "NOPE", agent_id: A, request_event_id: 999 },
				"not_found",
				"run NOPE not found",
			);
			await refuse(
				p,
				tool,
				{ run_id: "R9", agent_id: A, request_event_id: 999 },
				"failed_precondition",
				"run R9 is completed and cannot accept turn lifecycle events",
			);
		}
		// Also for a real request: the run ended after it was made.
		const { request_event_id } = await request(p, "R1", A);
		await chairTick(p, "R1");
		await setRunStatus(p, "R1", "blocked");
		await refuse(
			p,
			"agent.turn_start",
			{ run_id: "R1", agent_id: A, request_event_id },
			"failed_precondition",
			"run R1 is blocked and cannot accept turn lifecycle events",
		);
	});

	test("another agent's request: permission_denied once scheduled, not_found before", async () => {
		const p = await project();
		const a = await request(p, "R1", A);
		await request(p, "R1", B);
		for (const tool of lifecycle) {
			await refuse(
				p,
				tool,
				{ run_id: "R1", agent_id: B, request_event_id: a.request_event_id },
				"not_found",
				"turn request not found for this agent",
			);
		}
		await chairTick(p, "R1"); // A is scheduled
		for (const tool of lifecycle) {
			const e = await refuse(
				p,
				tool,
				{ run_id: "R1", agent_id: B, request_event_id: a.request_event_id },
				"permission_denied",
				"turn request was scheduled for a different agent",
			);
			expect(e.details).toMatchObject({ request_event_id: a.request_event_id, agent_id: A });
		}
		// Even after A finished, a different agent hears "different agent" before "already complete".
		await startTurn(p, "R1", A, a.request_event_id);
		await completeTurn(p, "R1", A, a.request_event_id);
		for (const tool of lifecycle) {
			await refuse(
				p,
				tool,
				{ run_id: "R1", agent_id: B, request_event_id: a.request_event_id },
				"permission_denied",
				"turn request was scheduled for a different agent",
			);
		}
	});

	test("an id that is no turn request of this run is not_found", async () => {
		const p = await project();
		await addRun(p, "R2");
		const other = await request(p, "R2", A);
		await chairTick(p, "R2"); // scheduled there, for A
		const [registered] = await events(p, { type: "agent.registered" });
		for (const tool of lifecycle) {
			for (const id of [other.request_event_id, registered?.id as number, 9_007_199_254_740_991]) {
				await refuse(
					p,
					tool,
					{ run_id: "R1", agent_id: A, request_event_id: id },
					"not_found",
					"turn request not found for this agent",
				);
			}
		}
	});

	test("start: not scheduled, then already started; complete: not started; both: already complete", async () => {
		const p = await project();
		const { request_event_id: id } = await request(p, "R1", A);
		const args = { run_id: "R1", agent_id: A, request_event_id: id };

		await refuse(
			p,
			"agent.turn_start",
			args,
			"failed_precondition",
			"turn request has not been scheduled by the Chair",
		);
		await refuse(p, "agent.turn_complete", args, "failed_precondition", "turn request has not started");

		await chairTick(p, "R1");
		await refuse(p, "agent.turn_complete", args, "failed_precondition", "turn request has not started");

		const started = await startTurn(p, "R1", A, id);
		expect(started.status).toBe("agent.turn_started");
		await refuse(p, "agent.turn_start", args, "failed_precondition", "turn request has already started");

		const completed = await completeTurn(p, "R1", A, id);
		expect(completed.status).toBe("agent.turn_completed");
		for (const tool of lifecycle) {
			await refuse(p, tool, args, "failed_precondition", "turn request is already complete");
		}
	});

	test("outputs and events: the full event record, attributed to the agent, payload {agent_id, request_event_id}", async () => {
		const p = await project();
		const id = await scheduled(p, "R1", A);
		const started = await startTurn(p, "R1", A, id);
		const completed = await completeTurn(p, "R1", A, id);
		const logged = await events(p, { run_id: "R1" });
		for (const [out, type] of [
			[started, "agent.turn_started"],
			[completed, "agent.turn_completed"],
		] as const) {
			expect(out.request_event_id).toBe(id);
			expect(out.status).toBe(type);
			expect(out.event).toMatchObject({
				type,
				actor_id: A,
				run_id: "R1",
				payload: { agent_id: A, request_event_id: id },
			});
			expect(Object.keys(out.event.payload).sort()).toEqual(["agent_id", "request_event_id"]);
			expect(logged.find((e) => e.id === out.event.id)).toEqual(out.event);
		}
		const schedule = logged.find((e) => e.type === "agent.turn_scheduled");
		expect(schedule).toMatchObject({
			actor_id: "chair-1",
			run_id: "R1",
			payload: { agent_id: A, request_event_id: id, reason: `${A} needs a turn`, position: 1 },
		});
	});
});

describe("leases (SPEC §6): a turn that is not started or not completed in time expires", () => {
	test("scheduling and starting each set the lease to now + turns.lease_seconds", async () => {
		const p = await project();
		const clock = manualClock(Date.parse("2030-01-01T00:00:00.000Z"));
		const id = await scheduled(p, "R1", A);
		expect(await turnOf(p, id)).toMatchObject({
			status: "scheduled",
			scheduled_at: "2030-01-01T00:00:00.000Z",
			lease_expires_at: "2030-01-01T00:01:00.000Z",
		});
		clock.advance(30_000);
		await startTurn(p, "R1", A, id);
		expect(await turnOf(p, id)).toMatchObject({
			status: "started",
			started_at: "2030-01-01T00:00:30.000Z",
			lease_expires_at: "2030-01-01T00:01:30.000Z",
		});
		await completeTurn(p, "R1", A, id);
		expect(await turnOf(p, id)).toMatchObject({ status: "completed", lease_expires_at: null });
	});

	test("scheduled, never started: the tick after the lease records agent.turn_expired (phase scheduled) and schedules the next", async () => {
		const p = await project();
		const clock = manualClock();
		const a = await scheduled(p, "R1", A);
		const b = await request(p, "R1", B);

		clock.advance(LEASE_SECONDS * 1000 - 1);
		const early = await chairTick(p, "R1");
		expect(early).toMatchObject({ expired_turns: 0, scheduled: null });

		clock.advance(1);
		const report = await chairTick(p, "R1");
		expect(report).toMatchObject({ expired_turns: 1, scheduled: b.request_event_id });
		const [expired] = await events(p, { type: "agent.turn_expired" });
		expect(expired).toMatchObject({
			actor_id: "chair-1",
			run_id: "R1",
			payload: {
				agent_id: A,
				request_event_id: a,
				phase: "scheduled",
				lease_expires_at: new Date(clock.now()).toISOString(),
			},
		});
		expect((await turnOf(p, a))?.status).toBe("expired");
		// The expiry comes before the next schedule in the log.
		const types = (await events(p, { run_id: "R1" })).map((e) => e.type);
		expect(types.slice(-2)).toEqual(["agent.turn_expired", "agent.turn_scheduled"]);
	});

	test("started, never completed: expires with phase started; the next request is scheduled", async () => {
		const p = await project();
		const clock = manualClock();
		const a = await scheduled(p, "R1", A);
		const b = await request(p, "R1", B);
		clock.advance(10_000);
		await startTurn(p, "R1", A, a);
		// The lease counts from the start, not from the schedule.
		clock.advance(LEASE_SECONDS * 1000 - 1);
		expect((await chairTick(p, "R1")).expired_turns).toBe(0);
		clock.advance(1);
		const report = await chairTick(p, "R1");
		expect(report).toMatchObject({ expired_turns: 1, scheduled: b.request_event_id });
		const [expired] = await events(p, { type: "agent.turn_expired" });
		expect(expired?.payload).toMatchObject({ agent_id: A, request_event_id: a, phase: "started" });
	});

	test("an expired turn cannot be started or completed, whether or not the tick has recorded it yet", async () => {
		const p = await project();
		const clock = manualClock();
		const expiredMessage = /^turn request expired: its lease ran out at \S+; request a new turn$/;

		// Lapsed but not yet swept: refused, and the refusal records nothing.
		const a = await scheduled(p, "R1", A);
		clock.advance(LEASE_SECONDS * 1000);
		await refuse(
			p,
			"agent.turn_start",
			{ run_id: "R1", agent_id: A, request_event_id: a },
			"failed_precondition",
			expiredMessage,
		);
		// Swept.
		await chairTick(p, "R1");
		for (const tool of ["agent.turn_start", "agent.turn_complete"]) {
			const e = await refuse(
				p,
				tool,
				{ run_id: "R1", agent_id: A, request_event_id: a },
				"failed_precondition",
				expiredMessage,
			);
			expect(e.details).toMatchObject({ request_event_id: a });
		}

		// Started, then lapsed: complete is refused before and after the sweep.
		const b = await scheduled(p, "R1", B);
		await startTurn(p, "R1", B, b);
		clock.advance(LEASE_SECONDS * 1000);
		const args = { run_id: "R1", agent_id: B, request_event_id: b };
		await refuse(p, "agent.turn_complete", args, "failed_precondition", expiredMessage);
		await chairTick(p, "R1");
		await refuse(p, "agent.turn_complete", args, "failed_precondition", expiredMessage);
		expect((await events(p, { type: "agent.turn_completed" })).length).toBe(0);
	});

	test("after a late sweep, the refusal still names when the lease ran out, not when the sweep ran", async () => {
		const p = await project();
		const clock = manualClock(Date.parse("2030-01-01T00:00:00.000Z"));
		const a = await scheduled(p, "R1", A);
		const leaseEnd = "2030-01-01T00:01:00.000Z";
		clock.advance(LEASE_SECONDS * 1000 + 5 * 60_000); // the owner was down for a while
		await chairTick(p, "R1");
		const [expired] = await events(p, { type: "agent.turn_expired" });
		expect(expired?.payload.lease_expires_at).toBe(leaseEnd);

		const e = await p.fail("agent.turn_start", { run_id: "R1", agent_id: A, request_event_id: a });
		expect(e.code).toBe("failed_precondition");
		expect(e.message).toBe(`turn request expired: its lease ran out at ${leaseEnd}; request a new turn`);
		expect(e.details).toEqual({ request_event_id: a, lease_expires_at: leaseEnd });
	});

	test("the agent whose turn expired may request again, after the sweep", async () => {
		const p = await project();
		const clock = manualClock();
		const a = await scheduled(p, "R1", A);
		clock.advance(LEASE_SECONDS * 1000);
		await chairTick(p, "R1");
		const again = await request(p, "R1", A);
		expect(again).toMatchObject({ duplicate: false, queue_position: 1 });
		expect(again.request_event_id).toBeGreaterThan(a);
	});

	test("…and before it: the request itself finishes the lapsed turn (agent.turn_expired by system), then queues", async () => {
		const p = await project();
		const clock = manualClock();
		const a = await scheduled(p, "R1", A);
		const b = await request(p, "R1", B);
		clock.advance(LEASE_SECONDS * 1000);

		const before = (await events(p)).length;
		const again = await request(p, "R1", A, "try again");
		expect(again.duplicate).toBe(false);
		expect(again.queue_position).toBe(2); // behind B
		const added = (await events(p)).slice(before);
		expect(added.map((e) => e.type)).toEqual(["agent.turn_expired", "agent.turn_requested"]);
		expect(added[0]).toMatchObject({
			actor_id: "system",
			run_id: "R1",
			payload: { agent_id: A, request_event_id: a, phase: "scheduled" },
		});
		expect(added[1]?.id).toBe(again.request_event_id);

		// The next tick has nothing left to expire and gives B the floor.
		const report = await chairTick(p, "R1");
		expect(report).toMatchObject({ expired_turns: 0, scheduled: b.request_event_id });
		expect((await events(p, { type: "agent.turn_expired" })).length).toBe(1);
	});

	test("one millisecond before its lease ends the turn is still outstanding: a repeat is a duplicate", async () => {
		const p = await project();
		const clock = manualClock();
		const a = await scheduled(p, "R1", A);
		clock.advance(LEASE_SECONDS * 1000 - 1);
		expect(await request(p, "R1", A)).toMatchObject({ request_event_id: a, duplicate: true });
	});

	test("table.watch shows the requester its agent.turn_expired", async () => {
		const p = await project();
		const clock = manualClock();
		const a = await scheduled(p, "R1", A);
		clock.advance(LEASE_SECONDS * 1000);
		await chairTick(p, "R1");
		const watch = (await p.call("table.watch", { run_id: "R1", after_event_id: a })) as {
			events: { type: string; payload: Record<string, unknown> }[];
		};
		expect(watch.events.map((e) => e.type)).toEqual(["agent.turn_scheduled", "agent.turn_expired"]);
		expect(watch.events[1]?.payload).toMatchObject({ agent_id: A, request_event_id: a });
	});

	test("with the real clock: turns.lease_seconds 1, a scheduled turn expires after a second", async () => {
		const p = await makeProject({ config: "turns:\n  lease_seconds: 1\n" });
		await addRun(p, "R1");
		const a = await scheduled(p, "R1", A);
		expect((await chairTick(p, "R1")).expired_turns).toBe(0);
		await Bun.sleep(1_050);
		expect((await chairTick(p, "R1")).expired_turns).toBe(1);
		expect((await turnOf(p, a))?.status).toBe("expired");
	});
});
