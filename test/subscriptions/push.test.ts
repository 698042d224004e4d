// Events pushed, in the 2025-11-25 era: a client subscribes (resources/subscribe) to a run's events,
// its own inbox and one peer request, and hears on its session's event stream of each event that
// changes one, once and in event order; what it may not read it cannot subscribe to, and hears
// nothing of. A real HTTP endpoint, the SDK's own client, commits made by the operator meanwhile.
import { afterAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { SUBSCRIPTIONS_PER_SESSION } from "../../src/subscriptions/hub.ts";
import { makeProject, type Project, until } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";

const p: Project = await makeProject();
const server = loopbackHttp(p.rt, { loopbackAuth: "token", operatorTokens: ["push-test-token"] });
const clients: Client[] = [];
await p.call("run.open", { run_id: "R-1", goal: "g" });
await p.call("run.open", { run_id: "R-2", goal: "h" });

afterAll(async () => {
	for (const c of clients) await c.close().catch(() => {});
	await server.close();
});

/** An agent's client with its own capability, and the resource updates it hears, in order. */
async function agent(agentId: string) {
	const raw = newCapability();
	await p.call("session.mint", { agent_id: agentId, capability_sha256: capabilityHash(raw) });
	const client = new Client({ name: agentId, version: "1" });
	const heard: { uri: string; event: number }[] = [];
	client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
		heard.push({ uri: n.params.uri, event: Number(n.params._meta?.["roundtable/event_id"]) });
	});
	await client.connect(
		new StreamableHTTPClientTransport(new URL(server.url), {
			requestInit: { headers: { Authorization: `Bearer ${raw}` } },
		}),
	);
	clients.push(client);
	return { client, heard };
}

const lastEvent = async () =>
	((await p.call("table.get_state", {})) as { last_event_id: number }).last_event_id;

test("a run's events, its inbox and its own request: each event heard once, in order; nothing else", async () => {
	const alice = await agent("implementer-1");
	const asked = (await p.call("peer.ask", {
		agent_id: "implementer-1",
		assignee_agent_id: "implementer-2",
		question_md: "which file?",
	})) as { request: { id: string } };
	const request = `roundtable://requests/${asked.request.id}`;
	for (const uri of ["roundtable://runs/R-1/events", "roundtable://inbox", request])
		expect(await alice.client.subscribeResource({ uri })).toEqual({});
	// The resource reads as the tool behind it does.
	const read = await alice.client.readResource({ uri: request });
	expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
		request: { id: asked.request.id, status: "open" },
	});

	const from = await lastEvent();
	await p.call("task.create", { task_id: "T-1", title: "t", body_md: "b", run_id: "R-1" }); // run R-1
	await p.call("task.create", { task_id: "T-2", title: "t", body_md: "b", run_id: "R-2" }); // another run: not heard
	await p.call("message.post", { to_agent_id: "implementer-1", body_md: "for you" }); // her inbox
	await p.call("message.post", { to_agent_id: "implementer-2", body_md: "not for you" }); // another's
	await p.call("peer.answer", {
		agent_id: "implementer-2",
		request_id: asked.request.id,
		answer_md: "a.txt",
	}); // her request
	const events = (
		(await p.call("table.watch", { after_event_id: from, limit: 50 })) as {
			events: { id: number; type: string; run_id: string | null; payload: Record<string, unknown> }[];
		}
	).events;
	const id = (pick: (e: (typeof events)[number]) => boolean) => events.find(pick)?.id as number;
	const expected = [
		{
			uri: "roundtable://runs/R-1/events",
			event: id((e) => e.type === "task.created" && e.run_id === "R-1"),
		},
		{
			uri: "roundtable://inbox",
			event: id((e) => e.type === "message.posted" && e.payload.to_agent_id === "implementer-1"),
		},
		{ uri: request, event: id((e) => e.type === "peer.answered") },
	];
	await until(() => alice.heard.length >= expected.length, 10_000, "the updates");
	await Bun.sleep(300); // and nothing more comes
	expect(alice.heard).toEqual(expected);
});

test("what it may not read it cannot subscribe to, and hears nothing of; unsubscribed, it hears no more", async () => {
	const bob = await agent("implementer-2");
	const theirs = (await p.call("peer.ask", {
		agent_id: "reviewer-1",
		assignee_agent_id: "implementer-1",
		question_md: "not bob's business",
	})) as { request: { id: string } };
	const uri = `roundtable://requests/${theirs.request.id}`;
	const refused = await bob.client.subscribeResource({ uri }).then(
		() => undefined,
		(err: { code: number; data?: { code?: string } }) => err,
	);
	expect(refused?.code).toBe(-32602);
	expect(refused?.data?.code).toBe("permission_denied");
	const nowhere = await bob.client.subscribeResource({ uri: "roundtable://runs/R-404/events" }).then(
		() => undefined,
		(err: { code: number }) => err,
	);
	expect(nowhere?.code).toBe(-32002);
	const unknown = await bob.client.subscribeResource({ uri: "file:///etc/passwd" }).then(
		() => undefined,
		(err: { code: number }) => err,
	);
	expect(unknown?.code).toBe(-32602);
	// Subscribed to R-2, then not: only the event before unsubscribing is heard.
	await bob.client.subscribeResource({ uri: "roundtable://runs/R-2/events" });
	await p.call("peer.answer", { agent_id: "implementer-1", request_id: theirs.request.id, answer_md: "no" });
	await p.call("task.create", { task_id: "T-3", title: "t", body_md: "b", run_id: "R-2" });
	await until(() => bob.heard.length >= 1, 10_000, "the R-2 update");
	await bob.client.unsubscribeResource({ uri: "roundtable://runs/R-2/events" });
	await p.call("task.create", { task_id: "T-4", title: "t", body_md: "b", run_id: "R-2" });
	await Bun.sleep(500);
	expect(bob.heard.map((h) => h.uri)).toEqual(["roundtable://runs/R-2/events"]);
});

test("10,000 subscriptions from one client: bounded per session, resource_exhausted naming the limit; the endpoint unharmed", async () => {
	for (let i = 0; i < 300; i++) await p.call("run.open", { run_id: `R-many-${i}`, goal: "" });
	const carol = await agent("reviewer-1");
	let held = 0;
	const refusals = new Set<string>();
	for (let i = 0; i < 10_000; i++) {
		const uri = `roundtable://runs/R-many-${i % 300}/events`;
		const outcome = await carol.client.subscribeResource({ uri }).then(
			() => "ok",
			(err: { code: number; message: string; data?: { code?: string; limit?: number } }) =>
				`${err.code} ${err.data?.code} ${err.data?.limit}`,
		);
		if (outcome === "ok" && i < 300) held++;
		else if (outcome !== "ok") refusals.add(outcome);
	}
	expect(held).toBe(SUBSCRIPTIONS_PER_SESSION);
	expect([...refusals]).toEqual([`-32602 resource_exhausted ${SUBSCRIPTIONS_PER_SESSION}`]);
	const still = await carol.client.callTool({ name: "table.get_state", arguments: {} });
	expect(still.isError).toBeFalsy();
}, 60_000);
