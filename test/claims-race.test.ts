// Eight processes race for the same write claim, released together: exactly one wins.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allEvents, makeProject, REPO } from "./helpers.ts";

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

	const children = Array.from({ length: 8 }, (_, i) =>
		Bun.spawn(
			[
				process.execPath,
				join(REPO, "test/fixtures-scripts/claim-race.ts"),
				p.root,
				`implementer-${i + 1}`,
				task.id,
			],
			{
				stdin: "pipe",
				stdout: "pipe",
				stderr: "inherit",
			},
		),
	);
	const readers = children.map((c) => c.stdout.getReader());
	const readLine = async (i: number) => {
		let text = "";
		while (!text.includes("\n")) {
			const { value, done } = await (readers[i] as ReadableStreamDefaultReader<Uint8Array>).read();
			if (done) break;
			text += new TextDecoder().decode(value);
		}
		return text;
	};
	expect(await Promise.all(children.map((_, i) => readLine(i)))).toEqual(Array(8).fill("ready\n"));
	for (const c of children) {
		c.stdin.write("go\n");
		c.stdin.end();
	}
	const reports = (await Promise.all(children.map((_, i) => readLine(i)))).map(
		(l) => JSON.parse(l) as Report,
	);
	expect(await Promise.all(children.map((c) => c.exited))).toEqual(Array(8).fill(0));

	// The attempts overlap in time: every one started before the first one finished.
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
