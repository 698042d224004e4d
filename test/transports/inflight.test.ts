// InFlight counts the calls in progress: what a stopping owner drains, and what tells it clients went quiet.
import { describe, expect, test } from "bun:test";
import { InFlight } from "../../src/transports/inflight.ts";

describe("InFlight", () => {
	test("counts a call until it settles, resolved or rejected, and hands back the call's own promise", async () => {
		const inflight = new InFlight();
		const { promise: ok, resolve } = Promise.withResolvers<number>();
		const { promise: bad, reject } = Promise.withResolvers<number>();
		expect(inflight.track(ok)).toBe(ok);
		const tracked = inflight.track(bad);
		expect(inflight.size).toBe(2);
		resolve(1);
		expect(await ok).toBe(1);
		expect(inflight.size).toBe(1); // dropped before the caller resumed
		reject(new Error("no"));
		await expect(tracked).rejects.toThrow("no");
		expect(inflight.size).toBe(0);
		expect(inflight.calls).toBe(2);
		inflight.resetCalls();
		expect(inflight.calls).toBe(0);
	});

	test("tells its idle listeners each time the last call ends, and drain waits for it", async () => {
		const inflight = new InFlight();
		let idle = 0;
		const stop = inflight.onIdle(() => idle++);
		const a = Promise.withResolvers<void>();
		const b = Promise.withResolvers<void>();
		inflight.track(a.promise);
		inflight.track(b.promise);
		const drained = inflight.drain(5000);
		a.resolve();
		await a.promise;
		expect(idle).toBe(0);
		b.resolve();
		expect(await drained).toBe(true);
		expect(idle).toBe(1);
		stop();
		await inflight.track(Promise.resolve());
		expect(idle).toBe(1);
	});

	test("begin() and end() count a call as track() does, for a transport that sees its end itself", async () => {
		const inflight = new InFlight();
		let idle = 0;
		inflight.onIdle(() => idle++);
		inflight.begin();
		inflight.begin();
		const drained = inflight.drain(5000);
		inflight.end();
		expect(inflight.size).toBe(1);
		inflight.end();
		expect(await drained).toBe(true);
		expect([inflight.size, inflight.calls, idle]).toEqual([0, 2, 1]);
	});

	test("drain gives up after its bound", async () => {
		const inflight = new InFlight();
		inflight.track(new Promise(() => {}));
		expect(await inflight.drain(20)).toBe(false);
	});
});
