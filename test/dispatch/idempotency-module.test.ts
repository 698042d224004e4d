// src/idempotency.ts on its own, on a real project's store: how a key is read from the arguments,
// what is stored under it, what a second use replays or refuses, and a key held by a running call.
import { describe, expect, test } from "bun:test";
import { claimKey, keyOf, rememberResult, replay } from "../../src/idempotency.ts";
import { findTool, type Tool } from "../../src/registry/index.ts";
import { makeProject } from "../_helpers/helpers.ts";

const tool = findTool("task.create") as Tool;
const now = new Date().toISOString();

describe("keyOf", () => {
	test("no key: nothing to keep; a key: the hash of the other arguments, in any order", () => {
		expect(keyOf({ title: "t" })).toEqual({ key: undefined, argsHash: "" });
		const a = keyOf({ idempotency_key: "k", title: "t", body_md: "b" });
		const b = keyOf({ body_md: "b", title: "t", idempotency_key: "k" });
		expect(a.key).toBe("k");
		expect(a.argsHash).toMatch(/^[0-9a-f]{64}$/);
		expect(b).toEqual(a);
		expect(keyOf({ idempotency_key: "k", title: "other", body_md: "b" }).argsHash).not.toBe(a.argsHash);
	});
});

describe("a stored result", () => {
	test("replays for the same key and arguments; other arguments are a conflict naming the key", async () => {
		const p = await makeProject();
		const keyed = keyOf({ idempotency_key: "k-1", title: "t" });
		const result = { task: { id: "T-1" } };
		await p.rt.store.withTransaction("write", (tx) => rememberResult(p.rt, tx, tool, keyed, result, now));
		const again = await p.rt.store.withTransaction("read", (tx) => replay(tx, tool, keyed, now));
		expect(again).toEqual(result);
		const other = keyOf({ idempotency_key: "k-1", title: "changed" });
		const err = await p.rt.store
			.withTransaction("read", (tx) => replay(tx, tool, other, now))
			.then(
				() => undefined,
				(e) => e as { code: string; message: string },
			);
		expect(err).toMatchObject({ code: "conflict" });
		expect(err?.message).toContain(
			"idempotency key 'k-1' was already used for task.create with other arguments",
		);
		// Without a key nothing is stored or replayed.
		const none = keyOf({ title: "t" });
		await p.rt.store.withTransaction("write", (tx) => rememberResult(p.rt, tx, tool, none, result, now));
		expect(await p.rt.store.withTransaction("read", (tx) => replay(tx, tool, none, now))).toBeUndefined();
		p.close();
	});

	test("a key held by a call still running (this live process) is a conflict; once done it replays", async () => {
		const p = await makeProject();
		const keyed = keyOf({ idempotency_key: "k-2", title: "t" });
		expect(
			await p.rt.store.withTransaction("write", (tx) => claimKey(p.rt, tx, tool, keyed, now)),
		).toBeUndefined();
		const err = await p.rt.store
			.withTransaction("write", (tx) => claimKey(p.rt, tx, tool, keyed, now))
			.then(
				() => undefined,
				(e) => e as { code: string; message: string },
			);
		expect(err?.message).toBe("a task.create call with idempotency key 'k-2' is still running");
		await p.rt.store.withTransaction("write", (tx) =>
			rememberResult(p.rt, tx, tool, keyed, { task: { id: "T-2" } }, now),
		);
		expect(await p.rt.store.withTransaction("write", (tx) => claimKey(p.rt, tx, tool, keyed, now))).toEqual({
			task: { id: "T-2" },
		});
		p.close();
	});
});
