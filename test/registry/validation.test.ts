// Argument validation as every transport sees it (SPEC §4): strict types, required strings, unknown
// keys with a suggestion, caller-chosen ids, the arguments object itself, unknown and unbuilt tools,
// and which tools take idempotency_key and expected_revision.
import { describe, expect, test } from "bun:test";
import { call } from "../../src/dispatch.ts";
import { argNames, TOOLS } from "../../src/registry/index.ts";
import type { EventRecord } from "../../src/vocabulary/records.ts";
import { allEvents, makeProject, type Project } from "../_helpers/helpers.ts";

const events = async (p: Project) => (await allEvents(p)) as unknown as EventRecord[];

/** Expects invalid_argument naming `field`, with a message about that argument. */
async function expectInvalid(p: Project, tool: string, args: unknown, field: string) {
	const err = await p.fail(tool, args);
	expect(err.code).toBe("invalid_argument");
	expect(err.details?.field).toBe(field);
	expect(err.message).toStartWith(`argument '${field}' must be `);
	expect(err.message).not.toContain("\n");
	return err;
}

async function seedTask(p: Project, id = "T-1") {
	await p.call("task.create", { task_id: id, title: "t", body_md: "b" });
	return id;
}

describe("integers", () => {
	const notIntegers: [string, unknown][] = [
		["a fraction", 1.5],
		["a numeric string", "1"],
		["an unsafe integer", 2 ** 60],
		["a boolean", true],
		["null", null],
		["NaN-like string", "NaN"],
	];

	for (const [what, value] of notIntegers) {
		test(`reject ${what} on every integer argument`, async () => {
			const p = await makeProject();
			const entry = (await p.call("memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }))
				.entry as {
				id: string;
			};
			await seedTask(p);
			const before = (await events(p)).length;
			await expectInvalid(p, "task.create", { title: "t", body_md: "b", priority: value }, "priority");
			await expectInvalid(p, "task.list", { limit: value }, "limit");
			await expectInvalid(
				p,
				"task.update_status",
				{ task_id: "T-1", status: "done", expected_revision: value },
				"expected_revision",
			);
			await expectInvalid(
				p,
				"memory.record",
				{ scope: "s", kind: "k", title: "t", body_md: "b", importance: value },
				"importance",
			);
			await expectInvalid(
				p,
				"memory.record",
				{ scope: "s", kind: "k", title: "t", body_md: "b", source_event_id: value },
				"source_event_id",
			);
			await expectInvalid(p, "memory.query", { query: "x", limit: value }, "limit");
			await expectInvalid(p, "memory.summarize", { limit: value }, "limit");
			await expectInvalid(
				p,
				"memory.mark_stale",
				{ memory_id: entry.id, reason_md: "r", expected_revision: value },
				"expected_revision",
			);
			await expectInvalid(p, "table.watch", { after_event_id: value }, "after_event_id");
			expect((await events(p)).length).toBe(before);
		});
	}

	test("the message says what an integer argument must be and what it was", async () => {
		const p = await makeProject();
		const frac = await p.fail("task.create", { title: "t", body_md: "b", priority: 1.5 });
		expect(frac.message).toBe("argument 'priority' must be an integer (was 1.5)");
		expect(frac.details).toEqual({ field: "priority" });
		const str = await p.fail("task.create", { title: "t", body_md: "b", priority: "1" });
		expect(str.message).toBe("argument 'priority' must be an integer (was a string)");
	});

	test("the largest safe integer is accepted and the next one is not", async () => {
		const p = await makeProject();
		const out = await p.call("task.create", { title: "t", body_md: "b", priority: Number.MAX_SAFE_INTEGER });
		expect((out.task as { priority: number }).priority).toBe(Number.MAX_SAFE_INTEGER);
		const neg = await p.call("task.create", { title: "t", body_md: "b", priority: -Number.MAX_SAFE_INTEGER });
		expect((neg.task as { priority: number }).priority).toBe(-Number.MAX_SAFE_INTEGER);
		await expectInvalid(
			p,
			"task.create",
			{ title: "t", body_md: "b", priority: Number.MAX_SAFE_INTEGER + 1 },
			"priority",
		);
		await expectInvalid(p, "task.create", { title: "t", body_md: "b", priority: 1e300 }, "priority");
	});
});

describe("required strings", () => {
	const cases: [string, Record<string, unknown>, string][] = [
		["task.create", { title: "t", body_md: "b" }, "title"],
		["task.create", { title: "t", body_md: "b" }, "body_md"],
		["task.get", { task_id: "T-1" }, "task_id"],
		["task.update_status", { task_id: "T-1", status: "done" }, "task_id"],
		["memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }, "scope"],
		["memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }, "kind"],
		["memory.query", { query: "q" }, "query"],
		["memory.mark_stale", { memory_id: "M-1", reason_md: "r" }, "reason_md"],
		["decision.record", { decision: "d", rationale_md: "r", decided_by: "operator" }, "rationale_md"],
		["decision.record", { decision: "d", rationale_md: "r", decided_by: "operator" }, "decided_by"],
	];

	for (const [tool, valid, field] of cases) {
		test(`${tool}: '${field}' may not be missing, empty or whitespace`, async () => {
			const p = await makeProject();
			const before = (await events(p)).length;
			const { [field]: _, ...without } = valid;
			const missing = await p.fail(tool, without);
			expect(missing.code).toBe("invalid_argument");
			expect(missing.message).toBe(`missing required argument '${field}'`);
			expect(missing.details).toEqual({ field });
			for (const blank of ["", "   ", "\t\n"]) {
				await expectInvalid(p, tool, { ...valid, [field]: blank }, field);
			}
			await expectInvalid(p, tool, { ...valid, [field]: 42 }, field);
			await expectInvalid(p, tool, { ...valid, [field]: null }, field);
			expect((await events(p)).length).toBe(before);
		});
	}

	test("strings with surrounding spaces are accepted as given", async () => {
		const p = await makeProject();
		const out = await p.call("task.create", { title: "  padded  ", body_md: "\nbody\n" });
		expect(out.task).toMatchObject({ title: "  padded  ", body_md: "\nbody\n" });
	});

	test("optional strings are checked too", async () => {
		const p = await makeProject();
		await seedTask(p);
		await expectInvalid(
			p,
			"task.update_status",
			{ task_id: "T-1", status: "done", reason_md: " " },
			"reason_md",
		);
		await expectInvalid(p, "memory.query", { query: "q", scope: "" }, "scope");
		await expectInvalid(p, "memory.query", { query: "q", include_stale: "true" }, "include_stale");
		await expectInvalid(
			p,
			"task.create",
			{ title: "t", body_md: "b", readable_paths: "src" },
			"readable_paths",
		);
		await expectInvalid(
			p,
			"task.create",
			{ title: "t", body_md: "b", readable_paths: ["src", ""] },
			"readable_paths[1]",
		);
		await expectInvalid(
			p,
			"task.create",
			{ title: "t", body_md: "b", readable_paths: [7] },
			"readable_paths[0]",
		);
	});
});

describe("unknown arguments", () => {
	test("are rejected with the nearest known argument", async () => {
		const p = await makeProject();
		await seedTask(p);
		const err = await p.fail("task.get", { taskId: "T-1" });
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toBe("unknown argument 'taskId' (did you mean 'task_id'?)");
		expect(err.details).toEqual({ field: "taskId", did_you_mean: "task_id" });
	});

	test("are rejected even when every known argument is valid, on every implemented tool", async () => {
		const p = await makeProject();
		const entry = (await p.call("memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }))
			.entry as {
			id: string;
		};
		await seedTask(p);
		const before = (await events(p)).length;
		const cases: [string, Record<string, unknown>, string, string][] = [
			["task.create", { title: "t", body_md: "b" }, "bodyMd", "body_md"],
			["task.update_status", { task_id: "T-1", status: "done" }, "assignedAgentId", "assigned_agent_id"],
			["task.list", {}, "STATUS", "status"],
			["memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }, "memoryId", "memory_id"],
			["memory.query", { query: "q" }, "includeStale", "include_stale"],
			["memory.summarize", {}, "proposal-id", "proposal_id"],
			["memory.mark_stale", { memory_id: entry.id, reason_md: "r" }, "expectedRevision", "expected_revision"],
			["decision.record", { decision: "d", rationale_md: "r", decided_by: "o" }, "decidedBy", "decided_by"],
			["table.watch", {}, "afterEventId", "after_event_id"],
			["task.create", { title: "t", body_md: "b" }, "idempotencyKey", "idempotency_key"],
		];
		for (const [tool, valid, wrong, right] of cases) {
			const err = await p.fail(tool, { ...valid, [wrong]: "x" });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toBe(`unknown argument '${wrong}' (did you mean '${right}'?)`);
			expect(err.details).toEqual({ field: wrong, did_you_mean: right });
		}
		expect((await events(p)).length).toBe(before);
		expect((await p.call("memory.query", { query: "t" })).entries).toHaveLength(1);
	});

	test("a key like nothing known has no suggestion", async () => {
		const p = await makeProject();
		const err = await p.fail("task.list", { frobnicate: 1 });
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toBe("unknown argument 'frobnicate'");
		expect(err.details).toEqual({ field: "frobnicate" });
	});

	test("a tool without arguments rejects any", async () => {
		const p = await makeProject();
		const err = await p.fail("table.get_state", { run_id: "RUN-1" });
		expect(err.code).toBe("invalid_argument");
		expect(err.details?.field).toBe("run_id");
	});

	test("an unknown key is reported before a wrong value of a known one", async () => {
		const p = await makeProject();
		const err = await p.fail("task.create", { title: "", body_md: "b", titel: "x" });
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toBe("unknown argument 'titel' (did you mean 'title'?)");
		expect(err.details).toEqual({ field: "titel", did_you_mean: "title" });
	});
});

describe("caller-chosen ids", () => {
	const bad = ["a b", "../x", "x/y", "x".repeat(129), "", "é", "a\nb", "a\0b", "~root", "$x"];

	test("are validated on every id argument a caller chooses", async () => {
		const p = await makeProject();
		const before = (await events(p)).length;
		for (const id of bad) {
			await expectInvalid(p, "task.create", { title: "t", body_md: "b", task_id: id }, "task_id");
			await expectInvalid(
				p,
				"memory.record",
				{ scope: "s", kind: "k", title: "t", body_md: "b", memory_id: id },
				"memory_id",
			);
			await expectInvalid(
				p,
				"decision.record",
				{ decision: "d", rationale_md: "r", decided_by: "o", decision_id: id },
				"decision_id",
			);
			await expectInvalid(p, "task.get", { task_id: id }, "task_id");
			await expectInvalid(p, "task.list", { assigned_agent_id: id }, "assigned_agent_id");
			await expectInvalid(p, "memory.summarize", { task_id: id }, "task_id");
		}
		expect((await events(p)).length).toBe(before);
		const msg = (await p.fail("task.get", { task_id: "a b" })).message;
		expect(msg).toBe(
			"argument 'task_id' must be an id of 1-128 characters from letters, digits and . _ : - (was \"a b\")",
		);
	});

	test("accept letters, digits and . _ : - up to 128 characters", async () => {
		const p = await makeProject();
		for (const id of ["A-z_0.9:x", "x".repeat(128), "1", "...", "T:ns:01"]) {
			const out = await p.call("task.create", { title: "t", body_md: "b", task_id: id });
			expect((out.task as { id: string }).id).toBe(id);
			expect(((await p.call("task.get", { task_id: id })).task as { id: string }).id).toBe(id);
		}
		const m = await p.call("memory.record", {
			scope: "s",
			kind: "k",
			title: "t",
			body_md: "b",
			memory_id: "A-z_0.9:x",
		});
		expect((m.entry as { id: string }).id).toBe("A-z_0.9:x");
		const d = await p.call("decision.record", {
			decision: "d",
			rationale_md: "r",
			decided_by: "A-z_0.9:x",
			decision_id: "A-z_0.9:x",
		});
		expect((d.decision as { id: string }).id).toBe("A-z_0.9:x");
	});
});

describe("the arguments object", () => {
	test("null and undefined behave like {}", async () => {
		const p = await makeProject();
		await seedTask(p);
		const empty = await call(p.rt, "task.list", {}, p.ctx);
		expect(await call(p.rt, "task.list", null, p.ctx)).toEqual(empty);
		expect(await call(p.rt, "task.list", undefined, p.ctx)).toEqual(empty);
		expect((await call(p.rt, "table.get_state", null, p.ctx)) as object).toHaveProperty("tasks");
		expect((await call(p.rt, "memory.summarize", undefined, p.ctx)) as object).toHaveProperty(
			"entry_count",
			0,
		);

		// A tool with required arguments reports one of them as missing, exactly as with {}.
		const withEmpty = await p.fail("task.create", {});
		for (const args of [null, undefined]) {
			let caught: unknown;
			try {
				await call(p.rt, "task.create", args, p.ctx);
			} catch (err) {
				caught = err;
			}
			expect(caught).toMatchObject({ code: "invalid_argument", message: withEmpty.message });
			expect(withEmpty.message).toMatch(/^missing required argument '(title|body_md)'$/);
		}
	});

	test("an array, a string, a number or a boolean is invalid_argument", async () => {
		const p = await makeProject();
		const before = (await events(p)).length;
		for (const args of [[], [{ title: "t", body_md: "b" }], "title=t", 42, true]) {
			for (const tool of ["task.list", "task.create"]) {
				const err = await p.fail(tool, args);
				expect(err.code).toBe("invalid_argument");
				expect(err.message).toBe(`arguments to ${tool} must be a JSON object`);
			}
		}
		expect((await events(p)).length).toBe(before);
	});
});

describe("tools", () => {
	test("an unknown tool is not_found with the nearest tool name", async () => {
		const p = await makeProject();
		const err = await p.fail("task.creat", { title: "t", body_md: "b" });
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("unknown tool 'task.creat' (did you mean 'task.create'?)");
		expect(err.details).toEqual({ tool: "task.creat", did_you_mean: "task.create" });

		const near = await p.fail("memory_query", {});
		expect(near.details?.did_you_mean).toBe("memory.query");
	});

	test("an unknown tool nothing resembles has no suggestion; an empty name is unknown too", async () => {
		const p = await makeProject();
		const err = await p.fail("launch.missiles", {});
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("unknown tool 'launch.missiles'");
		expect(err.details).toEqual({ tool: "launch.missiles" });
		expect((await p.fail("", {})).code).toBe("not_found");
	});

	test("arguments are validated before any handler runs", async () => {
		const p = await makeProject();
		const err = await p.fail("test.run", { proposal_id: "P-1" });
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toStartWith("missing required argument '");
		const unknown = await p.fail("test.get_result", { test_run_id: "TR-1", testrunid: "x" });
		expect(unknown.code).toBe("invalid_argument");
		expect(unknown.details).toEqual({ field: "testrunid", did_you_mean: "test_run_id" });
	});
});

describe("idempotency_key and expected_revision", () => {
	test("the registry gives idempotency_key to exactly the mutating tools and expected_revision to the updating ones", () => {
		for (const t of TOOLS) {
			const names = argNames(t);
			expect({ tool: t.name, has: names.includes("idempotency_key") }).toEqual({
				tool: t.name,
				has: t.mutates,
			});
			expect({ tool: t.name, has: names.includes("expected_revision") }).toEqual({
				tool: t.name,
				has: t.updates,
			});
			if (t.updates) expect(t.mutates).toBe(true);
		}
	});

	test("mutating tools accept idempotency_key", async () => {
		const p = await makeProject();
		await seedTask(p);
		const entry = (
			await p.call("memory.record", {
				scope: "s",
				kind: "k",
				title: "t",
				body_md: "b",
				idempotency_key: "k1",
			})
		).entry as { id: string };
		expect(entry.id).toBeDefined();
		await p.call("task.create", { title: "t", body_md: "b", idempotency_key: "k1" });
		await p.call("task.update_status", { task_id: "T-1", status: "done", idempotency_key: "k1" });
		await p.call("memory.mark_stale", { memory_id: entry.id, reason_md: "r", idempotency_key: "k1" });
		await p.call("decision.record", {
			decision: "d",
			rationale_md: "r",
			decided_by: "o",
			idempotency_key: "k1",
		});
	});

	test("read-only tools reject idempotency_key as an unknown argument", async () => {
		const p = await makeProject();
		await seedTask(p);
		const reads: [string, Record<string, unknown>][] = [
			["task.get", { task_id: "T-1" }],
			["task.list", {}],
			["memory.query", { query: "q" }],
			["memory.summarize", {}],
			["table.get_state", {}],
			["table.watch", {}],
		];
		for (const [tool, args] of reads) {
			const err = await p.fail(tool, { ...args, idempotency_key: "k" });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toStartWith("unknown argument 'idempotency_key'");
			expect(err.details?.field).toBe("idempotency_key");
		}
	});

	test("only updating tools accept expected_revision", async () => {
		const p = await makeProject();
		await seedTask(p);
		const entry = (await p.call("memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }))
			.entry as {
			id: string;
		};
		expect(
			(await p.call("task.update_status", { task_id: "T-1", status: "done", expected_revision: 1 })).task,
		).toMatchObject({ revision: 2 });
		expect(
			(await p.call("memory.mark_stale", { memory_id: entry.id, reason_md: "r", expected_revision: 1 }))
				.entry,
		).toMatchObject({ revision: 2 });

		const before = (await events(p)).length;
		const others: [string, Record<string, unknown>][] = [
			["task.create", { title: "t", body_md: "b" }],
			["memory.record", { scope: "s", kind: "k", title: "t", body_md: "b" }],
			["decision.record", { decision: "d", rationale_md: "r", decided_by: "o" }],
			["task.get", { task_id: "T-1" }],
			["task.list", {}],
			["memory.query", { query: "q" }],
		];
		for (const [tool, args] of others) {
			const err = await p.fail(tool, { ...args, expected_revision: 1 });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toStartWith("unknown argument 'expected_revision'");
			expect(err.details?.field).toBe("expected_revision");
		}
		expect((await events(p)).length).toBe(before);
	});
});
