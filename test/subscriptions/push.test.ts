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
import { MODERN_META } from "../_helpers/raw-mcp.ts";

const p: Project = await makeProject();
const server = loopbackHttp(p.rt, { loopbackAuth: "token", operatorTokens: ["push-test-token"] });
const clients: Client[] = [];
await p.call("run.open", { run_id: "R-1", goal: "g" });
await p.call("run.open", { run_id: "R-2", goal: "h" });

afterAll(async () => {
	for (const c of clients) await c.close().catch(() => {});
	await server.close();
});

/**
 * An agent's client with its own capability (lasting `ttlSeconds` if given), the resource updates it
 * hears, in order, and the capability and its session.
 */
async function agent(agentId: string, ttlSeconds?: number) {
	const raw = newCapability();
	const minted = (await p.call("session.mint", {
		agent_id: agentId,
		capability_sha256: capabilityHash(raw),
		...(ttlSeconds !== undefined && { ttl_seconds: ttlSeconds }),
	})) as { session: { id: string } };
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
	return { client, heard, capability: raw, sessionId: minted.session.id };
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
	// A page of a run's events reads, but is nothing to subscribe to: the error says what is.
	const page = await bob.client.subscribeResource({ uri: "roundtable://runs/R-2/events?after=3" }).then(
		() => undefined,
		(err: { code: number; message: string }) => err,
	);
	expect(page?.code).toBe(-32602);
	expect(page?.message).toContain("subscribe to roundtable://runs/R-2/events, without ?after=");
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

test("1,000 subscriptions from one client: bounded per session, resource_exhausted naming the limit; the endpoint unharmed", async () => {
	for (let i = 0; i < 300; i++) await p.call("run.open", { run_id: `R-many-${i}`, goal: "" });
	const carol = await agent("reviewer-1");
	let held = 0;
	const refusals = new Set<string>();
	for (let i = 0; i < 1_000; i++) {
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
}, 120_000);

/** A 2026-07-28 `subscriptions/listen` opened by hand: its stream's messages as they come. */
async function listenAs(bearer: string, notifications: object, id: number | string = 7) {
	const abort = new AbortController();
	const res = await fetch(server.url, {
		method: "POST",
		signal: abort.signal,
		headers: {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			authorization: `Bearer ${bearer}`,
			"mcp-protocol-version": "2026-07-28",
			"mcp-method": "subscriptions/listen",
		},
		body: JSON.stringify({
			jsonrpc: "2.0",
			id,
			method: "subscriptions/listen",
			params: {
				_meta: MODERN_META,
				notifications,
			},
		}),
	});
	const messages: {
		jsonrpc?: string;
		method?: string;
		id?: unknown;
		result?: unknown;
		error?: unknown;
		params?: Record<string, unknown>;
	}[] = [];
	const reading = (async () => {
		// A refusal comes as one JSON answer, not a stream.
		if (res.headers.get("content-type")?.includes("application/json")) {
			messages.push((await res.json()) as (typeof messages)[number]);
			return;
		}
		const decoder = new TextDecoder();
		let rest = "";
		try {
			for await (const chunk of res.body as ReadableStream<Uint8Array>) {
				rest += decoder.decode(chunk, { stream: true });
				for (let cut = rest.indexOf("\n"); cut >= 0; cut = rest.indexOf("\n")) {
					const line = rest.slice(0, cut);
					rest = rest.slice(cut + 1);
					if (line.startsWith("data: ")) messages.push(JSON.parse(line.slice(6)));
				}
			}
		} catch {
			// aborted
		}
	})();
	return { res, messages, close: () => abort.abort(), reading };
}

async function capabilityOf(agentId: string): Promise<string> {
	const raw = newCapability();
	await p.call("session.mint", { agent_id: agentId, capability_sha256: capabilityHash(raw) });
	return raw;
}

// The tool and prompt lists never change while the owner runs (a role's tools are fixed): the
// acknowledgement promises no word of them, and the server declares no listChanged.
test("2026-07-28: subscriptions/listen acknowledges only what the caller may read (and no list changes), then each update with the subscription's id", async () => {
	const cap = await capabilityOf("implementer-1");
	const mine = (await p.call("peer.ask", {
		agent_id: "implementer-1",
		assignee_agent_id: "implementer-2",
		question_md: "mine",
	})) as { request: { id: string } };
	const theirs = (await p.call("peer.ask", {
		agent_id: "reviewer-1",
		assignee_agent_id: "implementer-2",
		question_md: "theirs",
	})) as { request: { id: string } };
	const own = `roundtable://requests/${mine.request.id}`;
	const other = `roundtable://requests/${theirs.request.id}`;
	const run = "roundtable://runs/R-1/events";
	const l = await listenAs(cap, {
		toolsListChanged: true,
		promptsListChanged: true,
		resourceSubscriptions: [own, other, run, "file:///etc/passwd"],
	});
	expect(l.res.status).toBe(200);
	expect(l.res.headers.get("content-type")).toContain("text/event-stream");
	await until(() => l.messages.length >= 1, 10_000, "the acknowledgement");
	expect(l.messages[0]).toEqual({
		jsonrpc: "2.0",
		method: "notifications/subscriptions/acknowledged",
		params: {
			_meta: { "io.modelcontextprotocol/subscriptionId": 7 },
			notifications: { resourceSubscriptions: [own, run] },
		},
	});
	await p.call("peer.answer", { agent_id: "implementer-2", request_id: theirs.request.id, answer_md: "no" });
	await p.call("peer.answer", { agent_id: "implementer-2", request_id: mine.request.id, answer_md: "yes" });
	await p.call("task.create", { title: "t", body_md: "b", run_id: "R-1" });
	await until(() => l.messages.length >= 3, 10_000, "the updates");
	await Bun.sleep(300);
	const updates = l.messages.slice(1);
	expect(
		updates.map((m) => [
			m.method,
			m.params?.uri,
			(m.params?._meta as Record<string, unknown>)?.["io.modelcontextprotocol/subscriptionId"],
		]),
	).toEqual([
		["notifications/resources/updated", own, 7],
		["notifications/resources/updated", run, 7],
	]);
	l.close();
	await l.reading;
});

test("2026-07-28: a listen naming 10,000 resources is refused with the limit; the server ends open listens with their answer", async () => {
	const cap = await capabilityOf("reviewer-1");
	const many = await listenAs(cap, {
		resourceSubscriptions: Array.from({ length: 10_000 }, (_, i) => `roundtable://runs/R-many-${i}/events`),
	});
	await many.reading;
	expect(many.messages).toEqual([
		{
			jsonrpc: "2.0",
			id: 7,
			error: {
				code: -32602,
				message: `a listen may name at most ${SUBSCRIPTIONS_PER_SESSION} resources; it named 10000`,
				data: { code: "resource_exhausted", limit: SUBSCRIPTIONS_PER_SESSION },
			},
		},
	]);
	// A server of its own, closed while a listen is open: the listen gets its answer, then the end.
	const q = await makeProject();
	const other = loopbackHttp(q.rt, { loopbackAuth: "token", operatorTokens: ["t2"] });
	const res = await fetch(other.url, {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			authorization: "Bearer t2",
			"mcp-protocol-version": "2026-07-28",
			"mcp-method": "subscriptions/listen",
		},
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: "L",
			method: "subscriptions/listen",
			params: {
				_meta: MODERN_META,
				notifications: { resourceSubscriptions: ["roundtable://inbox"] },
			},
		}),
	});
	const text = res.text();
	await Bun.sleep(200);
	// As the owner stops: it stops accepting (open listens are answered and ended), then closes.
	other.stopAccepting();
	const body = await text;
	await other.close();
	const lines = body
		.split("\n")
		.filter((line) => line.startsWith("data: "))
		.map((line) => JSON.parse(line.slice(6)));
	expect(lines.at(-1)).toEqual({
		jsonrpc: "2.0",
		id: "L",
		result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": "L" } },
	});
}, 30_000);

// Revoked, a capability may read nothing, so it hears of nothing: its subscriptions go with it in
// both eras, and a listen it holds is ended with its answer (a new one would be refused).
test("a capability revoked hears of nothing more: its 2025-11-25 subscriptions go, its 2026-07-28 listen ends", async () => {
	const tester = await agent("tester-1");
	await tester.client.subscribeResource({ uri: "roundtable://inbox" });
	const l = await listenAs(tester.capability, { resourceSubscriptions: ["roundtable://inbox"] });
	await until(() => l.messages.length >= 1, 10_000, "the acknowledgement");
	await p.call("message.post", { to_agent_id: "tester-1", body_md: "before" });
	await until(
		() => tester.heard.length === 1 && l.messages.length === 2,
		10_000,
		"both hear the first message",
	);
	await p.call("session.revoke", { session_id: tester.sessionId });
	await p.call("message.post", { to_agent_id: "tester-1", body_md: "after" });
	await l.reading; // the listen ends
	await Bun.sleep(300);
	expect(tester.heard.length).toBe(1);
	expect(l.messages.map((m) => m.method ?? m.result)).toEqual([
		"notifications/subscriptions/acknowledged",
		"notifications/resources/updated",
		{ resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 7 } },
	]);
	// And a new listen is refused at the door.
	const again = await listenAs(tester.capability, { resourceSubscriptions: ["roundtable://inbox"] });
	expect(again.res.status).toBe(401);
});

// A capability's time running out is told by no event: its listen ends on time, and its
// subscriptions hear nothing after it.
test("a capability whose time is up hears of nothing more either: its listen ends, its subscriptions go", async () => {
	const security = await agent("security-1", 2);
	await security.client.subscribeResource({ uri: "roundtable://inbox" });
	const l = await listenAs(security.capability, { resourceSubscriptions: ["roundtable://inbox"] });
	await until(() => l.messages.length >= 1, 10_000, "the acknowledgement");
	await p.call("message.post", { to_agent_id: "security-1", body_md: "in time" });
	await until(
		() => security.heard.length === 1 && l.messages.length === 2,
		10_000,
		"both hear the first message",
	);
	await l.reading; // ends when the capability's time is up, with no event to say so
	await p.call("message.post", { to_agent_id: "security-1", body_md: "too late" });
	await Bun.sleep(300);
	expect(security.heard.length).toBe(1);
	expect(l.messages.at(-1)).toEqual({
		jsonrpc: "2.0",
		id: 7,
		result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 7 } },
	});
}, 15_000);
