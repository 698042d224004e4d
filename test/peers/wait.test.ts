// peer.wait: it returns at once for a request already answered or cancelled; a bounded wait returns
// the request still open (timed_out) and leaves it open; a wait begun before the answer returns as
// soon as it commits, from this process or another one (a spawned bun process calling peer.answer
// on the same project); it holds no transaction meanwhile; an abort is `cancelled`.
import { describe, expect, test } from "bun:test";
import type { CallContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { atBarrier } from "../_helpers/helpers.ts";
import { ASSIGNEE, peersProject, readRequest, type WithAnswers } from "../_helpers/peer-helpers.ts";

type Waited = WithAnswers & { timed_out: boolean };

describe("peer.wait", () => {
	test("a bounded wait times out with the request still open, and leaves it open", async () => {
		const { p, ask, as, requester } = await peersProject();
		const r = await ask();
		const start = performance.now();
		const out = (await as(requester, "peer.wait", { request_id: r.id, wait_ms: 300 })) as unknown as Waited;
		const took = performance.now() - start;
		expect(out).toEqual({ request: r, answers: [], timed_out: true });
		expect(took).toBeGreaterThanOrEqual(290);
		expect(took).toBeLessThan(3000);
		expect((await readRequest(p, r.id)).request).toEqual(r);
		// wait_ms 0 is a look, not a wait.
		expect(
			((await as(requester, "peer.wait", { request_id: r.id, wait_ms: 0 })) as unknown as Waited).timed_out,
		).toBe(true);
	});

	test("an answered or cancelled request returns at once, not timed out", async () => {
		const { ask, as, requester, assignee } = await peersProject();
		const answered = await ask();
		await as(assignee, "peer.answer", { request_id: answered.id, answer_md: "a" });
		const cancelled = await ask();
		await as(requester, "peer.cancel", { request_id: cancelled.id, reason_md: "r" });
		for (const [r, status] of [
			[answered, "answered"],
			[cancelled, "cancelled"],
		] as const) {
			const start = performance.now();
			const out = (await as(requester, "peer.wait", {
				request_id: r.id,
				wait_ms: 20_000,
			})) as unknown as Waited;
			expect(performance.now() - start).toBeLessThan(1000);
			expect(out.request.status).toBe(status);
			expect(out.timed_out).toBe(false);
		}
	});

	test("a wait begun before the answer returns as soon as it commits, with the answer", async () => {
		const { p, ask, as, requester, assignee } = await peersProject();
		const r = await ask();
		const waiting = as(requester, "peer.wait", {
			request_id: r.id,
			wait_ms: 20_000,
		}) as unknown as Promise<Waited>;
		await Bun.sleep(200);
		// The waiter holds no transaction: the answer's write transaction is not held up by it.
		const answering = performance.now();
		const { answer } = (await as(assignee, "peer.answer", { request_id: r.id, answer_md: "7117" })) as {
			answer: WithAnswers["answers"][number];
		};
		const answeredAt = performance.now();
		expect(answeredAt - answering).toBeLessThan(1000);
		const out = await waiting;
		expect(performance.now() - answeredAt).toBeLessThan(1000);
		expect(out.timed_out).toBe(false);
		expect(out.request.status).toBe("answered");
		expect(out.answers).toEqual([answer]);
		expect(await readRequest(p, r.id)).toEqual({ request: out.request, answers: out.answers });
	});

	test("a wait begun before a cancellation returns it", async () => {
		const { ask, as, requester, assignee } = await peersProject();
		const r = await ask();
		const waiting = as(assignee, "peer.wait", {
			request_id: r.id,
			wait_ms: 20_000,
		}) as unknown as Promise<Waited>;
		await Bun.sleep(100);
		await as(requester, "peer.cancel", { request_id: r.id, reason_md: "moot" });
		const out = await waiting;
		expect(out.request).toMatchObject({ status: "cancelled", cancel_reason_md: "moot" });
		expect(out.timed_out).toBe(false);
	});

	test("an abort while waiting is `cancelled`, and the request stays open", async () => {
		const { p, ask, requester } = await peersProject();
		const r = await ask();
		const abort = new AbortController();
		const ctx: CallContext = { ...requester, signal: abort.signal };
		const waiting = call(p.rt, "peer.wait", { request_id: r.id, wait_ms: 20_000 }, ctx).then(
			() => undefined,
			(err: unknown) => err,
		);
		await Bun.sleep(150);
		const start = performance.now();
		abort.abort();
		const err = await waiting;
		expect(performance.now() - start).toBeLessThan(500);
		expect(err).toBeInstanceOf(ToolError);
		expect((err as ToolError).code).toBe("cancelled");
		expect((await readRequest(p, r.id)).request.status).toBe("open");
	});

	test("a commit from another process wakes the wait: a spawned bun process answers", async () => {
		const { p, ask, as, requester, assignee } = await peersProject();
		const r = await ask();
		const child = await atBarrier("peer-call.ts", [[p.root]]);
		const waiting = as(requester, "peer.wait", {
			request_id: r.id,
			wait_ms: 25_000,
		}) as unknown as Promise<Waited>;
		const returned = waiting.then(() => performance.timeOrigin + performance.now());
		await Bun.sleep(100);
		const [line] = await child.go(
			`${JSON.stringify({
				tool: "peer.answer",
				args: { request_id: r.id, answer_md: "from the other process" },
				principal: assignee.principal,
			})}\n`,
		);
		const reply = JSON.parse(line as string) as {
			ok: boolean;
			at: number;
			result: { answer: { id: string } };
		};
		expect(reply.ok).toBe(true);
		const out = await waiting;
		expect(out.timed_out).toBe(false);
		expect(out.answers.map((a) => [a.id, a.author_id, a.answer_md])).toEqual([
			[reply.result.answer.id, ASSIGNEE, "from the other process"],
		]);
		// Woken by the other process's commit (data_version is polled every ~20 ms), not by a timeout.
		const lag = (await returned) - reply.at;
		console.log(`peer.wait woken ${lag.toFixed(1)} ms after the other process's answer returned`);
		expect(lag).toBeLessThan(1500);
	});
});
