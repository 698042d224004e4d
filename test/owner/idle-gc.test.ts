// The owner collects once its clients go quiet after enough calls (src/owner/idle-gc.ts): never while
// a call runs, never per call, and once after start-up.
import { describe, expect, test } from "bun:test";
import { collectWhenIdle } from "../../src/owner/idle-gc.ts";
import { InFlight } from "../../src/transports/inflight.ts";

const QUIET = 40;
const limits = { quietMs: QUIET, minCalls: 3 };
const calls = async (inflight: InFlight, n: number) => {
	for (let i = 0; i < n; i++) await inflight.track(Bun.sleep(1));
};

describe("collectWhenIdle", () => {
	test("collects once, a quiet moment after enough calls, and not again until enough more", async () => {
		const inflight = new InFlight();
		let collected = 0;
		const collector = collectWhenIdle(inflight, () => collected++, limits);
		await calls(inflight, 3);
		expect(collected).toBe(0); // not yet quiet long enough
		await Bun.sleep(QUIET * 3);
		expect(collected).toBe(1);
		await calls(inflight, 2);
		await Bun.sleep(QUIET * 3);
		expect(collected).toBe(1); // two calls since: too few
		await calls(inflight, 1);
		await Bun.sleep(QUIET * 3);
		expect(collected).toBe(2);
		collector.stop();
	});

	test("waits while a call runs, and calls that go on postpone it", async () => {
		const inflight = new InFlight();
		let collected = 0;
		// A longer quiet time than the others: calls 50 ms apart must never look quiet, however loaded the machine.
		const quietMs = 250;
		const collector = collectWhenIdle(inflight, () => collected++, { quietMs, minCalls: 3 });
		await calls(inflight, 3);
		const long = Promise.withResolvers<void>();
		inflight.track(long.promise);
		await Bun.sleep(quietMs * 2);
		expect(collected).toBe(0);
		long.resolve();
		await long.promise;
		for (let i = 0; i < 6; i++) {
			await Bun.sleep(50);
			await calls(inflight, 1);
		}
		expect(collected).toBe(0);
		await Bun.sleep(quietMs * 3);
		expect(collected).toBe(1);
		collector.stop();
	});

	test("soon() collects once calls are quiet, however few there were; stop() cancels", async () => {
		const inflight = new InFlight();
		let collected = 0;
		const collector = collectWhenIdle(inflight, () => collected++, limits);
		collector.soon();
		await Bun.sleep(QUIET * 3);
		expect(collected).toBe(1);
		collector.soon();
		collector.stop();
		await Bun.sleep(QUIET * 3);
		expect(collected).toBe(1);
	});
});
