// peer.list: every agent and `operator`, sorted by id, with enabled and live (a session not ended,
// revoked or expired holds it), paged by limit and cursor.
import { describe, expect, test } from "bun:test";
import { call } from "../../src/dispatch.ts";
import { agentContext, disableAgent, expectDeclaredOutput, makeProject } from "../_helpers/helpers.ts";

interface Peer {
	id: string;
	role: string;
	enabled: boolean;
	live: boolean;
}

describe("peer.list", () => {
	test("every agent and the operator, sorted by id, with live and enabled", async () => {
		const p = await makeProject();
		const agents = (await p.rt.store.withTransaction("read", (tx) => tx.agents.list())).map((a) => a.id);
		const first = await p.call("peer.list");
		expectDeclaredOutput("peer.list", first);
		const peers = first.peers as Peer[];
		expect(peers.map((x) => x.id)).toEqual([...agents, "operator"].sort());
		expect(peers.find((x) => x.id === "operator")).toEqual({
			id: "operator",
			role: "operator",
			enabled: true,
			live: false,
		});
		expect(peers.find((x) => x.id === "implementer-1")).toEqual({
			id: "implementer-1",
			role: "Implementer",
			enabled: true,
			live: false,
		});
		expect(first.next_cursor).toBeNull();

		// A minted session makes its agent live until it is revoked; a disabled agent is still listed.
		const ctx = await agentContext(p, "implementer-1");
		await disableAgent(p, "tester-1");
		const live = async () =>
			Object.fromEntries(
				((await p.call("peer.list")).peers as Peer[]).map((x) => [x.id, [x.enabled, x.live]]),
			);
		expect(await live()).toMatchObject({ "implementer-1": [true, true], "tester-1": [false, false] });
		// An agent lists too, and sees itself live.
		const mine = (await call(p.rt, "peer.list", {}, ctx)).peers.find((x) => x.id === "implementer-1");
		expect(mine?.live).toBe(true);
		const session = ctx.principal.kind === "agent" ? ctx.principal.session_id : "";
		await p.call("session.revoke", { session_id: session });
		expect((await live())["implementer-1"]).toEqual([true, false]);
	});

	test("pages by limit and cursor, to the end", async () => {
		const p = await makeProject();
		const all = (await p.call("peer.list")).peers as Peer[];
		const seen: Peer[] = [];
		let cursor: string | null | undefined;
		let pages = 0;
		do {
			const page = await p.call("peer.list", { limit: 3, ...(cursor && { cursor }) });
			seen.push(...(page.peers as Peer[]));
			cursor = page.next_cursor as string | null;
			pages++;
		} while (cursor);
		expect(seen).toEqual(all);
		expect(pages).toBe(Math.ceil(all.length / 3));
		expect((await p.fail("peer.list", { cursor: "nonsense" })).code).toBe("invalid_argument");
	});
});
