// Idempotency keys (SPEC §4): the same key and arguments replay the first result without acting twice;
// other arguments are a conflict; only successes are stored; keys expire after idempotency.ttl_hours.
import { describe, expect, test } from "bun:test";
import { call } from "../../src/dispatch.ts";
import { openRuntime } from "../../src/runtime.ts";
import type { EventRecord, MemoryRecord, TaskRecord } from "../../src/vocabulary/records.ts";
import { allEvents, expectDeclaredOutput, makeProject, type Project } from "../_helpers/helpers.ts";

async function ok(p: Project, tool: string, args: Record<string, unknown>) {
	const out = await p.call(tool, args);
	expectDeclaredOutput(tool, out);
	return out;
}

const events = async (p: Project) => (await allEvents(p)) as unknown as EventRecord[];
const count = async (p: Project, type: string) => (await events(p)).filter((e) => e.type === type).length;

async function tasks(p: Project): Promise<TaskRecord[]> {
	return (await p.call("table.get_state")).tasks as TaskRecord[];
}
async function memory(p: Project): Promise<MemoryRecord[]> {
	return (await p.call("table.get_state")).memory as MemoryRecord[];
}

describe("task.create with an idempotency key", () => {
	test("the same key and arguments, in any key order, return the first result and act once", async () => {
		const p = await makeProject();
		const first = await ok(p, "task.create", {
			idempotency_key: "create-1",
			title: "Index the repo",
			body_md: "Build the symbol index.",
			priority: 5,
			readable_paths: ["src/**"],
		});
		const again = await ok(p, "task.create", {
			readable_paths: ["src/**"],
			priority: 5,
			body_md: "Build the symbol index.",
			title: "Index the repo",
			idempotency_key: "create-1",
		});
		const third = await ok(p, "task.create", {
			title: "Index the repo",
			idempotency_key: "create-1",
			priority: 5,
			body_md: "Build the symbol index.",
			readable_paths: ["src/**"],
		});
		expect(again).toEqual(first);
		expect(third).toEqual(first);
		expect(await tasks(p)).toEqual([first.task as TaskRecord]);
		expect(await count(p, "task.created")).toBe(1);
	});

	test("the key is not part of the stored task or its event", async () => {
		const p = await makeProject();
		const out = await ok(p, "task.create", { idempotency_key: "k", title: "t", body_md: "b" });
		expect(out.task).not.toHaveProperty("idempotency_key");
		const [ev] = (await events(p)).filter((e) => e.type === "task.created");
		expect(JSON.stringify(ev)).not.toContain("idempotency_key");
	});

	test("a replay returns the first result even after the task changed", async () => {
		const p = await makeProject();
		const args = { idempotency_key: "k-change", title: "t", body_md: "b" };
		const first = await ok(p, "task.create", args);
		const id = (first.task as TaskRecord).id;
		await ok(p, "task.update_status", { task_id: id, status: "done" });
		const replay = await ok(p, "task.create", args);
		expect(replay).toEqual(first);
		expect((replay.task as TaskRecord).status).toBe("open");
		expect(await tasks(p)).toHaveLength(1);
		expect(await count(p, "task.created")).toBe(1);
	});

	test("a replay of a create with a chosen task_id is the first result, not already_exists", async () => {
		const p = await makeProject();
		const args = { idempotency_key: "k-id", task_id: "T-chosen", title: "t", body_md: "b" };
		const first = await ok(p, "task.create", args);
		expect(await ok(p, "task.create", args)).toEqual(first);
		// Without the key the same call is a second attempt at the id.
		const { idempotency_key: _, ...noKey } = args;
		expect((await p.fail("task.create", noKey)).code).toBe("already_exists");
	});

	test("the same key with other arguments is conflict and has no effect", async () => {
		const p = await makeProject();
		const first = await ok(p, "task.create", { idempotency_key: "k-other", title: "t", body_md: "b" });
		const eventsBefore = (await events(p)).length;
		for (const other of [
			{ title: "t2", body_md: "b" },
			{ title: "t", body_md: "b", priority: 100 },
			{ title: "t", body_md: "b", readable_paths: [] },
			{ title: "t", body_md: "b ", risk: "normal" },
		]) {
			const err = await p.fail("task.create", { idempotency_key: "k-other", ...other });
			expect(err.code).toBe("conflict");
			expect(err.message).toBe(
				"idempotency key 'k-other' was already used for task.create with other arguments",
			);
			expect(err.details).toEqual({ idempotency_key: "k-other" });
		}
		expect(await tasks(p)).toEqual([first.task as TaskRecord]);
		expect((await events(p)).length).toBe(eventsBefore);
		// The conflict did not replace the stored first call.
		expect(await ok(p, "task.create", { idempotency_key: "k-other", title: "t", body_md: "b" })).toEqual(
			first,
		);
	});

	test("different keys act separately", async () => {
		const p = await makeProject();
		const a = await ok(p, "task.create", { idempotency_key: "ka", title: "t", body_md: "b" });
		const b = await ok(p, "task.create", { idempotency_key: "kb", title: "t", body_md: "b" });
		expect((a.task as TaskRecord).id).not.toBe((b.task as TaskRecord).id);
		expect(await tasks(p)).toHaveLength(2);
		expect(await count(p, "task.created")).toBe(2);
	});

	test("a failed call stores nothing: retrying with fixed arguments and the same key succeeds", async () => {
		const p = await makeProject();
		const bad = { idempotency_key: "k-fix", title: "t", body_md: "b", assigned_agent_id: "implementr-1" };
		expect((await p.fail("task.create", bad)).code).toBe("not_found");
		// The same failing call fails the same way again: the failure was not stored as a result.
		expect((await p.fail("task.create", bad)).code).toBe("not_found");
		expect(await tasks(p)).toEqual([]);

		const fixed = await ok(p, "task.create", { ...bad, assigned_agent_id: "implementer-1" });
		expect((fixed.task as TaskRecord).assigned_agent_id).toBe("implementer-1");
		expect(await ok(p, "task.create", { ...bad, assigned_agent_id: "implementer-1" })).toEqual(fixed);
		expect(await tasks(p)).toHaveLength(1);
		expect(await count(p, "task.created")).toBe(1);
	});

	test("a call refused by validation stores nothing either", async () => {
		const p = await makeProject();
		const err = await p.fail("task.create", {
			idempotency_key: "k-val",
			title: "t",
			body_md: "b",
			priority: 1.5,
		});
		expect(err.code).toBe("invalid_argument");
		const out = await ok(p, "task.create", {
			idempotency_key: "k-val",
			title: "t",
			body_md: "b",
			priority: 1,
		});
		expect((out.task as TaskRecord).priority).toBe(1);
	});

	test("keys are durable: another runtime on the same project replays the stored result", async () => {
		const p = await makeProject();
		const args = { idempotency_key: "k-durable", title: "t", body_md: "b" };
		const first = await ok(p, "task.create", args);
		const other = openRuntime(p.root);
		try {
			const again: object = await call(other, "task.create", args, p.ctx);
			expect(again).toEqual(first);
		} finally {
			other.close();
		}
		expect(await tasks(p)).toHaveLength(1);
		expect(await count(p, "task.created")).toBe(1);
	});
});

describe("memory.record with an idempotency key", () => {
	test("the same key and arguments, in any key order, return the first result and act once", async () => {
		const p = await makeProject();
		const first = await ok(p, "memory.record", {
			idempotency_key: "mem-1",
			scope: "project",
			kind: "fact",
			title: "WAL",
			body_md: "The database runs in WAL mode.",
			importance: 70,
		});
		const again = await ok(p, "memory.record", {
			importance: 70,
			body_md: "The database runs in WAL mode.",
			title: "WAL",
			kind: "fact",
			scope: "project",
			idempotency_key: "mem-1",
		});
		expect(again).toEqual(first);
		expect(await memory(p)).toEqual([first.entry as MemoryRecord]);
		expect(await count(p, "memory.recorded")).toBe(1);
	});

	test("the same key with other arguments is conflict and has no effect", async () => {
		const p = await makeProject();
		const args = { idempotency_key: "mem-2", scope: "project", kind: "fact", title: "A", body_md: "B" };
		const first = await ok(p, "memory.record", args);
		const before = (await events(p)).length;
		const err = await p.fail("memory.record", { ...args, importance: 50 });
		expect(err.code).toBe("conflict");
		expect(err.message).toBe(
			"idempotency key 'mem-2' was already used for memory.record with other arguments",
		);
		expect(err.details).toEqual({ idempotency_key: "mem-2" });
		expect(await memory(p)).toEqual([first.entry as MemoryRecord]);
		expect((await events(p)).length).toBe(before);
	});

	test("a failed call stores nothing: retrying with fixed arguments and the same key succeeds", async () => {
		const p = await makeProject();
		const bad = {
			idempotency_key: "mem-fix",
			scope: "s",
			kind: "k",
			title: "t",
			body_md: "b",
			task_id: "T-late",
		};
		expect((await p.fail("memory.record", bad)).code).toBe("not_found");
		expect(await memory(p)).toEqual([]);
		expect(await count(p, "memory.recorded")).toBe(0);

		// The same arguments succeed once the task exists: nothing was remembered from the failure.
		await ok(p, "task.create", { task_id: "T-late", title: "t", body_md: "b" });
		const out = await ok(p, "memory.record", bad);
		expect((out.entry as MemoryRecord).task_id).toBe("T-late");
		expect(await ok(p, "memory.record", bad)).toEqual(out);
		expect(await memory(p)).toHaveLength(1);
	});
});

describe("idempotency keys across tools and updates", () => {
	test("the same key on two different tools is independent", async () => {
		const p = await makeProject();
		const t = await ok(p, "task.create", { idempotency_key: "shared", title: "t", body_md: "b" });
		const m = await ok(p, "memory.record", {
			idempotency_key: "shared",
			scope: "s",
			kind: "k",
			title: "t",
			body_md: "b",
		});
		const d = await ok(p, "decision.record", {
			idempotency_key: "shared",
			decision: "d",
			rationale_md: "r",
			decided_by: "operator",
		});
		expect(t.task).toBeDefined();
		expect(m.entry).toBeDefined();
		expect(d.decision).toBeDefined();
		expect(await tasks(p)).toHaveLength(1);
		expect(await memory(p)).toHaveLength(1);
		expect(await count(p, "task.created")).toBe(1);
		expect(await count(p, "memory.recorded")).toBe(1);
		expect(await count(p, "decision.recorded")).toBe(1);
	});

	test("expected_revision is part of the compared arguments", async () => {
		const p = await makeProject();
		await ok(p, "task.create", { task_id: "T-er", title: "t", body_md: "b" });
		const args = { idempotency_key: "upd", task_id: "T-er", status: "in_progress", expected_revision: 1 };
		const first = await ok(p, "task.update_status", args);
		expect((first.task as TaskRecord).revision).toBe(2);

		// Replaying with the same expected_revision returns the first result, though the task is now at 2.
		expect(await ok(p, "task.update_status", args)).toEqual(first);

		for (const other of [
			{ ...args, expected_revision: 2 },
			{ idempotency_key: "upd", task_id: "T-er", status: "in_progress" },
		]) {
			const err = await p.fail("task.update_status", other);
			expect(err.code).toBe("conflict");
			expect(err.details).toEqual({ idempotency_key: "upd" });
		}
		expect(await count(p, "task.updated")).toBe(1);
		expect((await tasks(p))[0]?.revision).toBe(2);
	});

	test("a replayed update does not act again even when the task moved on", async () => {
		const p = await makeProject();
		await ok(p, "task.create", { task_id: "T-mv", title: "t", body_md: "b" });
		const args = { idempotency_key: "mv", task_id: "T-mv", status: "blocked" };
		const first = await ok(p, "task.update_status", args);
		await ok(p, "task.update_status", { task_id: "T-mv", status: "open" });
		expect(await ok(p, "task.update_status", args)).toEqual(first);
		expect((await tasks(p))[0]?.status).toBe("open");
		expect(await count(p, "task.updated")).toBe(2);
	});

	test("memory.mark_stale replays its first result instead of failing as already stale", async () => {
		const p = await makeProject();
		const entry = (await ok(p, "memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }))
			.entry as MemoryRecord;
		const args = { idempotency_key: "stale-1", memory_id: entry.id, reason_md: "old" };
		const first = await ok(p, "memory.mark_stale", args);
		expect(await ok(p, "memory.mark_stale", args)).toEqual(first);
		expect(await count(p, "memory.marked_stale")).toBe(1);
		// Without the key, the second attempt is refused.
		const { idempotency_key: _, ...noKey } = args;
		expect((await p.fail("memory.mark_stale", noKey)).code).toBe("failed_precondition");
	});

	test("with idempotency.ttl_hours 0 a repeated key acts again", async () => {
		const p = await makeProject({ config: "idempotency:\n  ttl_hours: 0\n" });
		expect(p.rt.config.idempotency.ttl_hours).toBe(0);
		const args = { idempotency_key: "short", title: "t", body_md: "b" };
		const first = await ok(p, "task.create", args);
		const second = await ok(p, "task.create", args);
		expect((second.task as TaskRecord).id).not.toBe((first.task as TaskRecord).id);
		expect(await tasks(p)).toHaveLength(2);
		expect(await count(p, "task.created")).toBe(2);
		// An expired key is no longer compared either: other arguments act too.
		await ok(p, "task.create", { ...args, title: "other" });
		expect(await tasks(p)).toHaveLength(3);

		const m = { idempotency_key: "short", scope: "s", kind: "k", title: "t", body_md: "b" };
		await ok(p, "memory.record", m);
		await ok(p, "memory.record", m);
		expect(await memory(p)).toHaveLength(2);
	});

	test("the key must be a non-blank string of at most 200 characters", async () => {
		const p = await makeProject();
		for (const key of ["", "   ", "x".repeat(201), 7, null]) {
			const err = await p.fail("task.create", { idempotency_key: key, title: "t", body_md: "b" });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "idempotency_key" });
		}
		expect(await tasks(p)).toEqual([]);
		await ok(p, "task.create", { idempotency_key: "x".repeat(200), title: "t", body_md: "b" });
		await ok(p, "task.create", {
			idempotency_key: "any text, even with spaces / and ünïcode",
			title: "t",
			body_md: "b",
		});
		expect(await tasks(p)).toHaveLength(2);
	});

	test("an invalid key is reported on one line, saying what a key must be", async () => {
		const p = await makeProject();
		for (const key of ["", "   ", "x".repeat(201)]) {
			const err = await p.fail("task.create", { idempotency_key: key, title: "t", body_md: "b" });
			expect(err.message).toStartWith(
				"argument 'idempotency_key' must be a non-empty string of up to 200 characters",
			);
			expect(err.message).not.toContain("\n");
		}
	});
});
