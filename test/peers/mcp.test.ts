// Two agents exchanging a question over MCP Streamable HTTP, each with its own real capability
// (minted as `roundtable sessions mint` does: only the hash is stored): one asks and waits, the
// other reads and answers, and the waiting call returns with the answer. Acting as the other, or
// as a third agent, is refused; the events name who did what.
import { afterAll, describe, expect, test } from "bun:test";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { allEvents, makeProject } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";
import { type AnyClient, agentClient, type Outcome, outcome } from "../_helpers/permissions-fixture.ts";

/** A call's result, failing the test when it was refused. */
function resultOf<T>(o: Outcome): T {
	if (!o.ok) throw new Error(`${o.code}: ${o.message}`);
	return o.result as T;
}

describe("a two-agent exchange over MCP HTTP with capabilities", async () => {
	const p = await makeProject();
	const server = loopbackHttp(p.rt, { loopbackAuth: "token", operatorTokens: ["peer-test-operator-token"] });
	const clients: AnyClient[] = [];
	afterAll(async () => {
		for (const c of clients) await c.close().catch(() => {});
		await server.close();
	});
	const connect = async (agent: string, binding: Record<string, string>) => {
		const raw = newCapability();
		await p.call("session.mint", { agent_id: agent, capability_sha256: capabilityHash(raw), ...binding });
		const client = await agentClient(server.url, raw);
		clients.push(client);
		return (tool: string, args: object) => outcome(client, tool, args);
	};
	for (const [task, agent] of [
		["T-a", "implementer-1"],
		["T-b", "implementer-2"],
	])
		await p.call("task.create", { task_id: task, title: task, body_md: "b", assigned_agent_id: agent });
	const alice = await connect("implementer-1", { task_id: "T-a" });
	const bob = await connect("implementer-2", { task_id: "T-b" });
	const carol = await connect("reviewer-1", {});

	test("ask, wait, read, answer: the waiting call returns with the answer", async () => {
		const { peers } = resultOf<{ peers: { id: string; live: boolean }[] }>(await alice("peer.list", {}));
		expect(peers.find((x) => x.id === "implementer-2")?.live).toBe(true);
		expect(peers.map((x) => x.id)).toContain("operator");

		const asked = await alice("peer.ask", {
			assignee_agent_id: "implementer-2",
			question_md: "Does T-b change the socket path?",
			task_id: "T-a",
		});
		expect(asked).toMatchObject({ ok: true, result: { request: { requester_id: "implementer-1" } } });
		const id = resultOf<{ request: { id: string } }>(asked).request.id;

		const waiting = alice("peer.wait", { request_id: id, wait_ms: 20_000 });
		await Bun.sleep(200);
		expect(await bob("peer.request", { request_id: id })).toMatchObject({
			ok: true,
			result: { request: { status: "open", question_md: "Does T-b change the socket path?" }, answers: [] },
		});
		// Bob may not speak as Alice, Alice may not answer her own question, Carol may not read it.
		expect(
			await bob("peer.ask", { agent_id: "implementer-1", assignee_agent_id: "reviewer-1", question_md: "q" }),
		).toMatchObject({ ok: false, code: "permission_denied" });
		expect(await alice("peer.answer", { request_id: id, answer_md: "no" })).toMatchObject({
			ok: false,
			code: "permission_denied",
		});
		expect(await carol("peer.request", { request_id: id })).toMatchObject({
			ok: false,
			code: "permission_denied",
		});

		const answered = await bob("peer.answer", { request_id: id, answer_md: "No: it stays .roundtable/mcp." });
		expect(answered).toMatchObject({
			ok: true,
			result: { answer: { author_id: "implementer-2", late: false } },
		});
		const start = performance.now();
		const waited = await waiting;
		expect(performance.now() - start).toBeLessThan(2000);
		expect(waited).toMatchObject({
			ok: true,
			result: {
				timed_out: false,
				request: { id, status: "answered", assignee_id: "implementer-2" },
				answers: [{ author_id: "implementer-2", answer_md: "No: it stays .roundtable/mcp." }],
			},
		});
	});

	test("cancelled by the asker, replied to late by the assignee, over the same clients", async () => {
		const asked = await alice("peer.ask", {
			assignee_agent_id: "implementer-2",
			question_md: "Still needed?",
		});
		const id = resultOf<{ request: { id: string } }>(asked).request.id;
		expect(await bob("peer.cancel", { request_id: id, reason_md: "not mine" })).toMatchObject({
			ok: false,
			code: "permission_denied",
		});
		expect(await alice("peer.cancel", { request_id: id, reason_md: "solved" })).toMatchObject({
			ok: true,
			result: { request: { status: "cancelled", cancelled_by: "implementer-1" } },
		});
		expect(await bob("peer.answer", { request_id: id, answer_md: "yes" })).toMatchObject({
			ok: false,
			code: "failed_precondition",
		});
		expect(await bob("peer.reply_late", { request_id: id, answer_md: "for the record: yes" })).toMatchObject({
			ok: true,
			result: { request: { status: "cancelled" }, answer: { late: true } },
		});
	});

	test("the events name who did what, and the refusals are call.denied events", async () => {
		const events = await allEvents(p);
		const peer = events.filter((e) => e.type.startsWith("peer."));
		expect(peer.map((e) => [e.type, e.actor_id])).toEqual([
			["peer.asked", "implementer-1"],
			["peer.answered", "implementer-2"],
			["peer.asked", "implementer-1"],
			["peer.cancelled", "implementer-1"],
			["peer.replied_late", "implementer-2"],
		]);
		expect(peer[0]?.task_id).toBe("T-a");
		const denied = events.filter((e) => e.type === "call.denied").map((e) => e.payload.tool);
		expect(denied).toEqual(["peer.ask", "peer.answer", "peer.request", "peer.cancel"]);
	});
});
