// task.create, task.get, task.list and task.update_status through the real dispatcher and a real
// SQLite database: outputs, error codes and details, events, and that failures leave nothing behind.
import { describe, expect, test } from "bun:test";
import type { EventRecord, TaskRecord } from "../../src/vocabulary/records.ts";
import {
	addRun,
	allEvents,
	disableAgent,
	expectDeclaredOutput,
	makeProject,
	type Project,
	RFC3339_MS_UTC,
	UUID7,
} from "../_helpers/helpers.ts";

const TASK_ID = new RegExp(`^T-${UUID7}$`);

async function create(p: Project, args: Record<string, unknown>): Promise<TaskRecord> {
	const out = await p.call("task.create", { title: "A task", body_md: "Do it.", ...args });
	expectDeclaredOutput("task.create", out);
	return out.task as TaskRecord;
}

async function update(p: Project, args: Record<string, unknown>): Promise<TaskRecord> {
	const out = await p.call("task.update_status", args);
	expectDeclaredOutput("task.update_status", out);
	return out.task as TaskRecord;
}

async function list(p: Project, args: Record<string, unknown> = {}) {
	const out = await p.call("task.list", args);
	expectDeclaredOutput("task.list", out);
	return out as unknown as { tasks: TaskRecord[]; next_cursor: string | null };
}

async function getTask(p: Project, id: string): Promise<TaskRecord> {
	const out = await p.call("task.get", { task_id: id });
	expectDeclaredOutput("task.get", out);
	return out.task as TaskRecord;
}

async function taskCount(p: Project): Promise<number> {
	const state = await p.call("table.get_state");
	return (state.tasks as unknown[]).length;
}

const events = async (p: Project) => (await allEvents(p)) as unknown as EventRecord[];
const eventsOfType = async (p: Project, t: string) => (await events(p)).filter((e) => e.type === t);

/** Runs `fn`, which must fail, and checks that it added no task and no event. */
async function expectNoEffect(p: Project, fn: () => Promise<unknown>) {
	const tasksBefore = await taskCount(p);
	const eventsBefore = (await events(p)).length;
	await fn();
	expect(await taskCount(p)).toBe(tasksBefore);
	expect((await events(p)).length).toBe(eventsBefore);
}

describe("task.create", () => {
	test("applies the documented defaults and mints a T- id with RFC 3339 timestamps", async () => {
		const p = await makeProject();
		const before = Date.now();
		const task = await create(p, { title: "Write docs", body_md: "All of them." });
		const after = Date.now();

		expect(task.id).toMatch(TASK_ID);
		expect(task).toMatchObject({
			title: "Write docs",
			body_md: "All of them.",
			status: "open",
			priority: 100,
			risk: "normal",
			assigned_agent_id: null,
			run_id: null,
			readable_paths: [],
			revision: 1,
		});
		expect(task.created_at).toMatch(RFC3339_MS_UTC);
		expect(task.updated_at).toBe(task.created_at);
		const created = Date.parse(task.created_at);
		expect(created).toBeGreaterThanOrEqual(before);
		expect(created).toBeLessThanOrEqual(after);
	});

	test("minted ids are unique and time-ordered", async () => {
		const p = await makeProject();
		const ids: string[] = [];
		for (let i = 0; i < 5; i++) ids.push((await create(p, {})).id);
		expect(new Set(ids).size).toBe(5);
		expect([...ids].sort()).toEqual(ids);
	});

	test("stores every optional field the caller gives", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-a");
		const task = await create(p, {
			task_id: "T-custom.1:x",
			priority: -5,
			risk: "high",
			assigned_agent_id: "implementer-2",
			run_id: "RUN-a",
			readable_paths: ["src/**", "docs/guide.md"],
		});
		expect(task).toMatchObject({
			id: "T-custom.1:x",
			priority: -5,
			risk: "high",
			assigned_agent_id: "implementer-2",
			run_id: "RUN-a",
			readable_paths: ["src/**", "docs/guide.md"],
		});
		expect(await getTask(p, "T-custom.1:x")).toEqual(task);
	});

	test("a task_id already in use is already_exists and the first task is untouched", async () => {
		const p = await makeProject();
		const first = await create(p, { task_id: "dup", title: "First" });
		let err: Awaited<ReturnType<Project["fail"]>> | undefined;
		await expectNoEffect(p, async () => {
			err = await p.fail("task.create", { task_id: "dup", title: "Second", body_md: "Overwrite?" });
		});
		expect(err?.code).toBe("already_exists");
		expect(err?.message).toBe("task dup already exists");
		expect(err?.details).toEqual({ task_id: "dup" });
		expect(await getTask(p, "dup")).toEqual(first);
	});

	test("an unknown assignee is not_found with the nearest agent id", async () => {
		const p = await makeProject();
		let err: Awaited<ReturnType<Project["fail"]>> | undefined;
		await expectNoEffect(p, async () => {
			err = await p.fail("task.create", { title: "t", body_md: "b", assigned_agent_id: "implementr-1" });
		});
		expect(err?.code).toBe("not_found");
		expect(err?.message).toBe("agent implementr-1 not found (did you mean 'implementer-1'?)");
		expect(err?.details).toEqual({
			field: "assigned_agent_id",
			agent_id: "implementr-1",
			did_you_mean: "implementer-1",
		});
	});

	test("an assignee nothing resembles is not_found without a suggestion", async () => {
		const p = await makeProject();
		const err = await p.fail("task.create", { title: "t", body_md: "b", assigned_agent_id: "zzzzzzzzzzzz" });
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("agent zzzzzzzzzzzz not found");
		expect(err.details?.did_you_mean).toBeUndefined();
	});

	test("a disabled assignee is failed_precondition and nothing is written", async () => {
		const p = await makeProject();
		await disableAgent(p, "reviewer-1");
		let err: Awaited<ReturnType<Project["fail"]>> | undefined;
		await expectNoEffect(p, async () => {
			err = await p.fail("task.create", { title: "t", body_md: "b", assigned_agent_id: "reviewer-1" });
		});
		expect(err?.code).toBe("failed_precondition");
		expect(err?.message).toBe("agent reviewer-1 is disabled");
		expect(err?.details).toEqual({ field: "assigned_agent_id", agent_id: "reviewer-1" });
	});

	test("a run_id naming no run is not_found and nothing is written", async () => {
		const p = await makeProject();
		let err: Awaited<ReturnType<Project["fail"]>> | undefined;
		await expectNoEffect(p, async () => {
			err = await p.fail("task.create", { title: "t", body_md: "b", run_id: "RUN-missing" });
		});
		expect(err?.code).toBe("not_found");
		expect(err?.message).toBe("run RUN-missing not found");
		expect(err?.details).toEqual({ run_id: "RUN-missing" });
	});

	test("readable_paths are stored normalized", async () => {
		const p = await makeProject();
		const task = await create(p, { readable_paths: ["./src/**", "  docs/a.md ", "././lib/x.ts"] });
		expect(task.readable_paths).toEqual(["src/**", "docs/a.md", "lib/x.ts"]);
		expect((await getTask(p, task.id)).readable_paths).toEqual(["src/**", "docs/a.md", "lib/x.ts"]);
	});

	test("readable_paths reaching credentials or leaving the repository are refused, naming the entry", async () => {
		const p = await makeProject();
		const cases: [string, string][] = [
			[".env", "credentials or configuration"],
			["config/.ssh/id_rsa", "credentials or configuration"],
			[".roundtable/config.yaml", "credentials or configuration"],
			["../outside", "leaves the repository"],
			["/etc/passwd", "relative to the repository root"],
			["src\\win", "forward slashes"],
			[".", "name a path or glob"],
		];
		for (const [path, why] of cases) {
			let err: Awaited<ReturnType<Project["fail"]>> | undefined;
			await expectNoEffect(p, async () => {
				err = await p.fail("task.create", { title: "t", body_md: "b", readable_paths: ["src/ok.ts", path] });
			});
			expect(err?.code).toBe("invalid_argument");
			expect(err?.details).toEqual({ field: "readable_paths[1]" });
			expect(err?.message).toContain(`readable_paths[1] '${path}' is refused`);
			expect(err?.message).toContain(why);
		}
	});

	test("appends task.created by the operator with the task's fields", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-ev");
		const task = await create(p, {
			title: "Evented",
			priority: 7,
			risk: "low",
			assigned_agent_id: "implementer-1",
			run_id: "RUN-ev",
			readable_paths: ["src/**"],
		});
		const created = await eventsOfType(p, "task.created");
		expect(created).toHaveLength(1);
		const ev = created[0] as EventRecord;
		expect(ev.actor_id).toBe("operator");
		expect(ev.task_id).toBe(task.id);
		expect(ev.run_id).toBe("RUN-ev");
		expect(ev.created_at).toBe(task.created_at);
		expect(ev.payload).toEqual({
			task_id: task.id,
			title: "Evented",
			status: "open",
			priority: 7,
			risk: "low",
			assigned_agent_id: "implementer-1",
			readable_paths: ["src/**"],
		});
	});

	test("an invalid risk is invalid_argument with a suggestion", async () => {
		const p = await makeProject();
		const err = await p.fail("task.create", { title: "t", body_md: "b", risk: "hihg" });
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toEqual({ field: "risk", did_you_mean: "high" });
		expect(err.message).toContain("(did you mean 'high'?)");
	});
});

describe("task.get", () => {
	test("returns the stored task", async () => {
		const p = await makeProject();
		const task = await create(p, { title: "Fetch me" });
		expect(await getTask(p, task.id)).toEqual(task);
	});

	test("an unknown id is not_found naming the task", async () => {
		const p = await makeProject();
		const err = await p.fail("task.get", { task_id: "T-nope" });
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("task T-nope not found");
		expect(err.details).toEqual({ task_id: "T-nope" });
	});
});

describe("task.list", () => {
	test("an empty table lists [] with next_cursor null", async () => {
		const p = await makeProject();
		expect(await list(p)).toEqual({ tasks: [], next_cursor: null });
	});

	test("orders by priority, then created_at, then id", async () => {
		const p = await makeProject();
		await create(p, { task_id: "c", priority: 50 });
		await Bun.sleep(3);
		await create(p, { task_id: "a", priority: 50 });
		await create(p, { task_id: "z", priority: 10 });
		await create(p, { task_id: "m", priority: 200 });
		const { tasks } = await list(p);
		// c and a share a priority: c was created first, so it comes first despite its id.
		expect(tasks.map((t) => t.id)).toEqual(["z", "c", "a", "m"]);
	});

	test("tasks created in the same millisecond are ordered by id", async () => {
		const p = await makeProject();
		// One transaction gives both the same created_at.
		const now = new Date().toISOString();
		await p.rt.store.withTransaction("write", async (tx) => {
			for (const id of ["same-b", "same-a"]) {
				await tx.tasks.insert(
					{
						id,
						run_id: null,
						title: id,
						body_md: "b",
						status: "open",
						priority: 1,
						risk: "normal",
						assigned_agent_id: null,
						readable_paths: [],
					},
					now,
				);
			}
		});
		expect((await list(p)).tasks.map((t) => t.id)).toEqual(["same-a", "same-b"]);
	});

	test("filters by status, assignee and run, and combines them", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-1");
		await addRun(p, "RUN-2");
		await create(p, { task_id: "t1", assigned_agent_id: "implementer-1", run_id: "RUN-1" });
		await create(p, { task_id: "t2", assigned_agent_id: "implementer-2", run_id: "RUN-1" });
		await create(p, { task_id: "t3", assigned_agent_id: "implementer-1", run_id: "RUN-2" });
		await create(p, { task_id: "t4" });
		await update(p, { task_id: "t1", status: "in_progress" });
		await update(p, { task_id: "t3", status: "in_progress" });

		const ids = async (args: Record<string, unknown>) => (await list(p, args)).tasks.map((t) => t.id).sort();
		expect(await ids({ status: "in_progress" })).toEqual(["t1", "t3"]);
		expect(await ids({ status: "open" })).toEqual(["t2", "t4"]);
		expect(await ids({ status: "done" })).toEqual([]);
		expect(await ids({ assigned_agent_id: "implementer-1" })).toEqual(["t1", "t3"]);
		expect(await ids({ run_id: "RUN-1" })).toEqual(["t1", "t2"]);
		expect(await ids({ run_id: "RUN-1", status: "in_progress" })).toEqual(["t1"]);
		expect(await ids({ assigned_agent_id: "implementer-1", run_id: "RUN-2", status: "open" })).toEqual([]);
		expect(await ids({ assigned_agent_id: "nobody" })).toEqual([]);
	});

	test("returns at most 200 tasks by default", async () => {
		const p = await makeProject();
		const now = new Date().toISOString();
		await p.rt.store.withTransaction("write", async (tx) => {
			for (let i = 0; i < 205; i++) {
				await tx.tasks.insert(
					{
						id: `bulk-${String(i).padStart(3, "0")}`,
						run_id: null,
						title: `t${i}`,
						body_md: "b",
						status: "open",
						priority: 100,
						risk: "normal",
						assigned_agent_id: null,
						readable_paths: [],
					},
					now,
				);
			}
		});
		const first = await list(p);
		expect(first.tasks).toHaveLength(200);
		expect(first.tasks[0]?.id).toBe("bulk-000");
		expect(first.next_cursor).toEqual(expect.any(String));
		const rest = await list(p, { cursor: first.next_cursor });
		expect(rest.tasks.map((t) => t.id)).toEqual(["bulk-200", "bulk-201", "bulk-202", "bulk-203", "bulk-204"]);
		expect(rest.next_cursor).toBeNull();
	});

	test("paging with limit and cursor sees every task exactly once, in order", async () => {
		const p = await makeProject();
		const priorities = [5, 3, 5, 1, 9, 3, 3, 7, 1, 5, 2, 8, 3];
		for (const [i, priority] of priorities.entries()) await create(p, { title: `task ${i}`, priority });
		const all = (await list(p)).tasks;
		expect(all).toHaveLength(priorities.length);

		for (const limit of [1, 3, 4, 13]) {
			const seen: string[] = [];
			let cursor: string | null = null;
			let pages = 0;
			do {
				const page: { tasks: TaskRecord[]; next_cursor: string | null } = await list(p, {
					limit,
					...(cursor !== null && { cursor }),
				});
				expect(page.tasks.length).toBeLessThanOrEqual(limit);
				seen.push(...page.tasks.map((t) => t.id));
				cursor = page.next_cursor;
				pages++;
				if (pages > 50) throw new Error("paging did not end");
			} while (cursor !== null);
			expect(seen).toEqual(all.map((t) => t.id));
			expect(pages).toBe(Math.ceil(priorities.length / limit));
		}
	});

	test("paging composes with a filter", async () => {
		const p = await makeProject();
		for (let i = 0; i < 7; i++) await create(p, { task_id: `f${i}`, priority: 10 - i });
		for (const id of ["f1", "f3", "f4", "f6"]) await update(p, { task_id: id, status: "blocked" });
		const seen: string[] = [];
		let page = await list(p, { status: "blocked", limit: 3 });
		seen.push(...page.tasks.map((t) => t.id));
		expect(page.next_cursor).not.toBeNull();
		page = await list(p, { status: "blocked", limit: 3, cursor: page.next_cursor });
		seen.push(...page.tasks.map((t) => t.id));
		expect(page.next_cursor).toBeNull();
		expect(seen).toEqual(["f6", "f4", "f3", "f1"]);
	});

	test("the last full page has next_cursor null when nothing follows", async () => {
		const p = await makeProject();
		for (let i = 0; i < 4; i++) await create(p, {});
		const first = await list(p, { limit: 2 });
		expect(first.next_cursor).not.toBeNull();
		const second = await list(p, { limit: 2, cursor: first.next_cursor });
		expect(second.tasks).toHaveLength(2);
		expect(second.next_cursor).toBeNull();
		expect((await list(p, { limit: 4 })).next_cursor).toBeNull();
	});

	test("a cursor this tool did not return is invalid_argument on field cursor", async () => {
		const p = await makeProject();
		await create(p, {});
		const forged = [
			"garbage",
			"!!!",
			Buffer.from("[]").toString("base64url"),
			Buffer.from("null").toString("base64url"),
			Buffer.from("42").toString("base64url"),
			Buffer.from(JSON.stringify(["x", "2026-01-01T00:00:00.000Z", "T-1"])).toString("base64url"),
			Buffer.from(JSON.stringify([1.5, "2026-01-01T00:00:00.000Z", "T-1"])).toString("base64url"),
			Buffer.from(JSON.stringify([1, 2, "T-1"])).toString("base64url"),
		];
		for (const cursor of forged) {
			const err = await p.fail("task.list", { cursor });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toBe("argument 'cursor' is not a cursor this tool returned");
			expect(err.details).toEqual({ field: "cursor" });
		}
	});

	test("limit must be an integer from 1 to 1000", async () => {
		const p = await makeProject();
		for (const limit of [0, -1, 1001, 2.5, "10"]) {
			const err = await p.fail("task.list", { limit });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "limit" });
			expect(err.message).toContain("argument 'limit' must be an integer from 1 to 1000");
		}
		expect((await list(p, { limit: 1000 })).tasks).toEqual([]);
		expect((await list(p, { limit: 1 })).tasks).toEqual([]);
	});

	test("an unknown status filter is invalid_argument with a suggestion", async () => {
		const p = await makeProject();
		const err = await p.fail("task.list", { status: "blokced" });
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toEqual({ field: "status", did_you_mean: "blocked" });
	});
});

describe("task.update_status", () => {
	test("changes the status, bumps the revision and updated_at, and appends task.updated", async () => {
		const p = await makeProject();
		const task = await create(p, { task_id: "u1" });
		await Bun.sleep(3);
		const updated = await update(p, { task_id: "u1", status: "in_progress", reason_md: "Starting now." });
		expect(updated).toMatchObject({ id: "u1", status: "in_progress", revision: 2 });
		expect(updated.created_at).toBe(task.created_at);
		expect(updated.updated_at).toMatch(RFC3339_MS_UTC);
		expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(task.updated_at));
		expect(await getTask(p, "u1")).toEqual(updated);

		const evs = await eventsOfType(p, "task.updated");
		expect(evs).toHaveLength(1);
		const ev = evs[0] as EventRecord;
		expect(ev.actor_id).toBe("operator");
		expect(ev.task_id).toBe("u1");
		expect(ev.created_at).toBe(updated.updated_at);
		expect(ev.payload).toEqual({
			task_id: "u1",
			changes: { status: { from: "open", to: "in_progress" } },
			revision: 2,
			reason_md: "Starting now.",
		});
	});

	test("without reason_md the event payload has no reason_md", async () => {
		const p = await makeProject();
		await create(p, { task_id: "u2" });
		await update(p, { task_id: "u2", status: "done" });
		const [ev] = await eventsOfType(p, "task.updated");
		expect(ev?.payload).toEqual({
			task_id: "u2",
			changes: { status: { from: "open", to: "done" } },
			revision: 2,
		});
		expect(ev?.payload).not.toHaveProperty("reason_md");
	});

	test("assigns, reassigns and clears the assignee with null", async () => {
		const p = await makeProject();
		await create(p, { task_id: "a1" });
		let t = await update(p, { task_id: "a1", assigned_agent_id: "implementer-1" });
		expect(t).toMatchObject({ assigned_agent_id: "implementer-1", revision: 2, status: "open" });
		t = await update(p, { task_id: "a1", assigned_agent_id: "implementer-2" });
		expect(t).toMatchObject({ assigned_agent_id: "implementer-2", revision: 3 });
		t = await update(p, { task_id: "a1", assigned_agent_id: null });
		expect(t).toMatchObject({ assigned_agent_id: null, revision: 4 });
		expect((await getTask(p, "a1")).assigned_agent_id).toBeNull();

		const changes = (await eventsOfType(p, "task.updated")).map((e) => e.payload.changes);
		expect(changes).toEqual([
			{ assigned_agent_id: { from: null, to: "implementer-1" } },
			{ assigned_agent_id: { from: "implementer-1", to: "implementer-2" } },
			{ assigned_agent_id: { from: "implementer-2", to: null } },
		]);
	});

	test("sets, moves and clears the run", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-x");
		await addRun(p, "RUN-y");
		await create(p, { task_id: "r1" });
		let t = await update(p, { task_id: "r1", run_id: "RUN-x" });
		expect(t).toMatchObject({ run_id: "RUN-x", revision: 2 });
		t = await update(p, { task_id: "r1", run_id: "RUN-y" });
		expect(t).toMatchObject({ run_id: "RUN-y", revision: 3 });
		t = await update(p, { task_id: "r1", run_id: null });
		expect(t).toMatchObject({ run_id: null, revision: 4 });
		expect((await getTask(p, "r1")).run_id).toBeNull();

		const changes = (await eventsOfType(p, "task.updated")).map((e) => e.payload.changes);
		expect(changes).toEqual([
			{ run_id: { from: null, to: "RUN-x" } },
			{ run_id: { from: "RUN-x", to: "RUN-y" } },
			{ run_id: { from: "RUN-y", to: null } },
		]);
	});

	test("several fields in one call are one change: revision +1 and one event listing each field", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-m");
		await create(p, { task_id: "m1" });
		const t = await update(p, {
			task_id: "m1",
			status: "in_progress",
			assigned_agent_id: "implementer-1",
			run_id: "RUN-m",
		});
		expect(t).toMatchObject({
			status: "in_progress",
			assigned_agent_id: "implementer-1",
			run_id: "RUN-m",
			revision: 2,
		});
		const evs = await eventsOfType(p, "task.updated");
		expect(evs).toHaveLength(1);
		expect(evs[0]?.payload.changes).toEqual({
			status: { from: "open", to: "in_progress" },
			assigned_agent_id: { from: null, to: "implementer-1" },
			run_id: { from: null, to: "RUN-m" },
		});
		expect(evs[0]?.run_id).toBe("RUN-m");
	});

	test("only changed fields are listed in the event", async () => {
		const p = await makeProject();
		await create(p, { task_id: "o1", assigned_agent_id: "implementer-1" });
		await update(p, { task_id: "o1", status: "review", assigned_agent_id: "implementer-1" });
		const [ev] = await eventsOfType(p, "task.updated");
		expect(ev?.payload.changes).toEqual({ status: { from: "open", to: "review" } });
	});

	test("a call that changes nothing returns the task as it is, with no event and the same revision", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-n");
		const task = await create(p, { task_id: "n1", assigned_agent_id: "implementer-1", run_id: "RUN-n" });
		const eventsBefore = (await events(p)).length;
		for (const args of [
			{ status: "open" },
			{ assigned_agent_id: "implementer-1" },
			{ run_id: "RUN-n" },
			{ status: "open", assigned_agent_id: "implementer-1", run_id: "RUN-n", reason_md: "No change." },
		]) {
			const same = await update(p, { task_id: "n1", ...args });
			expect(same).toEqual(task);
		}
		expect((await events(p)).length).toBe(eventsBefore);
		expect(await getTask(p, "n1")).toEqual(task);
		expect(await eventsOfType(p, "task.updated")).toEqual([]);
	});

	test("clearing an assignee that is already null is a no-op", async () => {
		const p = await makeProject();
		const task = await create(p, { task_id: "n2" });
		const same = await update(p, { task_id: "n2", assigned_agent_id: null, run_id: null });
		expect(same).toEqual(task);
		expect(await eventsOfType(p, "task.updated")).toEqual([]);
	});

	test("no field to update is invalid_argument, even with a reason", async () => {
		const p = await makeProject();
		const task = await create(p, { task_id: "e1" });
		for (const args of [{ task_id: "e1" }, { task_id: "e1", reason_md: "why" }]) {
			const err = await p.fail("task.update_status", args);
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toBe("nothing to update: give status, assigned_agent_id or run_id");
		}
		expect(await getTask(p, "e1")).toEqual(task);
	});

	test("an unknown task is not_found", async () => {
		const p = await makeProject();
		const eventsBefore = (await events(p)).length;
		const err = await p.fail("task.update_status", { task_id: "T-ghost", status: "done" });
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("task T-ghost not found");
		expect(err.details).toEqual({ task_id: "T-ghost" });
		expect((await events(p)).length).toBe(eventsBefore);
	});

	test("an unknown or disabled assignee, or a missing run, changes nothing", async () => {
		const p = await makeProject();
		const task = await create(p, { task_id: "x1" });
		await disableAgent(p, "reviewer-1");
		const eventsBefore = (await events(p)).length;

		const unknown = await p.fail("task.update_status", {
			task_id: "x1",
			status: "in_progress",
			assigned_agent_id: "implementer-3",
		});
		expect(unknown.code).toBe("not_found");
		expect(unknown.details).toMatchObject({ field: "assigned_agent_id", agent_id: "implementer-3" });

		const disabled = await p.fail("task.update_status", {
			task_id: "x1",
			status: "in_progress",
			assigned_agent_id: "reviewer-1",
		});
		expect(disabled.code).toBe("failed_precondition");
		expect(disabled.message).toBe("agent reviewer-1 is disabled");

		const noRun = await p.fail("task.update_status", {
			task_id: "x1",
			status: "in_progress",
			run_id: "RUN-0",
		});
		expect(noRun.code).toBe("not_found");
		expect(noRun.details).toEqual({ run_id: "RUN-0" });

		expect(await getTask(p, "x1")).toEqual(task);
		expect((await events(p)).length).toBe(eventsBefore);
	});

	test("each change bumps the revision by exactly one", async () => {
		const p = await makeProject();
		await create(p, { task_id: "rv" });
		const statuses = ["in_progress", "blocked", "in_progress", "review", "done"];
		for (const [i, status] of statuses.entries()) {
			const t = await update(p, { task_id: "rv", status });
			expect(t.revision).toBe(i + 2);
		}
		const revisions = (await eventsOfType(p, "task.updated")).map((e) => e.payload.revision);
		expect(revisions).toEqual([2, 3, 4, 5, 6]);
	});

	test("every status of the fixed set is accepted", async () => {
		const p = await makeProject();
		await create(p, { task_id: "all" });
		for (const status of [
			"in_progress",
			"blocked",
			"review",
			"done",
			"cancelled",
			"failed",
			"open",
		] as const) {
			expect((await update(p, { task_id: "all", status })).status).toBe(status);
		}
	});

	test("a matching expected_revision lets the update through", async () => {
		const p = await makeProject();
		await create(p, { task_id: "er" });
		const t = await update(p, { task_id: "er", status: "in_progress", expected_revision: 1 });
		expect(t.revision).toBe(2);
		const t2 = await update(p, { task_id: "er", status: "done", expected_revision: 2 });
		expect(t2).toMatchObject({ status: "done", revision: 3 });
	});

	test("a mismatched expected_revision is conflict with both revisions and changes nothing", async () => {
		const p = await makeProject();
		await create(p, { task_id: "cf" });
		const current = await update(p, { task_id: "cf", status: "in_progress" });
		const eventsBefore = (await events(p)).length;

		for (const expected of [1, 3, 99]) {
			const err = await p.fail("task.update_status", {
				task_id: "cf",
				status: "done",
				assigned_agent_id: "implementer-1",
				expected_revision: expected,
			});
			expect(err.code).toBe("conflict");
			expect(err.message).toBe(`cf is at revision 2, not ${expected}`);
			expect(err.details).toEqual({ id: "cf", expected_revision: expected, actual_revision: 2 });
		}
		expect(await getTask(p, "cf")).toEqual(current);
		expect((await events(p)).length).toBe(eventsBefore);
	});

	test("a stale expected_revision is a conflict even when the update would change nothing", async () => {
		const p = await makeProject();
		await create(p, { task_id: "cn" });
		await update(p, { task_id: "cn", status: "blocked" });
		const err = await p.fail("task.update_status", {
			task_id: "cn",
			status: "blocked",
			expected_revision: 1,
		});
		expect(err.code).toBe("conflict");
		expect(err.details).toMatchObject({ expected_revision: 1, actual_revision: 2 });
	});

	test("expected_revision must be a positive integer", async () => {
		const p = await makeProject();
		await create(p, { task_id: "ep" });
		for (const expected_revision of [0, -1, 1.5, "1"]) {
			const err = await p.fail("task.update_status", { task_id: "ep", status: "done", expected_revision });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "expected_revision" });
		}
		expect((await getTask(p, "ep")).status).toBe("open");
	});

	test("an invalid status is invalid_argument with did_you_mean, and changes nothing", async () => {
		const p = await makeProject();
		const task = await create(p, { task_id: "bad" });
		for (const [status, near] of [
			["don", "done"],
			["Done", "done"],
			["in-progress", "in_progress"],
			["canceled", "cancelled"],
		] as const) {
			const err = await p.fail("task.update_status", { task_id: "bad", status });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toStartWith("argument 'status' must be ");
			expect(err.message).toEndWith(`(did you mean '${near}'?)`);
			expect(err.details).toEqual({ field: "status", did_you_mean: near });
		}
		const far = await p.fail("task.update_status", { task_id: "bad", status: "xyzzyplugh" });
		expect(far.code).toBe("invalid_argument");
		expect(far.details).toEqual({ field: "status" });
		expect(await getTask(p, "bad")).toEqual(task);
	});
});
