// The Streamable HTTP MCP transport, end to end: a real Bun.serve on 127.0.0.1 port 0, the official
// SDK client and raw fetch for protocol-level checks, a real SQLite project behind it.
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { AGENT_TOOLS } from "../../src/registry/index.ts";
import type { HttpOptions, HttpServer } from "../../src/transports/http.ts";
import { InFlight } from "../../src/transports/inflight.ts";
import { expectDeclaredOutput, makeProject, type Project, REPO, runCli } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";

const PROTOCOL = "2025-11-25";
const POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const MAX_BODY = 64 * 1024;

interface Served {
	p: Project;
	server: HttpServer;
	url: string;
	inflight: InFlight;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
	for (const clean of cleanups.splice(0).reverse()) await clean().catch(() => {});
});

async function serve(options: Partial<HttpOptions> = {}, project?: Project): Promise<Served> {
	const p = project ?? (await makeProject());
	const inflight = options.inflight ?? new InFlight();
	const server = loopbackHttp(p.rt, { maxBodyBytes: MAX_BODY, maxSessions: 64, ...options, inflight });
	cleanups.push(() => server.close());
	return { p, server, url: server.url, inflight };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
	const client = new Client({ name: "http-test", version: "1.0.0" });
	await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
	cleanups.push(() => client.close());
	return client;
}

interface RpcMessage {
	jsonrpc: "2.0";
	id?: string | number | null;
	result?: Record<string, unknown>;
	error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** The JSON-RPC response in a reply, whether it came as JSON or as an SSE stream. */
async function rpcOf(res: Response): Promise<RpcMessage> {
	const text = await res.text();
	if (!res.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(text) as RpcMessage;
	// A priming event (an id, `retry` and empty data) opens each stream: it is not a message.
	const messages = text
		.split("\n")
		.filter((line) => line.startsWith("data: ") && line.length > 6)
		.map((line) => JSON.parse(line.slice(6)) as RpcMessage);
	const reply = messages.find((m) => "result" in m || "error" in m);
	if (!reply) throw new Error(`no JSON-RPC response in the stream: ${text}`);
	return reply;
}

const initializeBody = (id: number | string = 1) => ({
	jsonrpc: "2.0",
	id,
	method: "initialize",
	params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

interface RawSession {
	sid: string;
	headers: Record<string, string>;
	/** POSTs one JSON-RPC message (or any body) in this session. */
	post(body: unknown, extra?: Record<string, string>): Promise<Response>;
	request(method: string, params?: unknown): Promise<RpcMessage>;
}

let nextId = 100;

/** initialize + notifications/initialized over raw fetch. */
async function rawSession(url: string, extra: Record<string, string> = {}): Promise<RawSession> {
	const res = await fetch(url, {
		method: "POST",
		headers: { ...POST_HEADERS, ...extra },
		body: JSON.stringify(initializeBody()),
	});
	expect(res.status).toBe(200);
	const sid = res.headers.get("mcp-session-id");
	if (!sid) throw new Error("initialize returned no mcp-session-id");
	const init = await rpcOf(res);
	expect(init.result?.protocolVersion).toBe(PROTOCOL);
	const headers = { ...POST_HEADERS, ...extra, "mcp-session-id": sid, "mcp-protocol-version": PROTOCOL };
	const post = (body: unknown, more: Record<string, string> = {}) =>
		fetch(url, {
			method: "POST",
			headers: { ...headers, ...more },
			body: typeof body === "string" ? body : JSON.stringify(body),
		});
	const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
	expect(initialized.status).toBe(202);
	return {
		sid,
		headers,
		post,
		async request(method, params) {
			const res = await post({
				jsonrpc: "2.0",
				id: nextId++,
				method,
				...(params !== undefined && { params }),
			});
			expect(res.status).toBe(200);
			return rpcOf(res);
		},
	};
}

interface ToolResult {
	content: { type: string; text: string }[];
	structuredContent?: Record<string, unknown>;
	isError?: boolean;
}

async function taskCount(p: Project): Promise<number> {
	const state = await p.call("table.get_state");
	return (state.tasks as unknown[]).length;
}

async function waitFor(what: string, cond: () => boolean, ms: number): Promise<void> {
	const deadline = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
		await Bun.sleep(10);
	}
}

describe("sessions", () => {
	test("sessions are capped: an initialize over the cap is 503 until one ends", async () => {
		const { url } = await serve({ maxSessions: 2 });
		const first = await rawSession(url);
		await rawSession(url);
		const over = await fetch(url, {
			method: "POST",
			headers: POST_HEADERS,
			body: JSON.stringify(initializeBody()),
		});
		expect(over.status).toBe(503);
		expect(((await over.json()) as { error: { message: string } }).error.message).toContain("limit 2");
		expect((await fetch(url, { method: "DELETE", headers: first.headers })).status).toBe(200);
		await rawSession(url);
	});

	test("initialize issues a visible-ASCII Mcp-Session-Id, unique per session, that later requests use", async () => {
		const { url } = await serve();
		const a = await rawSession(url);
		const b = await rawSession(url);
		for (const sid of [a.sid, b.sid]) expect(sid).toMatch(/^[\x21-\x7e]{16,}$/);
		expect(a.sid).not.toBe(b.sid);
		expect((await a.request("ping")).result).toEqual({});
		expect((await b.request("ping")).result).toEqual({});
	});

	test("a request without a session id that is not initialize is 400", async () => {
		const { url } = await serve();
		const res = await fetch(url, {
			method: "POST",
			headers: POST_HEADERS,
			body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
		});
		expect(res.status).toBe(400);
		expect((await rpcOf(res)).error?.code).toBeNumber();
	});

	test("an unknown session id is 404 on POST, GET and DELETE", async () => {
		const { url } = await serve();
		await rawSession(url);
		const sid = crypto.randomUUID();
		const headers = { "mcp-session-id": sid, "mcp-protocol-version": PROTOCOL };
		const post = await fetch(url, {
			method: "POST",
			headers: { ...POST_HEADERS, ...headers },
			body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
		});
		expect(post.status).toBe(404);
		expect((await rpcOf(post)).error?.code).toBeNumber();
		const get = await fetch(url, { method: "GET", headers: { ...headers, accept: "text/event-stream" } });
		expect(get.status).toBe(404);
		await get.body?.cancel();
		const del = await fetch(url, { method: "DELETE", headers });
		expect(del.status).toBe(404);
	});

	test("DELETE ends a session: its id is then 404, other sessions go on", async () => {
		const { url } = await serve();
		const a = await rawSession(url);
		const b = await rawSession(url);
		const del = await fetch(url, { method: "DELETE", headers: a.headers });
		expect(del.status).toBe(200);
		const after = await a.post({ jsonrpc: "2.0", id: 5, method: "ping" });
		expect(after.status).toBe(404);
		await after.body?.cancel();
		expect((await b.request("ping")).result).toEqual({});
	});

	test("an unsupported MCP-Protocol-Version is 400", async () => {
		const { url } = await serve();
		const s = await rawSession(url);
		const res = await s.post(
			{ jsonrpc: "2.0", id: 9, method: "ping" },
			{ "mcp-protocol-version": "1999-01-01" },
		);
		expect(res.status).toBe(400);
		await res.body?.cancel();
	});

	test("the SDK client connects, and its session works", async () => {
		const { url } = await serve();
		const client = await connect(url);
		expect(client.getServerVersion()?.name).toBe("roundtable");
		expect(client.getServerCapabilities()?.tools).toBeDefined();
		expect(await client.ping()).toEqual({});
	});

	test("a GET SSE stream stays open past Bun's default 10 s idle timeout", async () => {
		const { url } = await serve();
		const s = await rawSession(url);
		const started = Date.now();
		let status: number | undefined;
		let contentType = null as string | null;
		let outcome: string | undefined;
		// The stream opens at once (headers within a second, not at the SDK's first 15 s keep-alive)
		// and the connection is not cut at Bun's default 10 s idle timeout.
		const stream = fetch(url, {
			method: "GET",
			headers: { accept: "text/event-stream", "mcp-session-id": s.sid, "mcp-protocol-version": PROTOCOL },
		})
			.then(async (res) => {
				status = res.status;
				contentType = res.headers.get("content-type");
				const reader = (res.body as ReadableStream<Uint8Array>).getReader();
				for (;;) if ((await reader.read()).done) return "ended";
			})
			.catch((err: Error) => `failed: ${err.message}`)
			.then((how) => {
				outcome = `${how} after ${Date.now() - started} ms`;
			});
		await Bun.sleep(1000);
		expect(status).toBe(200);
		await Bun.sleep(11_000);
		expect(outcome).toBeUndefined();
		// Still live: ending the session now ends the stream normally.
		const del = await fetch(url, { method: "DELETE", headers: s.headers });
		expect(del.status).toBe(200);
		await Promise.race([stream, Bun.sleep(5000)]);
		expect(outcome).toMatch(/^ended after/);
		expect(status).toBe(200);
		expect(contentType).toContain("text/event-stream");
	}, 30_000);
});

describe("resumable streams (SEP-1699)", () => {
	/** Reads from a stream until `done` says the text so far is enough. */
	async function readUntil(
		reader: { read(): Promise<{ value?: Uint8Array; done: boolean }> },
		done: (text: string) => boolean,
	) {
		const decoder = new TextDecoder();
		let text = "";
		while (!done(text)) {
			const { value, done: ended } = await reader.read();
			if (ended) break;
			text += decoder.decode(value, { stream: true });
		}
		return text;
	}

	test("a client that loses a POST's stream mid-call gets the result by resuming with Last-Event-ID", async () => {
		const { url, inflight } = await serve();
		const s = await rawSession(url);
		const state = await s.request("tools/call", { name: "table.get_state", arguments: {} });
		const newest = (state.result as { structuredContent: { last_event_id: number } }).structuredContent
			.last_event_id;
		const watch = { name: "table.watch", arguments: { after_event_id: newest, wait_ms: 1000 } };
		const res = await s.post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: watch });
		const reader = (res.body as ReadableStream<Uint8Array>).getReader();
		// The stream opens with a priming event: an id to resume from and how long to wait first.
		const first = await readUntil(reader, (t) => t.includes("\n\n"));
		const primed = /^id: (\d+)\nretry: 1000\ndata: \n\n/.exec(first);
		expect(primed).not.toBeNull();
		await reader.cancel(); // the connection drops; the call goes on
		expect(inflight.size).toBe(1);

		const resumed = await fetch(url, {
			method: "GET",
			headers: {
				...s.headers,
				accept: "text/event-stream",
				"last-event-id": (primed as RegExpExecArray)[1] as string,
			},
		});
		expect(resumed.status).toBe(200);
		const reply = await rpcOf(resumed);
		expect(reply.id).toBe(7);
		expect(reply.result?.structuredContent).toMatchObject({ events: [] });
	});

	test("a Last-Event-ID the session never issued is refused with 400", async () => {
		const { url } = await serve();
		const a = await rawSession(url);
		const b = await rawSession(url);
		const res = await a.post({ jsonrpc: "2.0", id: 8, method: "ping" });
		const id = /^id: (\d+)$/m.exec(await res.text())?.[1] as string;
		expect(id).toMatch(/^\d+$/);
		for (const [session, lastEventId] of [
			[b, id],
			[a, "999999999"],
			[a, "not-an-id"],
		] as const) {
			const get = await fetch(url, {
				method: "GET",
				headers: { ...session.headers, accept: "text/event-stream", "last-event-id": lastEventId },
			});
			expect(get.status).toBe(400);
			await get.body?.cancel();
		}
	});
});

describe("tools/list", () => {
	async function listAll(s: RawSession) {
		const tools: Record<string, unknown>[] = [];
		let cursor: string | undefined;
		do {
			const reply = await s.request("tools/list", cursor === undefined ? {} : { cursor });
			expect(reply.error).toBeUndefined();
			tools.push(...((reply.result?.tools ?? []) as Record<string, unknown>[]));
			cursor = reply.result?.nextCursor as string | undefined;
		} while (cursor !== undefined);
		return tools;
	}

	test("lists all 61 tools, fully described, in registry order, the same every time", async () => {
		const { url } = await serve();
		const a = await rawSession(url);
		const b = await rawSession(url);
		const first = await listAll(a);
		expect(first.length).toBe(61);
		expect(first.map((t) => t.name)).toEqual(AGENT_TOOLS.map((t) => t.name));
		expect(await listAll(a)).toEqual(first);
		expect(await listAll(b)).toEqual(first);
		// How long the list holds, and for whom, as the 2026-07-28 era says it: in this era too.
		expect((await a.request("tools/list", {})).result).toMatchObject({
			ttlMs: 3_600_000,
			cacheScope: "private",
		});

		for (const tool of first) {
			const reg = AGENT_TOOLS.find((t) => t.name === tool.name);
			if (!reg) throw new Error(`unexpected tool ${tool.name}`);
			expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
			expect(tool.title).toBe(reg.title);
			expect(tool.description).toBeString();
			expect((tool.description as string).trim().length).toBeGreaterThan(0);
			const input = tool.inputSchema as Record<string, unknown>;
			expect(input.type).toBe("object");
			expect(input.additionalProperties).toBe(false);
			// Output schemas stay out of the list (its byte budget); test/tool-list.test.ts has the rest.
			expect(tool.outputSchema).toBeUndefined();
			const ann = tool.annotations as Record<string, unknown>;
			expect(ann).toMatchObject({ readOnlyHint: !reg.mutates, openWorldHint: false });
			if (reg.mutates) expect(ann.destructiveHint).toBeBoolean();
		}
	});

	test("the SDK client lists the same tools", async () => {
		const { url } = await serve();
		const client = await connect(url);
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name)).toEqual(AGENT_TOOLS.map((t) => t.name));
	});
});

describe("tools/call", () => {
	test("success: text content whose JSON equals structuredContent, which matches the declared output", async () => {
		const { url, p } = await serve();
		const client = await connect(url);
		await client.listTools();
		const created = (await client.callTool({
			name: "task.create",
			arguments: { title: "over http", body_md: "made by the SDK client" },
		})) as ToolResult;
		expect(created.isError).toBeFalsy();
		expect(created.content).toHaveLength(1);
		expect(created.content[0]?.type).toBe("text");
		const structured = created.structuredContent as { task: { id: string; title: string } };
		expect(JSON.parse(created.content[0]?.text ?? "")).toEqual(structured);
		expect(structured.task.title).toBe("over http");
		const stored = (await p.call("task.get", { task_id: structured.task.id })) as { task: { title: string } };
		expect(stored.task.title).toBe("over http");

		for (const [name, args] of [
			["table.get_state", {}],
			["task.list", {}],
			["table.watch", { after_event_id: 0 }],
		] as const) {
			const r = (await client.callTool({ name, arguments: args })) as ToolResult;
			expect(r.isError).toBeFalsy();
			expect(JSON.parse(r.content[0]?.text ?? "")).toEqual(r.structuredContent);
			expectDeclaredOutput(name, r.structuredContent);
		}
	});

	test("a tool error is isError with {error:{code,message,details}} text and no structuredContent", async () => {
		const { url } = await serve();
		const client = await connect(url);
		await client.listTools();
		const r = (await client.callTool({
			name: "task.get",
			arguments: { task_id: "T-missing" },
		})) as ToolResult;
		expect(r.isError).toBe(true);
		expect(r.structuredContent).toBeUndefined();
		expect(r.content).toHaveLength(1);
		expect(r.content[0]?.type).toBe("text");
		const body = JSON.parse(r.content[0]?.text ?? "");
		expect(Object.keys(body)).toEqual(["error"]);
		expect(body.error).toEqual({
			code: "not_found",
			message: expect.stringContaining("T-missing"),
			details: { task_id: "T-missing" },
		});
	});

	test("failed input validation is a tool error too, and nothing is created", async () => {
		const { url, p } = await serve();
		const client = await connect(url);
		await client.listTools();
		const before = await taskCount(p);
		for (const args of [
			{ title: "", body_md: "b" },
			{ title: "   ", body_md: "b" },
			{ titel: "typo", body_md: "b" },
		]) {
			const r = (await client.callTool({ name: "task.create", arguments: args })) as ToolResult;
			expect(r.isError).toBe(true);
			expect(r.structuredContent).toBeUndefined();
			const body = JSON.parse(r.content[0]?.text ?? "");
			expect(body.error.code).toBe("invalid_argument");
			expect(body.error.message).toContain("title");
		}
		expect(await taskCount(p)).toBe(before);
	});

	test("a tool error over raw HTTP has no structuredContent key at all", async () => {
		const { url } = await serve();
		const s = await rawSession(url);
		const reply = await s.request("tools/call", {
			name: "task.create",
			arguments: { title: "", body_md: "b" },
		});
		expect(reply.error).toBeUndefined();
		expect(reply.result?.isError).toBe(true);
		expect("structuredContent" in (reply.result ?? {})).toBe(false);
		const content = reply.result?.content as { type: string; text: string }[];
		const body = JSON.parse(content[0]?.text ?? "");
		expect(body.error).toMatchObject({ code: "invalid_argument", message: expect.any(String) });
	});

	test("an unknown tool is JSON-RPC −32602 with did_you_mean, for the SDK client and raw", async () => {
		const { url } = await serve();
		const client = await connect(url);
		let thrown: unknown;
		try {
			await client.callTool({ name: "task.creat", arguments: { title: "x" } });
		} catch (err) {
			thrown = err;
		}
		expect(thrown).toBeInstanceOf(McpError);
		expect((thrown as McpError).code).toBe(-32602);

		const s = await rawSession(url);
		const reply = await s.request("tools/call", { name: "task.creat", arguments: { title: "x" } });
		expect(reply.result).toBeUndefined();
		expect(reply.error?.code).toBe(-32602);
		expect(reply.error?.message).toContain("task.creat");
		expect(reply.error?.data?.did_you_mean).toBe("task.create");

		const far = await s.request("tools/call", { name: "no.such.thing", arguments: {} });
		expect(far.error?.code).toBe(-32602);
	});

	for (const [label, params] of [
		["no name", { arguments: { title: "x" } }],
		["a non-string name", { name: 42, arguments: {} }],
		["arguments null", { name: "task.create", arguments: null }],
		["arguments a string", { name: "task.create", arguments: '{"title":"x"}' }],
		["arguments a number", { name: "task.create", arguments: 7 }],
		["arguments an array", { name: "task.create", arguments: [] }],
		["no params at all", undefined],
	] as const) {
		test(`malformed tools/call params (${label}) are JSON-RPC −32602 and do nothing`, async () => {
			const { url, p } = await serve();
			const s = await rawSession(url);
			const before = await taskCount(p);
			const reply = await s.request("tools/call", params);
			expect(reply.result).toBeUndefined();
			expect(reply.error?.code).toBe(-32602);
			expect(await taskCount(p)).toBe(before);
		});
	}

	test("a JSON array body (a batch) is 400 with −32600, with or without a session", async () => {
		const { url } = await serve();
		const batch = JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
		const fresh = await fetch(url, { method: "POST", headers: POST_HEADERS, body: batch });
		expect(fresh.status).toBe(400);
		expect((await rpcOf(fresh)).error?.code).toBe(-32600);
		const s = await rawSession(url);
		const inSession = await s.post(batch);
		expect(inSession.status).toBe(400);
		expect((await rpcOf(inSession)).error?.code).toBe(-32600);
	});

	test("a body that is not JSON is 400 with −32700", async () => {
		const { url } = await serve();
		const fresh = await fetch(url, { method: "POST", headers: POST_HEADERS, body: '{"jsonrpc":"2.0",' });
		expect(fresh.status).toBe(400);
		expect((await rpcOf(fresh)).error?.code).toBe(-32700);
		const s = await rawSession(url);
		const inSession = await s.post("not json at all");
		expect(inSession.status).toBe(400);
		expect((await rpcOf(inSession)).error?.code).toBe(-32700);
	});

	test("a body over maxBodyBytes is 413 (declared or chunked); one under it is served", async () => {
		const { url, p } = await serve();
		const s = await rawSession(url);
		const callBody = (pad: number) =>
			JSON.stringify({
				jsonrpc: "2.0",
				id: 7,
				method: "tools/call",
				params: { name: "task.create", arguments: { title: "big", body_md: "x".repeat(pad) } },
			});
		const before = await taskCount(p);

		const declared = await s.post(callBody(MAX_BODY + 100));
		expect(declared.status).toBe(413);
		await declared.body?.cancel();

		const bytes = new TextEncoder().encode(callBody(MAX_BODY + 100));
		const chunked = await fetch(url, {
			method: "POST",
			headers: s.headers,
			body: new ReadableStream({
				start(c) {
					for (let i = 0; i < bytes.length; i += 4096) c.enqueue(bytes.slice(i, i + 4096));
					c.close();
				},
			}),
		});
		expect(chunked.status).toBe(413);
		await chunked.body?.cancel();

		const huge = await s.post(callBody(MAX_BODY * 8));
		expect(huge.status).toBe(413);
		await huge.body?.cancel();
		expect(await taskCount(p)).toBe(before);

		const fits = await s.post(callBody(MAX_BODY - 1024));
		expect(fits.status).toBe(200);
		const reply = await rpcOf(fits);
		expect(reply.result?.isError).toBeFalsy();
		expect(await taskCount(p)).toBe(before + 1);
	});
});

describe("security", () => {
	test("a non-loopback Host is 403 on every path and method", async () => {
		const { url } = await serve();
		const s = await rawSession(url);
		const port = new URL(url).port;
		const evil = { host: `evil.example:${port}` };
		const init = await fetch(url, {
			method: "POST",
			headers: { ...POST_HEADERS, ...evil },
			body: JSON.stringify(initializeBody()),
		});
		expect(init.status).toBe(403);
		expect(init.headers.get("mcp-session-id")).toBeNull();
		expect((await rpcOf(init)).error?.message).toMatch(/host/i);
		const inSession = await s.post({ jsonrpc: "2.0", id: 2, method: "ping" }, evil);
		expect(inSession.status).toBe(403);
		await inSession.body?.cancel();
		const get = await fetch(url, {
			method: "GET",
			headers: { ...s.headers, accept: "text/event-stream", ...evil },
		});
		expect(get.status).toBe(403);
		await get.body?.cancel();
		const del = await fetch(url, { method: "DELETE", headers: { ...s.headers, ...evil } });
		expect(del.status).toBe(403);
		await del.body?.cancel();
		const health = await fetch(new URL("/healthz", url), { headers: evil });
		expect(health.status).toBe(403);
		await health.body?.cancel();
		// The session survived the refused DELETE.
		expect((await s.request("ping")).result).toEqual({});
	});

	test("a non-loopback Origin is 403, also inside a session", async () => {
		const { url } = await serve();
		const s = await rawSession(url);
		for (const origin of ["http://evil.example", `http://evil.example:${new URL(url).port}`, "null"]) {
			const init = await fetch(url, {
				method: "POST",
				headers: { ...POST_HEADERS, origin },
				body: JSON.stringify(initializeBody()),
			});
			expect(init.status).toBe(403);
			expect((await rpcOf(init)).error?.message).toMatch(/origin/i);
			const inSession = await s.post({ jsonrpc: "2.0", id: 3, method: "ping" }, { origin });
			expect(inSession.status).toBe(403);
			await inSession.body?.cancel();
		}
	});

	test("loopback Origins are accepted", async () => {
		const { url } = await serve();
		for (const origin of ["http://localhost:3000", "http://127.0.0.1", "http://[::1]:8080"]) {
			const s = await rawSession(url, { origin });
			expect((await s.request("ping")).result).toEqual({});
		}
		const client = await connect(url, { Origin: "http://localhost:5173" });
		expect(await client.ping()).toEqual({});
	});

	test("a client that addresses the server as [::ffff:127.0.0.1] (IPv4-mapped loopback) is served", async () => {
		const { url } = await serve();
		// fetch sends the URL parser's form of that host: Host: [::ffff:7f00:1]:<port>.
		const mapped = url.replace("127.0.0.1", "[::ffff:127.0.0.1]");
		const res = await fetch(mapped, {
			method: "POST",
			headers: POST_HEADERS,
			body: JSON.stringify(initializeBody()),
		});
		expect(res.status).toBe(200);
		expect((await rpcOf(res)).result?.protocolVersion).toBe(PROTOCOL);
	});

	test("loopback_auth token: a missing or wrong bearer is 401, the operator's works; a loopback /healthz needs none", async () => {
		const token = `tok-${crypto.randomUUID()}`;
		const { url } = await serve({ operatorTokens: [token], loopbackAuth: "token" });
		const bodies: string[] = [];
		const expectStatus = async (res: Response, status: number) => {
			expect(res.status).toBe(status);
			if (status === 401) expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
			bodies.push(await res.text());
		};
		for (const authorization of [
			undefined,
			"Bearer wrong",
			`Bearer ${token}x`,
			`Basic ${token}`,
			token,
			"Bearer ",
		]) {
			const auth: Record<string, string> = authorization === undefined ? {} : { authorization };
			await expectStatus(
				await fetch(url, {
					method: "POST",
					headers: { ...POST_HEADERS, ...auth },
					body: JSON.stringify(initializeBody()),
				}),
				401,
			);
			const health = await fetch(new URL("/healthz", url), { headers: auth });
			expect(health.status).toBe(200);
			bodies.push(await health.text());
		}
		// The SDK client without the token fails to connect.
		const anon = new Client({ name: "anon", version: "1" });
		await expect(anon.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow();

		const bearer = { authorization: `Bearer ${token}` };
		const client = await connect(url, { Authorization: `Bearer ${token}` });
		const listed = await client.listTools();
		expect(listed.tools.length).toBe(61);
		const health = await fetch(new URL("/healthz", url), { headers: bearer });
		expect(health.status).toBe(200);
		expect(await health.json()).toEqual({ status: "healthy-idle" });

		// A session id is not a credential: requests in a session still need the bearer.
		const s = await rawSession(url, bearer);
		const { authorization: _, ...noAuth } = s.headers;
		await expectStatus(
			await fetch(url, {
				method: "POST",
				headers: noAuth,
				body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }),
			}),
			401,
		);
		await expectStatus(await fetch(url, { method: "DELETE", headers: noAuth }), 401);
		expect((await s.request("ping")).result).toEqual({});

		// Errors of every kind (auth, Host, Origin, session, body, tool) never echo the token.
		await expectStatus(
			await fetch(url, { method: "POST", headers: { ...s.headers, host: "evil.example" }, body: "{}" }),
			403,
		);
		await expectStatus(
			await fetch(url, {
				method: "POST",
				headers: { ...s.headers, origin: "http://evil.example" },
				body: "{}",
			}),
			403,
		);
		await expectStatus(await s.post("{not json"), 400);
		await expectStatus(await s.post("x".repeat(MAX_BODY + 1)), 413);
		await expectStatus(
			await fetch(url, { method: "POST", headers: { ...s.headers, "mcp-session-id": "nope" }, body: "{}" }),
			404,
		);
		await expectStatus(await fetch(new URL("/nowhere", url), { headers: bearer }), 404);
		const toolError = await s.request("tools/call", { name: "task.get", arguments: { task_id: token } });
		expect(toolError.result?.isError).toBe(true);
		for (const body of bodies) expect(body).not.toContain(token);
		expect(bodies.length).toBeGreaterThanOrEqual(20); // 6 × 2 refused and answered, then 8 more
	});

	test("a non-loopback address without TLS and a token refuses to start", async () => {
		const p = await makeProject();
		const base: Partial<HttpOptions> = { address: "0.0.0.0:0", operatorTokens: [] };
		const token = `tok-${crypto.randomUUID()}`;
		const tls = { cert: `${REPO}/no-such-cert.pem`, key: `${REPO}/no-such-key.pem` };
		for (const options of [
			base,
			{ ...base, operatorTokens: [token] },
			{ ...base, tls },
			{ ...base, address: "[::]:0", operatorTokens: [token] },
		]) {
			let message = "";
			try {
				const server = loopbackHttp(p.rt, options);
				cleanups.push(() => server.close());
			} catch (err) {
				message = (err as Error).message;
			}
			expect(message).toContain("TLS");
			expect(message).toContain("ROUNDTABLE_MCP_TOKEN");
			expect(message).not.toContain(token);
		}
	});
});

describe("/healthz and other paths", () => {
	test("/healthz reports the health callback: 200 when ready or idle, 503 when degraded", async () => {
		let health: "ready" | "healthy-idle" | "degraded" = "healthy-idle";
		const { url } = await serve({ health: async () => health });
		const healthz = new URL("/healthz", url);
		let res = await fetch(healthz);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: "healthy-idle" });
		health = "ready";
		res = await fetch(healthz);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: "ready" });
		health = "degraded";
		res = await fetch(healthz);
		expect(res.status).toBe(503);
		expect(await res.json()).toEqual({ status: "degraded" });
	});

	test("an unknown path is 404 (`/` is the dashboard's: test/transports/dashboard*.test.ts)", async () => {
		const { url } = await serve();
		for (const path of ["/nope", "/mcp/extra", "/healthz/x", "/apix", "/assetsx", "/loginx"]) {
			const res = await fetch(new URL(path, url));
			expect(res.status).toBe(404);
			await res.body?.cancel();
		}
	});
});

describe("cancellation", () => {
	test("an SDK client abort reaches a waiting table.watch: it stops well before its wait ends", async () => {
		const { url, inflight } = await serve();
		const client = await connect(url);
		const state = (await client.callTool({ name: "table.get_state", arguments: {} })) as ToolResult;
		const newest = state.structuredContent?.last_event_id as number;
		expect(newest).toBeNumber();

		const ac = new AbortController();
		const started = Date.now();
		const watching = client.callTool(
			{ name: "table.watch", arguments: { after_event_id: newest, wait_ms: 20_000 } },
			undefined,
			{ signal: ac.signal, timeout: 60_000 },
		);
		const settled = watching.then(
			() => "resolved",
			(err: Error) => `rejected: ${err.message}`,
		);
		await waitFor("the watch to be in flight", () => inflight.size === 1, 5000);
		await Bun.sleep(300);
		expect(inflight.size).toBe(1);
		ac.abort("test cancels");
		expect(await settled).toStartWith("rejected");
		await waitFor("the watch to stop on the server", () => inflight.size === 0, 5000);
		expect(Date.now() - started).toBeLessThan(10_000);
		// The session is still usable.
		expect(await client.ping()).toEqual({});
	});
});

describe("table.watch wake-ups over HTTP", () => {
	async function newestEventId(client: Client): Promise<number> {
		const state = (await client.callTool({ name: "table.get_state", arguments: {} })) as ToolResult;
		return state.structuredContent?.last_event_id as number;
	}

	interface WatchView {
		events: { id: number; type: string; task_id: string | null; created_at: string }[];
	}

	test("a task.create in another HTTP session wakes the watch at once", async () => {
		const { url, inflight } = await serve();
		const watcher = await connect(url);
		const writer = await connect(url);
		const after = await newestEventId(watcher);
		const started = Date.now();
		let returnedAt = 0;
		const watching = watcher
			.callTool({ name: "table.watch", arguments: { after_event_id: after, wait_ms: 10_000 } })
			.then((r) => {
				returnedAt = Date.now();
				return r as ToolResult;
			});
		watching.catch(() => {}); // reported where it is awaited
		await waitFor("the watch to be waiting", () => inflight.size === 1, 5000);
		await Bun.sleep(200);
		const createdAt = Date.now();
		const created = (await writer.callTool({
			name: "task.create",
			arguments: { title: "wake up", body_md: "b" },
		})) as ToolResult;
		const taskId = (created.structuredContent as { task: { id: string } }).task.id;
		const view = (await watching).structuredContent as unknown as WatchView;
		expect(returnedAt - createdAt).toBeLessThan(2000);
		expect(returnedAt - started).toBeLessThan(5000);
		expect(view.events.map((e) => [e.type, e.task_id])).toContainEqual(["task.created", taskId]);
		expect(view.events.every((e) => e.id > after)).toBe(true);
	});

	test("a task.create by another process (mcp call, direct mode) wakes the watch promptly", async () => {
		const { url, inflight, p } = await serve();
		const watcher = await connect(url);
		const after = await newestEventId(watcher);
		let returnedAt = 0;
		const watching = watcher
			.callTool({ name: "table.watch", arguments: { after_event_id: after, wait_ms: 10_000 } })
			.then((r) => {
				returnedAt = Date.now();
				return r as ToolResult;
			});
		watching.catch(() => {}); // reported where it is awaited
		await waitFor("the watch to be waiting", () => inflight.size === 1, 5000);
		const spawnedAt = Date.now();
		const { code, stdout, stderr } = await runCli([
			"mcp",
			"call",
			"--tool",
			"task.create",
			"--args",
			JSON.stringify({ title: "from another process", body_md: "b" }),
			"--root",
			p.root,
		]);
		const exitedAt = Date.now();
		expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
		const taskId = (JSON.parse(stdout) as { task: { id: string } }).task.id;
		const view = (await watching).structuredContent as unknown as WatchView;
		const event = view.events.find((e) => e.type === "task.created" && e.task_id === taskId);
		if (!event)
			throw new Error(`the watch returned without the child's event: ${JSON.stringify(view.events)}`);
		// The child commits, then closes its runtime and exits, so the watch may return before the exit
		// is seen; the event's created_at (read just before the child's commit) dates the commit.
		const afterExit = returnedAt - exitedAt;
		const afterCommit = returnedAt - Date.parse(event.created_at);
		console.log(
			`table.watch woke ${afterExit} ms after the mcp call child exited, ${afterCommit} ms after its commit (child ran ${exitedAt - spawnedAt} ms)`,
		);
		expect(afterExit).toBeLessThan(2000);
		expect(afterCommit).toBeLessThan(2000);
	});
});
