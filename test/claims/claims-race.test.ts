// Eight processes race for the same write claim, released together: exactly one wins.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allEvents, atBarrier, makeProject } from "../_helpers/helpers.ts";

interface Report {
	agent: string;
	start: number;
	end: number;
	won: boolean;
	claim_id?: string;
	code?: string;
	details?: { claim_id: string; agent_id: string };
}

test("eight processes race for one write claim: one wins, seven get conflict naming the holder", async () => {
	const p = await makeProject({ config: "agents:\n  implementers: { count: 8 }\n" });
	writeFileSync(join(p.root, "contested.ts"), "export const x = 1;\n");
	const { task } = (await p.call("task.create", { title: "race", body_md: "who gets it" })) as {
		task: { id: string };
	};

	const racers = await atBarrier(
		"claim-race.ts",
		Array.from({ length: 8 }, (_, i) => [p.root, `implementer-${i + 1}`, task.id]),
	);
	const reports = (await racers.go()).map((l) => JSON.parse(l) as Report);

	// The attempts overlap in time: sorted by start, each begins before the ones before it have all
	// finished, so from the first start to the last end some attempt was always in flight.
	const byStart = [...reports].sort((a, b) => a.start - b.start);
	let reach = (byStart[0] as Report).end;
	for (const r of byStart.slice(1)) {
		expect(r.start).toBeLessThan(reach);
		reach = Math.max(reach, r.end);
	}

	const winners = reports.filter((r) => r.won);
	expect(winners.length).toBe(1);
	const winner = winners[0] as Report;
	for (const loser of reports.filter((r) => !r.won)) {
		expect(loser.code).toBe("conflict");
		expect(loser.details).toMatchObject({ claim_id: winner.claim_id, agent_id: winner.agent });
	}
	const live = (await p.call("resource.claim_status", { resource_id: "file:contested.ts" })) as {
		claims: unknown[];
	};
	expect(live.claims.length).toBe(1);
	expect((await allEvents(p)).filter((e) => e.type === "claim.created").length).toBe(1);
}, 60_000);
