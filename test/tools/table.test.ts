// table.get_state and table.watch through the real dispatcher on a real project: the seed's cursor
// semantics to the letter, the summary, and wait_ms long-polling within and across processes.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type } from "arktype";
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { findTool } from "../../src/registry/index.ts";
import type { EventRecord, TaskRecord } from "../../src/vocabulary/records.ts";
import { addRun, allEvents, makeProject, type Project, REPO, runCli } from "../_helpers/helpers.ts";

interface WatchView {
	run_id: string | null;
	events: EventRecord[];
	next_after_event_id: number;
	has_more_events: boolean;
	transactions: unknown[];
	blocked_tasks: TaskRecord[];
	pending_proposals: unknown[];
	required_approvals: unknown[];
	active_claims: number;
	suspended_claims: number;
	open_tasks: number;
	active_agents: number;
}

const CREATE_TASKS_SCRIPT = join(REPO, "test/fixtures-scripts/create-tasks.ts");

const COLLECTIONS = [
	"runs",
	"agents",
	"tasks",
	"claims",
	"proposals",
	"transactions",
	"human_approvals",
	"security_reviews",
	"memory",
] as const;

const CONFIGURED_AGENTS = [
	"architect-1",
	"chair-1",
	"implementer-1",
	"implementer-2",
	"memory-oracle-1",
	"reviewer-1",
	"security-1",
	"tester-1",
];

/** table.watch, checked against its declared output schema on every call. */
async function watch(p: Project, args: Record<string, unknown>): Promise<WatchView> {
	const out = await p.call("table.watch", args);
	expectMatchesSchema("table.watch", out);
	return out as unknown as WatchView;
}

function expectMatchesSchema(tool: string, out: unknown) {
	const t = findTool(tool);
	if (!t) throw new Error(`no tool ${tool}`);
	const checked = t.output(out);
	if (checked instanceof type.errors)
		throw new Error(`${tool} output does not match its schema: ${checked.summary}`);
}

const ids = (events: { id: number }[]) => events.map((e) => e.id);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function lastEventId(p: Project): Promise<number> {
	return p.rt.store.withTransaction("read", (tx) => tx.events.lastId());
}

async function createTask(p: Project, args: Record<string, unknown> = {}): Promise<TaskRecord> {
	const out = await p.call("task.create", { title: "a task", body_md: "do it", ...args });
	return out.task as TaskRecord;
}

/** Appends `n` filler events straight through the store, in one transaction. */
async function appendEvents(p: Project, n: number, runId: string | null = null) {
	await p.rt.store.withTransaction("write", async (tx) => {
		const now = new Date().toISOString();
		for (let i = 0; i < n; i++) {
			await tx.events.append({ type: "test.filler", actor_id: "tester", run_id: runId, payload: { i } }, now);
		}
	});
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<ToolError> {
	try {
		await promise;
	} catch (err) {
		expect(err).toBeInstanceOf(ToolError);
		expect<string>((err as ToolError).code).toBe(code);
		return err as ToolError;
	}
	throw new Error(`expected the call to fail with ${code}, but it succeeded`);
}

describe("table.get_state", () => {
	test("a fresh project: every collection is an array, the 8 configured agents, the newest event id", async () => {
		const p = await makeProject();
		const state = await p.call("table.get_state");
		expectMatchesSchema("table.get_state", state);

		for (const key of COLLECTIONS) {
			expect(Array.isArray(state[key])).toBe(true);
		}
		for (const key of ["runs", "tasks", "claims", "proposals", "transactions", "human_approvals"] as const) {
			expect(state[key]).toEqual([]);
		}
		expect(state.security_reviews).toEqual([]);
		expect(state.memory).toEqual([]);

		const agents = state.agents as { id: string; enabled: boolean }[];
		expect(agents.map((a) => a.id).sort()).toEqual(CONFIGURED_AGENTS);
		expect(agents.every((a) => a.enabled)).toBe(true);
		// The bookkeeping column never leaks into the public record.
		for (const a of agents) expect(a).not.toHaveProperty("disabled_by");

		const events = await allEvents(p);
		expect(events.length).toBeGreaterThan(0);
		expect(state.last_event_id).toBe(events.at(-1)?.id);
	});

	test("records created later appear in their collections and last_event_id follows the newest event", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-state");
		const task = await createTask(p, { run_id: "RUN-state", priority: 5 });
		await p.call("memory.record", { scope: "repo", kind: "fact", title: "a fact", body_md: "it is so" });

		const state = await p.call("table.get_state");
		expectMatchesSchema("table.get_state", state);
		expect((state.runs as { id: string }[]).map((r) => r.id)).toEqual(["RUN-state"]);
		expect(state.tasks).toEqual([task]);
		expect((state.memory as { title: string }[]).map((m) => m.title)).toEqual(["a fact"]);
		for (const key of COLLECTIONS) expect(Array.isArray(state[key])).toBe(true);

		const events = await allEvents(p);
		expect(events.at(-1)?.type).toBe("memory.recorded");
		expect(state.last_event_id).toBe(events.at(-1)?.id);
		expect(state.last_event_id).toBe(await lastEventId(p));
	});

	test("last_event_id is a cursor: watching after it returns exactly what happened since", async () => {
		const p = await makeProject();
		const state = await p.call("table.get_state");
		const task = await createTask(p);
		const next = await watch(p, { after_event_id: state.last_event_id });
		expect(next.events.map((e) => [e.type, e.task_id])).toEqual([["task.created", task.id]]);
	});

	test("one snapshot: while another process writes, tasks and last_event_id always agree", async () => {
		const p = await makeProject();
		const base = await lastEventId(p);
		const total = 150;
		// The shared writer script: prints "ready", waits for "go", makes `total` task.create calls.
		const child = Bun.spawn([process.execPath, CREATE_TASKS_SCRIPT, p.root, String(total), "bulk"], {
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
		});
		const stdout = child.stdout.getReader();
		let banner = "";
		while (!banner.includes("\n")) {
			const { value, done } = await stdout.read();
			if (done) break;
			banner += new TextDecoder().decode(value);
		}
		expect(banner).toBe("ready\n");
		child.stdin.write("go\n");
		child.stdin.flush();
		let exited = false;
		const done = child.exited.then((code) => {
			exited = true;
			return code;
		});

		const seen = new Set<number>();
		while (!exited) {
			const state = await p.call("table.get_state");
			// Each task.create commits one task and one event together.
			expect((state.tasks as unknown[]).length).toBe((state.last_event_id as number) - base);
			seen.add((state.tasks as unknown[]).length);

			const view = await watch(p, { after_event_id: base, limit: 200 });
			expect(view.open_tasks).toBe(view.events.length);
			await Bun.sleep(1);
		}
		let report = "";
		for (;;) {
			const { value, done: end } = await stdout.read();
			if (end) break;
			report += new TextDecoder().decode(value);
		}
		expect({ code: await done, stderr: await new Response(child.stderr).text() }).toEqual({
			code: 0,
			stderr: "",
		});
		expect((JSON.parse(report) as { errors: string[] }).errors).toEqual([]);
		// The reads really overlapped the writes.
		expect([...seen].some((n) => n > 0 && n < total)).toBe(true);
		const final = await p.call("table.get_state");
		expect((final.tasks as unknown[]).length).toBe(total);
		expect(final.last_event_id).toBe(base + total);
	});

	test("unknown arguments are refused", async () => {
		const p = await makeProject();
		const err = await p.fail("table.get_state", { run_id: "x" });
		expect(err.code).toBe("invalid_argument");
	});
});

describe("table.watch limit", () => {
	// 8 agent.registered events from init plus 250 fillers.
	const setup = async () => {
		const p = await makeProject();
		await appendEvents(p, 250);
		return { p, last: await lastEventId(p) };
	};

	test("absent, zero and negative limits mean 10; above 200 means 200", async () => {
		const { p, last } = await setup();
		expect(last).toBeGreaterThan(250);

		for (const limit of [undefined, 0, -1, -500]) {
			const args = limit === undefined ? {} : { limit };
			const newest = await watch(p, args);
			expect({ limit, ids: ids(newest.events) }).toEqual({ limit, ids: range(last - 9, last) });
			const page = await watch(p, { ...args, after_event_id: 0 });
			expect({ limit, ids: ids(page.events) }).toEqual({ limit, ids: range(1, 10) });
			expect(page.has_more_events).toBe(true);
		}

		for (const limit of [201, 500, 9_000_000]) {
			const newest = await watch(p, { limit });
			expect({ limit, ids: ids(newest.events) }).toEqual({ limit, ids: range(last - 199, last) });
			const page = await watch(p, { limit, after_event_id: 0 });
			expect({ limit, ids: ids(page.events) }).toEqual({ limit, ids: range(1, 200) });
			expect(page.has_more_events).toBe(true);
		}

		expect(ids((await watch(p, { limit: 200, after_event_id: 0 })).events)).toEqual(range(1, 200));
		expect(ids((await watch(p, { limit: 1, after_event_id: 0 })).events)).toEqual([1]);
		expect(ids((await watch(p, { limit: 1 })).events)).toEqual([last]);
	});

	test("a limit that is not an integer is invalid_argument naming the field", async () => {
		const p = await makeProject();
		for (const limit of [1.5, "10", null]) {
			const err = await p.fail("table.watch", { limit });
			expect(err.code).toBe("invalid_argument");
			expect(err.details?.field).toBe("limit");
		}
	});
});

describe("table.watch cursor mode", () => {
	test("returns events after the cursor, ascending, at most limit, and has_more_events only when more exist", async () => {
		const p = await makeProject();
		await appendEvents(p, 12);
		const last = await lastEventId(p);

		const first = await watch(p, { after_event_id: 3, limit: 5 });
		expect(ids(first.events)).toEqual([4, 5, 6, 7, 8]);
		expect(first.has_more_events).toBe(true);
		expect(first.next_after_event_id).toBe(8);

		// Exactly `limit` remain: a full page, and no more.
		const exact = await watch(p, { after_event_id: last - 5, limit: 5 });
		expect(ids(exact.events)).toEqual(range(last - 4, last));
		expect(exact.has_more_events).toBe(false);
		expect(exact.next_after_event_id).toBe(last);

		// One more than `limit` remains: a full page, and more.
		const oneMore = await watch(p, { after_event_id: last - 6, limit: 5 });
		expect(ids(oneMore.events)).toEqual(range(last - 5, last - 1));
		expect(oneMore.has_more_events).toBe(true);
		expect(oneMore.next_after_event_id).toBe(last - 1);

		// Fewer than `limit` remain.
		const tail = await watch(p, { after_event_id: last - 2, limit: 5 });
		expect(ids(tail.events)).toEqual([last - 1, last]);
		expect(tail.has_more_events).toBe(false);
		expect(tail.next_after_event_id).toBe(last);
	});

	test("after_event_id 0 selects cursor mode: the oldest events, not the newest", async () => {
		const p = await makeProject();
		await appendEvents(p, 5);
		const last = await lastEventId(p);
		const cursor = await watch(p, { after_event_id: 0, limit: 3 });
		expect(ids(cursor.events)).toEqual([1, 2, 3]);
		expect(cursor.has_more_events).toBe(true);
		expect(cursor.next_after_event_id).toBe(3);

		const newest = await watch(p, { limit: 3 });
		expect(ids(newest.events)).toEqual([last - 2, last - 1, last]);
	});

	test("nothing after the cursor: no events, and next_after_event_id stays at the input cursor", async () => {
		const p = await makeProject();
		const last = await lastEventId(p);
		for (const cursor of [last, last + 1, last + 1000]) {
			const out = await watch(p, { after_event_id: cursor });
			expect(out.events).toEqual([]);
			expect(out.has_more_events).toBe(false);
			expect(out.next_after_event_id).toBe(cursor);
		}
	});

	test("draining with the cursor visits every event exactly once, in order", async () => {
		const p = await makeProject();
		await appendEvents(p, 45);
		const everything = ids(await allEvents(p));

		for (const limit of [1, 7, 10, 53, 200]) {
			const seen: number[] = [];
			let cursor = 0;
			for (let page = 0; ; page++) {
				if (page > everything.length + 1) throw new Error("the cursor never drained");
				const out = await watch(p, { after_event_id: cursor, limit });
				expect(out.events.length).toBeLessThanOrEqual(limit);
				seen.push(...ids(out.events));
				if (out.events.length > 0) expect(out.next_after_event_id).toBe(out.events.at(-1)?.id as number);
				cursor = out.next_after_event_id;
				if (!out.has_more_events) break;
				expect(out.events.length).toBe(limit);
			}
			expect({ limit, seen }).toEqual({ limit, seen: everything });
			// Polling again at the end finds nothing and keeps the cursor.
			const after = await watch(p, { after_event_id: cursor, limit });
			expect(after.events).toEqual([]);
			expect(after.next_after_event_id).toBe(cursor);
		}
	});

	test("a negative after_event_id is invalid_argument", async () => {
		const p = await makeProject();
		for (const after_event_id of [-1, -100]) {
			const err = await p.fail("table.watch", { after_event_id });
			expect(err.code).toBe("invalid_argument");
			expect(err.details?.field).toBe("after_event_id");
		}
		const fractional = await p.fail("table.watch", { after_event_id: 2.5 });
		expect(fractional.code).toBe("invalid_argument");
		expect(fractional.details?.field).toBe("after_event_id");
	});
});

describe("table.watch without a cursor", () => {
	test("the newest limit events in ascending order; has_more_events false even when older ones exist", async () => {
		const p = await makeProject();
		await appendEvents(p, 20);
		const last = await lastEventId(p);
		const out = await watch(p, { limit: 4 });
		expect(ids(out.events)).toEqual([last - 3, last - 2, last - 1, last]);
		expect(out.has_more_events).toBe(false);
		expect(out.next_after_event_id).toBe(last);
		expect(out.run_id).toBeNull();
	});

	test("a filter that matches nothing: no events and next_after_event_id 0", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-quiet");
		const out = await watch(p, { run_id: "RUN-quiet" });
		expect(out.events).toEqual([]);
		expect(out.has_more_events).toBe(false);
		expect(out.next_after_event_id).toBe(0);
		expect(out.run_id).toBe("RUN-quiet");
	});
});

describe("table.watch run_id", () => {
	const twoRuns = async () => {
		const p = await makeProject();
		await addRun(p, "RUN-a");
		await addRun(p, "RUN-b");
		const a: TaskRecord[] = [];
		const b: TaskRecord[] = [];
		for (let i = 0; i < 3; i++) {
			a.push(await createTask(p, { run_id: "RUN-a", title: `a${i}` }));
			b.push(await createTask(p, { run_id: "RUN-b", title: `b${i}` }));
			await createTask(p, { title: `loose${i}` });
		}
		return { p, a, b };
	};

	test("filters the events, in both modes", async () => {
		const { p, a, b } = await twoRuns();

		const newestA = await watch(p, { run_id: "RUN-a" });
		expect(newestA.run_id).toBe("RUN-a");
		expect(newestA.events.map((e) => [e.type, e.run_id, e.task_id])).toEqual(
			a.map((t) => ["task.created", "RUN-a", t.id]),
		);
		expect(newestA.next_after_event_id).toBe(newestA.events.at(-1)?.id as number);

		const cursorB = await watch(p, { run_id: "RUN-b", after_event_id: 0, limit: 2 });
		expect<unknown>(cursorB.events.map((e) => e.task_id)).toEqual([b[0]?.id, b[1]?.id]);
		expect(cursorB.has_more_events).toBe(true);
		const restB = await watch(p, { run_id: "RUN-b", after_event_id: cursorB.next_after_event_id, limit: 2 });
		expect<unknown>(restB.events.map((e) => e.task_id)).toEqual([b[2]?.id]);
		expect(restB.has_more_events).toBe(false);
		expect(restB.next_after_event_id).toBe(restB.events[0]?.id as number);

		// The newest window of a run ignores newer events of other runs.
		const newestOneA = await watch(p, { run_id: "RUN-a", limit: 1 });
		expect<unknown>(newestOneA.events.map((e) => e.task_id)).toEqual([a[2]?.id]);
	});

	test("the summary stays database-wide under a run filter", async () => {
		const { p } = await twoRuns();
		const blocked = await createTask(p, { run_id: "RUN-b", title: "stuck" });
		await p.call("task.update_status", { task_id: blocked.id, status: "blocked" });

		const all = await watch(p, {});
		const onlyA = await watch(p, { run_id: "RUN-a" });
		const { events: _e1, run_id: _r1, next_after_event_id: _n1, ...summaryAll } = all;
		const { events: _e2, run_id: _r2, next_after_event_id: _n2, ...summaryA } = onlyA;
		expect(summaryA).toEqual(summaryAll);
		expect(summaryA.open_tasks).toBe(10);
		expect(summaryA.blocked_tasks.map((t) => t.id)).toEqual([blocked.id]);
	});

	test("a run that does not exist is not_found, in both modes", async () => {
		const p = await makeProject();
		for (const args of [{ run_id: "RUN-nope" }, { run_id: "RUN-nope", after_event_id: 0 }]) {
			const err = await p.fail("table.watch", args);
			expect(err.code).toBe("not_found");
			expect(err.details?.run_id).toBe("RUN-nope");
		}
	});

	test("a missing run is reported at once even with wait_ms", async () => {
		const p = await makeProject();
		const started = performance.now();
		const err = await p.fail("table.watch", { run_id: "RUN-nope", after_event_id: 0, wait_ms: 5000 });
		expect(err.code).toBe("not_found");
		expect(performance.now() - started).toBeLessThan(1000);
	});

	test("a run_id that is not a valid id is invalid_argument", async () => {
		const p = await makeProject();
		for (const run_id of ["", "has space", "../etc"]) {
			const err = await p.fail("table.watch", { run_id });
			expect(err.code).toBe("invalid_argument");
			expect(err.details?.field).toBe("run_id");
		}
	});
});

describe("table.watch summary", () => {
	test("a fresh project: 8 active agents, nothing open, empty lists", async () => {
		const p = await makeProject();
		const out = await watch(p, {});
		expect(out.active_agents).toBe(8);
		expect(out.open_tasks).toBe(0);
		expect(out.blocked_tasks).toEqual([]);
		expect(out.active_claims).toBe(0);
		expect(out.suspended_claims).toBe(0);
		expect(out.transactions).toEqual([]);
		expect(out.pending_proposals).toEqual([]);
		expect(out.required_approvals).toEqual([]);
	});

	test("open_tasks counts open, in_progress and blocked; blocked_tasks lists the blocked ones in full", async () => {
		const p = await makeProject();
		const statuses = [
			"open",
			"open",
			"in_progress",
			"blocked",
			"blocked",
			"review",
			"done",
			"cancelled",
			"failed",
		] as const;
		const blocked: TaskRecord[] = [];
		for (const [i, status] of statuses.entries()) {
			const task = await createTask(p, { title: `${status} ${i}`, priority: i });
			if (status === "open") continue;
			const updated = (await p.call("task.update_status", { task_id: task.id, status })).task as TaskRecord;
			if (status === "blocked") blocked.push(updated);
		}

		const out = await watch(p, {});
		expect(out.open_tasks).toBe(5);
		expect(out.blocked_tasks).toEqual(blocked);
		for (const t of out.blocked_tasks) {
			expect(t.status).toBe("blocked");
			expect((await p.call("task.get", { task_id: t.id })).task).toEqual(t);
		}
		expect(out.active_claims).toBe(0);
		expect(out.suspended_claims).toBe(0);
		expect(out.transactions).toEqual([]);
		expect(out.pending_proposals).toEqual([]);
		expect(out.required_approvals).toEqual([]);

		// Unblocking a task takes it off the list and keeps it open work.
		const first = blocked[0] as TaskRecord;
		await p.call("task.update_status", { task_id: first.id, status: "in_progress" });
		const later = await watch(p, {});
		expect<unknown>(later.blocked_tasks.map((t) => t.id)).toEqual([blocked[1]?.id]);
		expect(later.open_tasks).toBe(5);
		await p.call("task.update_status", { task_id: first.id, status: "done" });
		expect((await watch(p, {})).open_tasks).toBe(4);
	});

	test("active_agents counts enabled agents", async () => {
		const p = await makeProject();
		await p.rt.store.withTransaction("write", async (tx) => {
			const agent = await tx.agents.get("reviewer-1");
			if (!agent) throw new Error("reviewer-1 missing");
			await tx.agents.update({ ...agent, enabled: false, disabled_by: "operator" }, new Date().toISOString());
		});
		expect((await watch(p, {})).active_agents).toBe(7);
		const state = await p.call("table.get_state");
		expect((state.agents as unknown[]).length).toBe(8);
	});
});

describe("table.watch wait_ms", () => {
	test("accepts 0 to 30000; anything else is invalid_argument naming the field", async () => {
		const p = await makeProject();
		for (const wait_ms of [30001, -1, 1.5, "100"]) {
			const err = await p.fail("table.watch", { wait_ms });
			expect(err.code).toBe("invalid_argument");
			expect(err.details?.field).toBe("wait_ms");
		}
		// Matching events exist already, so even the longest wait returns at once.
		const started = performance.now();
		for (const wait_ms of [0, 30000]) {
			const out = await watch(p, { wait_ms });
			expect(out.events.length).toBeGreaterThan(0);
		}
		expect(performance.now() - started).toBeLessThan(2000);
	});

	test("wait_ms 0 with nothing new returns at once", async () => {
		const p = await makeProject();
		const started = performance.now();
		const out = await watch(p, { after_event_id: await lastEventId(p), wait_ms: 0 });
		expect(out.events).toEqual([]);
		expect(performance.now() - started).toBeLessThan(1000);
	});

	test("an event committed by this process ends the wait promptly", async () => {
		const p = await makeProject();
		const cursor = await lastEventId(p);
		let created: TaskRecord | undefined;
		const started = performance.now();
		setTimeout(async () => {
			created = await createTask(p, { title: "wake up" });
		}, 200);
		const out = await watch(p, { after_event_id: cursor, wait_ms: 5000 });
		const elapsed = performance.now() - started;

		expect(elapsed).toBeGreaterThanOrEqual(150);
		expect(elapsed).toBeLessThan(1500);
		expect<unknown>(out.events.map((e) => [e.type, e.task_id])).toEqual([["task.created", created?.id]]);
		expect(out.next_after_event_id).toBe(out.events[0]?.id as number);
		expect(out.has_more_events).toBe(false);
	});

	test("an event committed by another process ends the wait promptly", async () => {
		const p = await makeProject();
		const cursor = await lastEventId(p);
		const started = performance.now();
		let watchDone = 0;
		const watching = watch(p, { after_event_id: cursor, wait_ms: 5000 }).then((out) => {
			watchDone = performance.now();
			return out;
		});
		const child = runCli([
			"mcp",
			"call",
			"--tool",
			"task.create",
			"--args",
			JSON.stringify({ title: "from another process", body_md: "hello" }),
			"--root",
			p.root,
		]).then((r) => ({ ...r, exitedAt: performance.now() }));

		const [out, cli] = await Promise.all([watching, child]);
		expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: "" });
		const task = (JSON.parse(cli.stdout) as { task: TaskRecord }).task;

		expect(out.events.map((e) => [e.type, e.task_id])).toEqual([["task.created", task.id]]);
		expect(watchDone - started).toBeLessThan(4000);
		// The watcher noticed within a few polls of the child's commit, not at the end of wait_ms.
		expect(watchDone - cli.exitedAt).toBeLessThan(1000);
	});

	test("with nothing happening it returns empty after about wait_ms, keeping the cursor", async () => {
		const p = await makeProject();
		const cursor = await lastEventId(p);
		const started = performance.now();
		const out = await watch(p, { after_event_id: cursor, wait_ms: 300 });
		const elapsed = performance.now() - started;
		expect(elapsed).toBeGreaterThanOrEqual(250);
		expect(elapsed).toBeLessThan(2000);
		expect(out.events).toEqual([]);
		expect(out.has_more_events).toBe(false);
		expect(out.next_after_event_id).toBe(cursor);
	});

	test("events of another run do not end a run-filtered wait; one of the watched run does", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-watched");
		await addRun(p, "RUN-other");
		const cursor = await lastEventId(p);

		const started = performance.now();
		setTimeout(() => void createTask(p, { run_id: "RUN-other" }), 50);
		const quiet = await watch(p, { run_id: "RUN-watched", after_event_id: cursor, wait_ms: 600 });
		expect(performance.now() - started).toBeGreaterThanOrEqual(550);
		expect(quiet.events).toEqual([]);
		expect(quiet.next_after_event_id).toBe(cursor);

		let mine: TaskRecord | undefined;
		setTimeout(async () => {
			await createTask(p, { run_id: "RUN-other" });
			mine = await createTask(p, { run_id: "RUN-watched" });
		}, 150);
		const begun = performance.now();
		const woke = await watch(p, { run_id: "RUN-watched", after_event_id: cursor, wait_ms: 5000 });
		expect(performance.now() - begun).toBeLessThan(1500);
		expect<unknown>(woke.events.map((e) => [e.run_id, e.task_id])).toEqual([["RUN-watched", mine?.id]]);
	});

	test("without a cursor it waits only while the filter matches nothing", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-empty");
		let created: TaskRecord | undefined;
		setTimeout(async () => {
			created = await createTask(p, { run_id: "RUN-empty" });
		}, 200);
		const started = performance.now();
		const out = await watch(p, { run_id: "RUN-empty", wait_ms: 5000 });
		const elapsed = performance.now() - started;
		expect(elapsed).toBeGreaterThanOrEqual(150);
		expect(elapsed).toBeLessThan(1500);
		expect<unknown>(out.events.map((e) => e.task_id)).toEqual([created?.id]);
	});

	test("aborting the call's signal ends the wait with cancelled", async () => {
		const p = await makeProject();
		const abort = new AbortController();
		const ctx = operatorContext("internal", abort.signal);
		const cursor = await lastEventId(p);
		const started = performance.now();
		setTimeout(() => abort.abort(), 200);
		await expectCode(call(p.rt, "table.watch", { after_event_id: cursor, wait_ms: 10000 }, ctx), "cancelled");
		const elapsed = performance.now() - started;
		expect(elapsed).toBeGreaterThanOrEqual(150);
		expect(elapsed).toBeLessThan(2000);

		// The store is not left busy: the next call works at once.
		const task = await createTask(p);
		expect((await watch(p, { after_event_id: cursor })).events.map((e) => e.task_id)).toEqual([task.id]);
	});

	test("a signal aborted before the call is cancelled without waiting", async () => {
		const p = await makeProject();
		const abort = new AbortController();
		abort.abort();
		const started = performance.now();
		await expectCode(
			call(
				p.rt,
				"table.watch",
				{ after_event_id: 0, wait_ms: 10000 },
				operatorContext("internal", abort.signal),
			),
			"cancelled",
		);
		expect(performance.now() - started).toBeLessThan(500);
	});
});
