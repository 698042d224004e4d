// nowIso keeps the text of the current millisecond: it is always the clock's time, as text.
import { expect, setSystemTime, test } from "bun:test";
import { nowIso } from "../../src/vocabulary/ids.ts";

test("nowIso is the current millisecond in RFC 3339 UTC, following the clock", async () => {
	const before = Date.now();
	const t = nowIso();
	expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	expect(Date.parse(t)).toBeGreaterThanOrEqual(before);
	expect(Date.parse(t)).toBeLessThanOrEqual(Date.now());
	await Bun.sleep(5);
	expect(Date.parse(nowIso())).toBeGreaterThan(Date.parse(t));
	try {
		setSystemTime(new Date("2030-01-02T03:04:05.678Z"));
		expect(nowIso()).toBe("2030-01-02T03:04:05.678Z");
		setSystemTime(new Date("2020-01-02T03:04:05.678Z")); // a clock set back is followed too
		expect(nowIso()).toBe("2020-01-02T03:04:05.678Z");
	} finally {
		setSystemTime();
	}
});
