// The Chair (reference §10.1–10.3, SPEC §6), ticked in process and through the Coordinator:
// - assignment: open, unassigned tasks of the run (or of no run, which the run adopts) go round-robin
//   to the enabled implementers, disabled ones skipped; the cursor is durable (chair_state), so it
//   carries across ticks, a new runtime and another process; each assignment is a task.assigned event;
// - turns: one scheduled/started turn at a time per run, runs independent of each other; completing
//   a turn makes the next request eligible on the next tick, not inside agent.turn_complete;
// - reviews: pending proposals get review requested; one that fails (a poison record) neither stops the
//   tick nor the other proposals, is reported in the tick report every time and as one chair.error
//   event in all; a missing patch file is no poison at all;
// - convergence, scoped to the run: awaiting_initial_work, pending_agent_turn, work_remains,
//   completed (orchestrator.completed) and blocked (orchestrator.blocked);
// - the Coordinator: health, orchestrator.retry with a doubling delay and degraded health while a
//   run's tick fails, recovery, and the run failed (orchestrator.failed) after 5 failures in a row;
//   run-discovery failures; the loop's start/stop.
// Backoff is waited out by moving bun's system clock, so the failure tests take milliseconds.

import { Database } from "bun:sqlite";
import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Coordinator, MAX_CONSECUTIVE_ERRORS } from "../../src/chair/coordinator.ts";
import type { TickReport } from "../../src/chair/tick.ts";
import { call } from "../../src/dispatch.ts";
import { patchPath } from "../../src/patches.ts";
import { databasePath, openRuntime } from "../../src/runtime.ts";
import type { TaskStatus } from "../../src/vocabulary/statuses.ts";
import {
	chairTick,
	completeTurn,
	events,
	floorOf,
	manualClock,
	request,
	startTurn,
	turnOf,
} from "../_helpers/chair-helpers.ts";
import { addRun, disableAgent, makeProject, type Project, REPO } from "../_helpers/helpers.ts";

afterEach(() => setSystemTime());

const I1 = "implementer-1";
const I2 = "implementer-2";
const I3 = "implementer-3";

async function project(implementers = 2, runs: string[] = ["R1"]): Promise<Project> {
	const p = await makeProject({ config: `agents:\n  implementers: { count: ${implementers} }\n` });
	for (const run of runs) await addRun(p, run);
	return p;
}

async function newTask(
	p: Project,
	id: string,
	fields: { run_id?: string; status?: TaskStatus; assigned_agent_id?: string } = {},
): Promise<string> {
	const { status, ...create } = fields;
	await p.call("task.create", { task_id: id, title: `task ${id}`, body_md: "do it", ...create });
	if (status) await p.call("task.update_status", { task_id: id, status });
	return id;
}

const taskOf = async (p: Project, id: string) =>
	((await p.call("task.get", { task_id: id })) as { task: Record<string, unknown> }).task;

const setStatus = (p: Project, task_id: string, status: TaskStatus) =>
	p.call("task.update_status", { task_id, status });

/** A pending proposal of `agent` on a fresh file, under a write claim (the task must be in scope). */
async function propose(
	p: Project,
	task: string,
	agent: string,
	file: string,
): Promise<{ id: string; sha: string }> {
	writeFileSync(join(p.root, file), "one\n");
	await p.call("resource.claim", {
		resource_type: "file",
		resource_id: `file:${file}`,
		claim_type: "write",
		task_id: task,
		agent_id: agent,
	});
	const { proposal } = (await p.call("proposal.create", {
		task_id: task,
		agent_id: agent,
		title: `change ${file}`,
		summary_md: "why",
		affected_resources: [],
		risk: "normal",
		patch: `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-one\n+two\n`,
	})) as { proposal: { id: string; patch_sha256: string } };
	return { id: proposal.id, sha: proposal.patch_sha256 };
}

const proposalStatus = async (p: Project, id: string) =>
	((await p.call("proposal.get", { proposal_id: id })) as { proposal: { status: string } }).proposal.status;

/** SQL through a second connection, as another process (or a broken disk) would change the file. */
function sql(p: Project, statement: string, ...params: (string | number)[]) {
	const db = new Database(databasePath(p.rt.root, p.rt.config));
	try {
		db.run("PRAGMA busy_timeout = 5000");
		db.query(statement).run(...params);
	} finally {
		db.close();
	}
}

describe("assignment: round-robin over the enabled implementers", () => {
	test("open unassigned tasks go in turn to each enabled implementer; a disabled one is skipped", async () => {
		const p = await project(3);
		await disableAgent(p, I2);
		for (const id of ["T1", "T2", "T3", "T4"]) await newTask(p, id, { run_id: "R1" });

		const report = await chairTick(p, "R1");
		expect(report.assigned).toEqual([
			{ task_id: "T1", agent_id: I1 },
			{ task_id: "T2", agent_id: I3 },
			{ task_id: "T3", agent_id: I1 },
			{ task_id: "T4", agent_id: I3 },
		]);
		for (const { task_id, agent_id } of report.assigned) {
			expect(await taskOf(p, task_id)).toMatchObject({ status: "in_progress", assigned_agent_id: agent_id });
		}
		const assigned = await events(p, { type: "task.assigned" });
		expect(assigned.map((e) => [e.actor_id, e.run_id, e.task_id, e.payload])).toEqual(
			report.assigned.map((a) => [
				"chair-1",
				"R1",
				a.task_id,
				{ task_id: a.task_id, assigned_agent_id: a.agent_id },
			]),
		);
		// Nothing left to assign: the next tick assigns nothing.
		expect((await chairTick(p, "R1")).assigned).toEqual([]);
	});

	test("the cursor carries across ticks: one task a tick goes to implementer-1, -2, then -1 again", async () => {
		const p = await project(2);
		const served: string[] = [];
		for (const id of ["T1", "T2", "T3"]) {
			await newTask(p, id, { run_id: "R1" });
			const [one] = (await chairTick(p, "R1")).assigned;
			served.push(one?.agent_id as string);
		}
		expect(served).toEqual([I1, I2, I1]);
	});

	test("the cursor is durable: a new runtime and then another process continue where the last tick stopped", async () => {
		const p = await project(3);
		await newTask(p, "T1", { run_id: "R1" });
		expect((await chairTick(p, "R1")).assigned).toEqual([{ task_id: "T1", agent_id: I1 }]);
		p.close();

		const rt = openRuntime(p.root);
		try {
			await call(rt, "task.create", { task_id: "T2", title: "t", body_md: "b", run_id: "R1" }, p.ctx);
			const second = await chairTick({ ...p, rt }, "R1");
			expect(second.assigned).toEqual([{ task_id: "T2", agent_id: I2 }]);
			await call(rt, "task.create", { task_id: "T3", title: "t", body_md: "b", run_id: "R1" }, p.ctx);
		} finally {
			rt.close();
		}

		const child = Bun.spawnSync(
			[process.execPath, join(REPO, "test/fixtures-scripts/chair-tick.ts"), p.root, "R1"],
			{
				stderr: "pipe",
			},
		);
		expect(child.stderr.toString()).toBe("");
		expect(child.exitCode).toBe(0);
		const third = JSON.parse(child.stdout.toString()) as TickReport;
		expect(third.assigned).toEqual([{ task_id: "T3", agent_id: I3 }]);
	});

	test("a task of no run is adopted by the run that assigns it; another run's task is left to that run", async () => {
		const p = await project(2, ["R1", "R2"]);
		await newTask(p, "T-free");
		await newTask(p, "T-r2", { run_id: "R2" });

		const r1 = await chairTick(p, "R1");
		expect(r1.assigned.map((a) => a.task_id)).toEqual(["T-free"]);
		expect(await taskOf(p, "T-free")).toMatchObject({ run_id: "R1", status: "in_progress" });
		expect(await taskOf(p, "T-r2")).toMatchObject({ run_id: "R2", status: "open", assigned_agent_id: null });
		const [adopted] = await events(p, { type: "task.assigned" });
		expect(adopted).toMatchObject({ run_id: "R1", task_id: "T-free" });

		expect((await chairTick(p, "R2")).assigned.map((a) => a.task_id)).toEqual(["T-r2"]);
	});

	test("tasks already assigned or not open are left alone; with no enabled implementer nothing is assigned", async () => {
		const p = await project(2);
		await newTask(p, "T-mine", { run_id: "R1", assigned_agent_id: I2 });
		await newTask(p, "T-blocked", { run_id: "R1", status: "blocked" });
		expect((await chairTick(p, "R1")).assigned).toEqual([]);
		expect(await taskOf(p, "T-mine")).toMatchObject({ status: "open", assigned_agent_id: I2 });

		await disableAgent(p, I1);
		await disableAgent(p, I2);
		await newTask(p, "T-open", { run_id: "R1" });
		expect((await chairTick(p, "R1")).assigned).toEqual([]);
		expect(await taskOf(p, "T-open")).toMatchObject({ status: "open", assigned_agent_id: null });
		expect(await events(p, { type: "task.assigned" })).toEqual([]);
	});
});

test("a task row that cannot be read fails the assignment step alone: reported, and the tick goes on", async () => {
	const p = await project();
	await newTask(p, "T-bad", { run_id: "R1" });
	sql(p, "UPDATE tasks SET readable_paths = '{not json' WHERE id = 'T-bad'");
	await p.call("agent.turn_request", { run_id: "R1", agent_id: I1, reason_md: "mine" });
	const report = await chairTick(p, "R1");
	expect(report.errors).toEqual([{ step: "assign_tasks", subject: "R1", message: expect.any(String) }]);
	expect(report.scheduled).not.toBeNull(); // the later steps still ran
	expect(report.convergence).toBe("pending_agent_turn");
	expect((await events(p, { type: "chair.error" })).map((e) => e.payload.step)).toEqual(["assign_tasks"]);
});

describe("turn scheduling", () => {
	test("one turn at a time per run: while the first holds the floor, ticks schedule nothing", async () => {
		const p = await project();
		const a = await request(p, "R1", I1);
		const b = await request(p, "R1", I2);
		expect((await chairTick(p, "R1")).scheduled).toBe(a.request_event_id);
		expect((await chairTick(p, "R1")).scheduled).toBeNull();
		await startTurn(p, "R1", I1, a.request_event_id);
		expect((await chairTick(p, "R1")).scheduled).toBeNull();
		expect((await turnOf(p, b.request_event_id))?.status).toBe("requested");
		expect((await events(p, { type: "agent.turn_scheduled" })).length).toBe(1);
	});

	test("runs are independent: each run gets its own scheduled turn, even for the same agent", async () => {
		const p = await project(2, ["R1", "R2"]);
		const r1 = await request(p, "R1", I1);
		const r2a = await request(p, "R2", I1);
		await request(p, "R2", I2);
		expect((await chairTick(p, "R1")).scheduled).toBe(r1.request_event_id);
		expect((await chairTick(p, "R2")).scheduled).toBe(r2a.request_event_id);
		expect((await floorOf(p, "R1")).map((t) => t.request_event_id)).toEqual([r1.request_event_id]);
		expect((await floorOf(p, "R2")).map((t) => t.request_event_id)).toEqual([r2a.request_event_id]);
		const scheduled = await events(p, { type: "agent.turn_scheduled" });
		expect(scheduled.map((e) => [e.run_id, e.payload.request_event_id])).toEqual([
			["R1", r1.request_event_id],
			["R2", r2a.request_event_id],
		]);
	});

	test("completing a turn makes the next request eligible on the next tick, not inside agent.turn_complete", async () => {
		const p = await project();
		const a = await request(p, "R1", I1);
		const b = await request(p, "R1", I2);
		await chairTick(p, "R1");
		await startTurn(p, "R1", I1, a.request_event_id);
		await completeTurn(p, "R1", I1, a.request_event_id);

		expect((await turnOf(p, b.request_event_id))?.status).toBe("requested");
		expect(await floorOf(p, "R1")).toEqual([]);
		expect(
			(await events(p, { type: "agent.turn_scheduled" })).map((e) => e.payload.request_event_id),
		).toEqual([a.request_event_id]);

		expect((await chairTick(p, "R1")).scheduled).toBe(b.request_event_id);
	});
});

describe("review requests for pending proposals", () => {
	test("the tick sends every pending proposal of the run to review: in_review, proposal.review_requested", async () => {
		const p = await project();
		await newTask(p, "T1", { run_id: "R1" });
		const one = await propose(p, "T1", I1, "a.txt");
		const two = await propose(p, "T1", I1, "b.txt");
		const report = await chairTick(p, "R1");
		expect(report.reviews_requested).toEqual([one.id, two.id]);
		expect(report.errors).toEqual([]);
		expect(await proposalStatus(p, one.id)).toBe("in_review");
		const requested = await events(p, { type: "proposal.review_requested" });
		expect(requested.map((e) => [e.actor_id, e.payload.proposal_id])).toEqual([
			["chair-1", one.id],
			["chair-1", two.id],
		]);
		expect((await chairTick(p, "R1")).reviews_requested).toEqual([]);
	});

	test("a proposal whose stored patch file is gone is no poison: review is still requested", async () => {
		const p = await project();
		await newTask(p, "T1", { run_id: "R1" });
		const gone = await propose(p, "T1", I1, "a.txt");
		const { rmSync } = await import("node:fs");
		rmSync(patchPath(p.root, gone.sha));
		const report = await chairTick(p, "R1");
		expect(report).toMatchObject({ reviews_requested: [gone.id], errors: [] });
		expect(await proposalStatus(p, gone.id)).toBe("in_review");
	});

	test("a policy that does not load fails each pending proposal alone, with its error; the rest of the tick goes on", async () => {
		const p = await project();
		await newTask(p, "T1", { run_id: "R1" });
		const one = await propose(p, "T1", I1, "a.txt");
		const two = await propose(p, "T1", I1, "b.txt");
		writeFileSync(join(p.root, "POLICIES.ROUNDTABLE.md"), "```yaml\nrisk: [\n");
		const turn = await request(p, "R1", I2);
		const report = await chairTick(p, "R1");
		expect(report.reviews_requested).toEqual([]);
		expect(report.errors.map((e) => [e.step, e.subject])).toEqual([
			["request_review", one.id],
			["request_review", two.id],
		]);
		expect(report.scheduled).toBe(turn.request_event_id);
		const reported = await events(p, { type: "chair.error" });
		expect(reported.map((e) => [e.payload.subject, e.payload.code])).toEqual([
			[one.id, "failed_precondition"],
			[two.id, "failed_precondition"],
		]);
		expect(await proposalStatus(p, one.id)).toBe("pending");
	});

	test("a poison proposal neither stops the tick nor the others: reported every tick, one chair.error in all", async () => {
		const p = await project();
		await newTask(p, "T1", { run_id: "R1" });
		const poison = await propose(p, "T1", I1, "a.txt"); // first in line
		const healthy = await propose(p, "T1", I2, "b.txt");
		// Its stored security review is unreadable (findings are not JSON): request_review fails on it.
		const now = new Date().toISOString();
		sql(
			p,
			`INSERT INTO security_reviews (id, proposal_id, reviewer_id, status, mode, summary_md, findings, patch_revision, created_at, updated_at)
			 VALUES ('SR-corrupt', ?, 'security-1', 'approved', 'manual', 'ok', '{not json', 1, ?, ?)`,
			poison.id,
			now,
			now,
		);
		const turn = await request(p, "R1", I1);

		const reported = new Set<string>();
		const log: string[] = [];
		const first = await chairTick(p, "R1", { reported, log });
		// The rest of the tick went on: the other proposal, the turn, convergence.
		expect(first.reviews_requested).toEqual([healthy.id]);
		expect(first.scheduled).toBe(turn.request_event_id);
		expect(first.convergence).toBe("pending_agent_turn");
		expect(first.errors).toEqual([
			{ step: "request_review", subject: poison.id, message: expect.any(String) },
		]);
		expect(await proposalStatus(p, healthy.id)).toBe("in_review");
		expect(await proposalStatus(p, poison.id)).toBe("pending");

		for (let i = 0; i < 3; i++) {
			const again = await chairTick(p, "R1", { reported, log });
			expect(again.errors).toEqual(first.errors);
			expect(again.run.ticks).toBe(2 + i);
		}
		const errors = await events(p, { type: "chair.error" });
		expect(errors.length).toBe(1);
		expect(errors[0]).toMatchObject({
			actor_id: "chair-1",
			run_id: "R1",
			payload: {
				step: "request_review",
				subject: poison.id,
				code: "internal",
				message: first.errors[0]?.message,
			},
		});
		expect(log.length).toBe(1);
		expect(log[0]).toContain(`run R1: request_review ${poison.id} failed:`);

		// The Coordinator keeps such a set for its whole life: several cycles, no further chair.error.
		const coordinator = new Coordinator(p.rt, { intervalMs: 1000, log: () => {} });
		for (let i = 0; i < 3; i++) await coordinator.cycle();
		expect((await events(p, { type: "chair.error" })).length).toBe(2); // its own first report, then none
		expect(coordinator.health()).toBe("ready");
	});
});

describe("convergence, scoped to the run", () => {
	test("awaiting_initial_work: nothing to do yet; the run stays active and counts the tick", async () => {
		const p = await project();
		const report = await chairTick(p, "R1");
		expect(report.convergence).toBe("awaiting_initial_work");
		expect(report.run).toMatchObject({
			status: "active",
			ticks: 1,
			convergence: "awaiting_initial_work",
			ended_at: null,
		});
	});

	test("pending_agent_turn: an outstanding turn keeps a run open even when all its work is done", async () => {
		const p = await project();
		await newTask(p, "T1", { run_id: "R1", status: "done" });
		const a = await request(p, "R1", I1);
		expect((await chairTick(p, "R1")).convergence).toBe("pending_agent_turn");
		await startTurn(p, "R1", I1, a.request_event_id);
		expect((await chairTick(p, "R1")).convergence).toBe("pending_agent_turn");
		await completeTurn(p, "R1", I1, a.request_event_id);
		expect((await chairTick(p, "R1")).run.status).toBe("completed");
	});

	test("work_remains while a task or proposal is active; completed once all are terminal", async () => {
		const p = await project();
		await newTask(p, "T1", { run_id: "R1" });
		const first = await chairTick(p, "R1"); // assigns T1: in_progress
		expect(first.convergence).toBe("work_remains");

		const { id } = await propose(p, "T1", I1, "a.txt");
		await setStatus(p, "T1", "done");
		const second = await chairTick(p, "R1"); // the proposal is in review
		expect(second.convergence).toBe("work_remains");
		expect(second.run.status).toBe("active");

		await p.call("proposal.withdraw", { proposal_id: id, agent_id: I1 });
		const third = await chairTick(p, "R1");
		expect(third.convergence).toBe("all_tasks_and_proposals_terminal");
		expect(third.run).toMatchObject({ status: "completed", ticks: 3 });
		expect(third.run.ended_at).toEqual(expect.any(String));
		const [completed] = await events(p, { type: "orchestrator.completed" });
		expect(completed).toMatchObject({
			actor_id: "chair-1",
			run_id: "R1",
			payload: { iterations: 3, reason: "all_tasks_and_proposals_terminal" },
		});

		// An ended run no longer converges: a further tick reports it and records nothing.
		const after = await chairTick(p, "R1");
		expect(after.convergence).toBe("run_not_active");
		expect(after.run.ticks).toBe(3);
		expect((await events(p, { type: "orchestrator.completed" })).length).toBe(1);
	});

	test("blocked: only blocked tasks remain (others terminal) → run blocked, orchestrator.blocked", async () => {
		const p = await project();
		await newTask(p, "T1", { run_id: "R1", status: "blocked" });
		await newTask(p, "T2", { run_id: "R1", status: "cancelled" });
		const report = await chairTick(p, "R1");
		expect(report.convergence).toBe("all_remaining_tasks_blocked");
		expect(report.run).toMatchObject({ status: "blocked", ticks: 1 });
		expect(report.run.ended_at).toEqual(expect.any(String));
		const [blocked] = await events(p, { type: "orchestrator.blocked" });
		expect(blocked).toMatchObject({
			actor_id: "chair-1",
			run_id: "R1",
			payload: { iterations: 1, reason: "all_remaining_tasks_blocked" },
		});
		expect(await events(p, { type: "orchestrator.completed" })).toEqual([]);
	});

	test("another run's open work does not keep this run open", async () => {
		const p = await project(2, ["R1", "R2"]);
		await newTask(p, "T1", { run_id: "R1", status: "done" });
		await newTask(p, "T2", { run_id: "R2", status: "in_progress" });
		await newTask(p, "T3", { run_id: "R2", status: "blocked" });
		expect((await chairTick(p, "R1")).run.status).toBe("completed");
		const r2 = await chairTick(p, "R2");
		expect(r2).toMatchObject({ convergence: "work_remains", run: { status: "active" } });
	});
});

describe("the Coordinator", () => {
	const coordinator = (p: Project, log: string[] = [], reports: TickReport[] = []) =>
		new Coordinator(p.rt, { intervalMs: 10, log: (l) => log.push(l), onTick: (r) => reports.push(r) });

	test("health: healthy-idle with no active run, ready with one; each cycle ticks every active run", async () => {
		const p = await project(2, []);
		const reports: TickReport[] = [];
		const c = coordinator(p, [], reports);
		expect(c.health()).toBe("healthy-idle");
		await c.cycle();
		expect(c.health()).toBe("healthy-idle");
		expect(reports).toEqual([]);

		await addRun(p, "R1");
		await addRun(p, "R2");
		await addRun(p, "R-done", "completed"); // not active: never ticked
		await c.cycle();
		expect(c.health()).toBe("ready");
		expect(reports.map((r) => r.run_id).sort()).toEqual(["R1", "R2"]);
	});

	test("a failing tick: orchestrator.retry with a doubling delay and degraded health, then the run fails after 5", async () => {
		const p = await project();
		await addRun(p, "R2");
		const clock = manualClock();
		const log: string[] = [];
		const c = coordinator(p, log);
		await c.cycle();
		expect(c.health()).toBe("ready");

		// Every tick now fails: the turns table is gone.
		sql(p, "ALTER TABLE turns RENAME TO turns_hidden");
		const delays: number[] = [];
		for (let attempt = 1; attempt < MAX_CONSECUTIVE_ERRORS; attempt++) {
			await c.cycle();
			expect(c.health()).toBe("degraded");
			const retries = await events(p, { run_id: "R1", type: "orchestrator.retry" });
			expect(retries.length).toBe(attempt);
			const last = retries.at(-1);
			expect(last).toMatchObject({
				actor_id: "chair-1",
				payload: { iteration: 2, attempt, max_attempts: MAX_CONSECUTIVE_ERRORS },
			});
			expect(last?.payload.error).toContain("no such table: turns");
			delays.push(last?.payload.next_retry_delay_ms as number);

			// Inside the backoff the run is not ticked again.
			clock.advance((delays.at(-1) as number) - 1);
			await c.cycle();
			expect((await events(p, { run_id: "R1", type: "orchestrator.retry" })).length).toBe(attempt);
			clock.advance(1);
		}
		expect(delays).toEqual([1000, 2000, 4000, 8000]);
		expect(log.some((l) => l.includes("run R1 tick failed; retry in 1s"))).toBe(true);

		await c.cycle(); // the fifth failure in a row
		const [failed] = await events(p, { run_id: "R1", type: "orchestrator.failed" });
		expect(failed).toMatchObject({ actor_id: "chair-1", payload: { iterations: 1 } });
		expect(failed?.payload.error).toContain("no such table: turns");
		const run = await p.rt.store.withTransaction("read", (tx) => tx.runs.get("R1"));
		expect(run).toMatchObject({ status: "failed" });
		expect(run?.ended_at).toEqual(expect.any(String));
		expect(
			log.some((l) => l.includes(`run R1 failed after ${MAX_CONSECUTIVE_ERRORS} consecutive tick errors`)),
		).toBe(true);
		// R2 failed the same way, in step.
		expect((await events(p, { run_id: "R2", type: "orchestrator.failed" })).length).toBe(1);

		// Failed runs are not active: nothing left to tick.
		sql(p, "ALTER TABLE turns_hidden RENAME TO turns");
		await c.cycle();
		expect(c.health()).toBe("healthy-idle");
		expect((await events(p, { type: "orchestrator.retry" })).length).toBe(2 * (MAX_CONSECUTIVE_ERRORS - 1));
	});

	test("recovery: the first good tick after failures clears the retry; a later failure starts again at attempt 1", async () => {
		const p = await project();
		const clock = manualClock();
		const log: string[] = [];
		const c = coordinator(p, log);

		sql(p, "ALTER TABLE turns RENAME TO turns_hidden");
		await c.cycle();
		clock.advance(1000);
		await c.cycle();
		expect(c.health()).toBe("degraded");

		sql(p, "ALTER TABLE turns_hidden RENAME TO turns");
		clock.advance(2000);
		await c.cycle();
		expect(c.health()).toBe("ready");
		expect(log.at(-1)).toBe("roundtable chair: run R1 tick recovered");

		sql(p, "ALTER TABLE turns RENAME TO turns_hidden");
		await c.cycle();
		const retries = await events(p, { type: "orchestrator.retry" });
		expect(retries.map((e) => e.payload.attempt)).toEqual([1, 2, 1]);
		expect(retries.at(-1)?.payload.next_retry_delay_ms).toBe(1000);
		sql(p, "ALTER TABLE turns_hidden RENAME TO turns");
	});

	test("one run's failing tick does not hold up the others", async () => {
		const p = await project(2, ["R1", "R2"]);
		manualClock();
		const reports: TickReport[] = [];
		const c = coordinator(p, [], reports);
		// R1 holds a proposal whose stored row cannot be read back: its review step reports it. And its
		// tick cannot be counted (the database refuses it), so its convergence throws; R2's tick goes on.
		await newTask(p, "T-bad", { run_id: "R1" });
		const bad = await propose(p, "T-bad", I1, "bad.txt");
		sql(p, `UPDATE proposals SET expected_tests = '{not json' WHERE id = '${bad.id}'`);
		sql(
			p,
			"CREATE TRIGGER r1_cannot_tick BEFORE UPDATE OF ticks ON runs WHEN OLD.id = 'R1' BEGIN SELECT RAISE(ABORT, 'R1 cannot tick'); END",
		);
		await c.cycle();
		expect(reports.map((r) => r.run_id)).toEqual(["R2"]);
		// (read straight from the store: table.watch itself lists pending proposals, the bad one too)
		const r1 = await p.rt.store.withTransaction("read", (tx) => tx.events.after(0, "R1", 1000));
		expect(r1.filter((e) => e.type === "chair.error").map((e) => e.payload.step)).toContain(
			"request_reviews",
		);
		expect(c.health()).toBe("degraded");
		expect(r1.filter((e) => e.type === "orchestrator.retry").length).toBe(1);
		const r2 = await p.rt.store.withTransaction("read", (tx) => tx.events.after(0, "R2", 1000));
		expect(r2.filter((e) => e.type === "orchestrator.retry")).toEqual([]);
	});

	test("run discovery failing: degraded and one log line until it recovers", async () => {
		const p = await project();
		const log: string[] = [];
		const c = coordinator(p, log);
		sql(p, "ALTER TABLE runs RENAME TO runs_hidden");
		try {
			await c.cycle();
			await c.cycle();
			expect(c.health()).toBe("degraded");
			expect(log.filter((l) => l.includes("run discovery failed; retrying")).length).toBe(1);
		} finally {
			sql(p, "ALTER TABLE runs_hidden RENAME TO runs");
		}
		await c.cycle();
		expect(c.health()).toBe("ready");
		expect(log.at(-1)).toBe("roundtable chair: run discovery recovered");
	});

	test("start() ticks now and then every interval; stop() ends the loop", async () => {
		const p = await project();
		const reports: TickReport[] = [];
		const c = coordinator(p, [], reports);
		c.start();
		const deadline = Date.now() + 5000;
		while (reports.length < 3 && Date.now() < deadline) await Bun.sleep(5);
		await c.stop();
		expect(reports.length).toBeGreaterThanOrEqual(3);
		const after = reports.length;
		await Bun.sleep(50);
		expect(reports.length).toBe(after);
		const run = await p.rt.store.withTransaction("read", (tx) => tx.runs.get("R1"));
		expect(run?.ticks).toBe(after);
	});
});
