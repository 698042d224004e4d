// vote.list pages like every other list tool: `limit` (default 200, at most 1000), `cursor` from the
// previous page's `next_cursor`, which is null on the last page. Real dispatcher, real database.
import { describe, expect, test } from "bun:test";
import { type Flow, flow } from "../_helpers/flow-helpers.ts";
import { diffOf } from "../_helpers/helpers.ts";

type Page = { votes: { id: string; agent_id: string; created_at: string }[]; next_cursor: string | null };

/** A proposal with `n` votes: 3 cast through vote.cast, the rest stored by bulk agents (some at one instant). */
async function withVotes(n: number): Promise<{ f: Flow; proposal: string }> {
	const f = await flow({ "README.md": "one\n" });
	await f.claim("implementer-1", "README.md");
	const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
	for (const agent of ["architect-1", "reviewer-1", "tester-1"]) await f.vote(p.id, agent, "approve");
	const base = Date.parse("2099-01-01T00:00:00.000Z");
	await f.p.rt.store.withTransaction("write", async (tx) => {
		for (let i = 0; i < n - 3; i++) {
			const id = `bulk-${String(i).padStart(4, "0")}`;
			// Pairs share a timestamp, so the id must break ties.
			const now = new Date(base + Math.floor(i / 2)).toISOString();
			await tx.agents.insert(
				{ id, role: "reviewer", name: id, adapter: "manual", command: "", model: "" },
				now,
			);
			const vote = { proposal_id: p.id, agent_id: id, vote: "approve" as const, confidence: null };
			await tx.votes.cast({ ...vote, id: `V-${id}`, reason_md: "ok", patch_revision: 1 }, now);
		}
	});
	return { f, proposal: p.id };
}

const list = async (f: Flow, args: Record<string, unknown>) => (await f.call("vote.list", args)) as Page;

describe("vote.list pages", () => {
	test("200 votes by default, then the rest, with next_cursor null at the end", async () => {
		const { f, proposal } = await withVotes(205);
		const first = await list(f, { proposal_id: proposal });
		expect(first.votes).toHaveLength(200);
		expect(first.next_cursor).toEqual(expect.any(String));
		expect(first.votes.slice(0, 3).map((v) => v.agent_id)).toEqual(["architect-1", "reviewer-1", "tester-1"]);
		const rest = await list(f, { proposal_id: proposal, cursor: first.next_cursor });
		expect(rest.votes).toHaveLength(5);
		expect(rest.next_cursor).toBeNull();
		expect(rest).toMatchObject({ patch_revision: 1 });
	});

	test("limit and cursor see every vote exactly once, oldest first", async () => {
		const { f, proposal } = await withVotes(23);
		const all = (await list(f, { proposal_id: proposal })).votes;
		expect(all).toHaveLength(23);
		const order = [...all].sort(
			(a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
		);
		expect(all).toEqual(order);
		for (const limit of [1, 2, 7, 23, 1000]) {
			const seen: string[] = [];
			let cursor: string | null = null;
			do {
				const page: Page = await list(f, {
					proposal_id: proposal,
					limit,
					...(cursor !== null && { cursor }),
				});
				expect(page.votes.length).toBeLessThanOrEqual(limit);
				seen.push(...page.votes.map((v) => v.id));
				cursor = page.next_cursor;
			} while (cursor !== null);
			expect(seen).toEqual(all.map((v) => v.id));
		}
	});

	test("a replaced vote keeps its place", async () => {
		const { f, proposal } = await withVotes(5);
		const before = (await list(f, { proposal_id: proposal })).votes.map((v) => v.id);
		await f.vote(proposal, "architect-1", "revise");
		expect((await list(f, { proposal_id: proposal })).votes.map((v) => v.id)).toEqual(before);
	});

	test("a limit outside 1..1000 or a cursor it did not return is invalid_argument", async () => {
		const { f, proposal } = await withVotes(3);
		for (const limit of [0, 1001, 1.5, "2"]) {
			const err = await f.fail("vote.list", { proposal_id: proposal, limit });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "limit" });
		}
		// Another list's cursor holds another key.
		await f.call("task.create", { title: "second", body_md: "b" });
		const tasks = (await f.call("task.list", { limit: 1 })) as { next_cursor: string };
		expect(tasks.next_cursor).toEqual(expect.any(String));
		for (const cursor of ["nope", Buffer.from("[1,2]").toString("base64url"), tasks.next_cursor]) {
			const err = await f.fail("vote.list", { proposal_id: proposal, cursor });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "cursor" });
		}
	});
});
