// One timer for the deadlines of many connections (src/transports/deadlines.ts): each is met no
// earlier than set and at most a granularity late; cleared or moved ones are not met early.
import { describe, expect, test } from "bun:test";
import { Deadlines } from "../../src/transports/deadlines.ts";

const GRAIN = 20;

describe("Deadlines", () => {
	test("each deadline passes no earlier than set, and not much later", async () => {
		const met = new Map<string, number>();
		const t0 = performance.now();
		const deadlines = new Deadlines<string>(GRAIN, (item) => met.set(item, performance.now() - t0));
		deadlines.set("short", 50);
		deadlines.set("long", 150);
		await Bun.sleep(400);
		expect(met.get("short")).toBeGreaterThanOrEqual(50);
		expect(met.get("long")).toBeGreaterThanOrEqual(150);
		// Late by at most the granularity, and whatever the machine adds to any timer.
		expect(met.get("long") as number).toBeLessThan(150 + GRAIN + 200);
		deadlines.stop();
	});

	test("a cleared deadline never passes; a moved one passes at its new time", async () => {
		const met: string[] = [];
		const deadlines = new Deadlines<string>(GRAIN, (item) => met.push(item));
		deadlines.set("cleared", 40);
		deadlines.set("moved", 40);
		deadlines.clear("cleared");
		deadlines.set("moved", 200);
		await Bun.sleep(120);
		expect(met).toEqual([]);
		await Bun.sleep(250);
		expect(met).toEqual(["moved"]);
		deadlines.stop();
	});

	test("stop() drops every deadline; one set afterwards runs again", async () => {
		const met: string[] = [];
		const deadlines = new Deadlines<string>(GRAIN, (item) => met.push(item));
		deadlines.set("dropped", 30);
		deadlines.stop();
		deadlines.set("later", 30);
		await Bun.sleep(200);
		expect(met).toEqual(["later"]);
		deadlines.stop();
	});
});
