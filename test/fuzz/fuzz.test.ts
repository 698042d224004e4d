// The fuzz suite's short run: one real owner in a sandbox, then seeded cases over the legacy socket,
// Streamable HTTP and the stdio bridge (a real `mcp stdio` subprocess), with the issue's fixed cases
// among them (huge names and keys, over-cap lines, stalled bodies, floods). Every answer must be a
// well-formed reply of its transport, a valid call must be answered after every batch, and at the
// end the database passes integrity_check and nothing outside the project was written.
// FUZZ_SEED and FUZZ_CASES override the seed and the number of generated cases per transport; the
// long run (10^5 cases per transport, with timings and memory) is `npm run fuzz`.
import { beforeAll, describe, expect, test } from "bun:test";
import { httpDriver } from "./http.ts";
import { describe as describeReport, type FuzzReport, fromEnv, run } from "./run.ts";
import { socketDriver } from "./socket.ts";
import { stdioDriver } from "./stdio.ts";

const { seed, cases } = fromEnv(300);
let reports: FuzzReport[] = [];

beforeAll(async () => {
	console.log(
		`fuzz: seed ${seed}, ${cases} generated cases per transport (FUZZ_SEED=${seed} repeats this run)`,
	);
	reports = await run(
		[
			["socket", socketDriver],
			["http", httpDriver],
			["stdio", stdioDriver],
		],
		{ seed, cases, batch: 100, concurrency: 8, hangMs: 10_000, issueRounds: 1, long: false, log: () => {} },
	);
	for (const r of reports) console.log(describeReport(r).join("\n"));
}, 240_000);

const report = (transport: string) => {
	const r = reports.find((x) => x.transport === transport);
	if (!r) throw new Error(`no report for ${transport}: an earlier transport left the owner unusable`);
	return r;
};

describe(`fuzz (seed ${seed})`, () => {
	for (const transport of ["socket", "http", "stdio"]) {
		test(`${transport}: no crash, no hang, no malformed answer, a valid call answered after every batch`, () => {
			const r = report(transport);
			expect(r.tally.summary()).toEqual([]);
			expect(r.tally.cases).toBeGreaterThanOrEqual(cases);
			expect(r.tally.validCalls).toBe(r.tally.batches);
		});
	}

	test("the database passes integrity_check and nothing outside the project was written", () => {
		expect(reports.length).toBeGreaterThan(0);
		for (const r of reports) {
			expect(r.integrity).toBe("ok");
			expect(r.outside).toEqual([]);
		}
	});
});
