// message.inbox with wait_ms: an empty inbox waits for a commit (another process's included) without
// holding a transaction, returns at once when something is there, returns empty at its timeout, and
// is `cancelled` when its call is aborted.
import { describe, expect, test } from "bun:test";
import { call } from "../../src/dispatch.ts";
import { agentContext, atBarrier, makeProject } from "../_helpers/helpers.ts";

const I1 = "implementer-1";

describe("message.inbox wait_ms", () => {
	test("is woken by a message another process posts, well before its timeout", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const poster = await atBarrier("post-message.ts", [[p.root, I1, "from another process"]]);
		const started = performance.now();
		const waiting = call(p.rt, "message.inbox", { wait_ms: 20_000 }, i1);
		await Bun.sleep(200);
		const [line] = await poster.go();
		const box = await waiting;
		const elapsed = performance.now() - started;
		expect(box.messages.map((m) => m.id)).toEqual([JSON.parse(line as string).id]);
		expect(box.messages[0]?.body_md).toBe("from another process");
		expect(elapsed).toBeGreaterThanOrEqual(200);
		expect(elapsed).toBeLessThan(10_000);
	});

	test("holds no transaction while it waits: this process writes meanwhile", async () => {
		const p = await makeProject();
		const waiting = call(p.rt, "message.inbox", { agent_id: I1, wait_ms: 20_000 }, p.ctx);
		await Bun.sleep(100);
		// Unrelated writes wake it, but it goes back to waiting: nothing for implementer-1 yet.
		await call(p.rt, "message.post", { to_agent_id: "implementer-2", body_md: "not yours" }, p.ctx);
		await Bun.sleep(100);
		const { message } = await call(p.rt, "message.post", { to_agent_id: I1, body_md: "yours" }, p.ctx);
		expect((await waiting).messages.map((m) => m.id)).toEqual([message.id]);
	});

	test("returns at once when the inbox has something, and empty at its timeout", async () => {
		const p = await makeProject();
		const t0 = performance.now();
		const empty = await call(p.rt, "message.inbox", { agent_id: I1, wait_ms: 300 }, p.ctx);
		expect(empty.messages).toEqual([]);
		expect(performance.now() - t0).toBeGreaterThanOrEqual(290);

		await call(p.rt, "message.post", { to_agent_id: I1, body_md: "here" }, p.ctx);
		const t1 = performance.now();
		const full = await call(p.rt, "message.inbox", { agent_id: I1, wait_ms: 20_000 }, p.ctx);
		expect(full.messages).toHaveLength(1);
		expect(performance.now() - t1).toBeLessThan(2_000);
	});

	test("is cancelled when its call is aborted", async () => {
		const p = await makeProject();
		const abort = new AbortController();
		const ctx = { ...p.ctx, signal: abort.signal };
		const waiting = call(p.rt, "message.inbox", { agent_id: I1, wait_ms: 20_000 }, ctx).catch((e) => e);
		await Bun.sleep(100);
		abort.abort();
		expect(await waiting).toMatchObject({ code: "cancelled" });
	});
});
