// One sweep for the deadlines of many connections (src/transports/deadlines.ts): it runs while
// there is something to watch, at its period, and stops by itself when nothing is left.
import { describe, expect, test } from "bun:test";
import { NONE, Sweep } from "../../src/transports/deadlines.ts";

const PERIOD = 20;

describe("Sweep", () => {
	test("meets each deadline no earlier than it passes and about a period late at most", async () => {
		const t0 = performance.now();
		const conns = [{ deadline: t0 + 50 }, { deadline: t0 + 150 }, { deadline: NONE }];
		const met = new Map<number, number>();
		const sweep = new Sweep(PERIOD, (now) => {
			conns.forEach((c, i) => {
				if (c.deadline > now) return;
				c.deadline = NONE;
				met.set(i, now - t0);
			});
			return true;
		});
		sweep.run();
		sweep.run(); // running already: no second timer
		await Bun.sleep(400);
		sweep.stop();
		expect(met.get(0)).toBeGreaterThanOrEqual(50);
		expect(met.get(1)).toBeGreaterThanOrEqual(150);
		// A period late at most, plus whatever the machine adds to any timer.
		expect(met.get(1) as number).toBeLessThan(150 + PERIOD + 200);
		expect(met.has(2)).toBe(false);
	});

	test("stops when nothing is left to watch, and runs again when asked", async () => {
		let checks = 0;
		let watching = 2;
		const sweep = new Sweep(PERIOD, () => {
			checks++;
			return --watching > 0;
		});
		sweep.run();
		await Bun.sleep(PERIOD * 8);
		expect(checks).toBe(2); // the second check found nothing left and stopped it
		watching = 1;
		sweep.run();
		await Bun.sleep(PERIOD * 6);
		expect(checks).toBe(3);
		sweep.stop();
	});
});
