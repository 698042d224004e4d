// Both eras of MCP on one HTTP endpoint: a 2025-11-25 client's initialize opens a session as
// before; a request carrying the 2026-07-28 envelope is served on its own (server/discover, no
// session id, tools/list with ttlMs and cacheScope), authenticated by its own bearer, with the
// headers the revision requires checked and their errors as specified. A 1.x SDK client and a 2.x
// one pinned to 2026-07-28 list and call tools side by side.
import { afterAll, expect, test } from "bun:test";
import {
	Client as ModernClient,
	StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { toolsFor } from "../../src/registry/index.ts";
import { publishedTools } from "../../src/registry/mcp.ts";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { makeProject } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";
import { MODERN_META } from "../_helpers/raw-mcp.ts";

const TOKEN = "eras-test-operator-token";
const p = await makeProject();
const server = loopbackHttp(p.rt, { loopbackAuth: "token", operatorTokens: [TOKEN] });
const closing: { close(): Promise<void> }[] = [];
afterAll(async () => {
	for (const c of closing) await c.close().catch(() => {});
	await server.close();
});

const MODERN = "2026-07-28";

/** One new-era request by hand: the headers it must carry, unless `drop` names some to leave out. */
async function modern(
	method: string,
	params: Record<string, unknown>,
	o: { bearer?: string; headers?: Record<string, string>; drop?: string[]; meta?: object } = {},
) {
	const headers: Record<string, string> = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		"mcp-protocol-version": MODERN,
		"mcp-method": method,
		...(typeof params.name === "string" && { "mcp-name": params.name }),
		authorization: `Bearer ${o.bearer ?? TOKEN}`,
		...o.headers,
	};
	for (const h of o.drop ?? []) delete headers[h];
	const res = await fetch(server.url, {
		method: "POST",
		headers,
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method,
			params: { ...params, _meta: o.meta ?? MODERN_META },
		}),
	});
	const text = await res.text();
	const body = (
		text.startsWith("{") ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? "{}")
	) as {
		result?: Record<string, unknown>;
		error?: { code: number; message: string; data?: Record<string, unknown> };
	};
	return { status: res.status, session: res.headers.get("mcp-session-id"), ...body };
}

async function agent(agentId: string, binding: Record<string, string> = {}): Promise<string> {
	const raw = newCapability();
	await p.call("session.mint", { agent_id: agentId, capability_sha256: capabilityHash(raw), ...binding });
	return raw;
}

test("server/discover and tools/list in the new era: stateless, no session id, a list that says how long it holds", async () => {
	const discover = await modern("server/discover", {});
	expect(discover.status).toBe(200);
	expect(discover.session).toBeNull();
	expect(discover.result).toMatchObject({ supportedVersions: [MODERN], capabilities: { tools: {} } });
	const listed = await modern("tools/list", {});
	expect(listed.session).toBeNull();
	expect(listed.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private" });
	expect(((listed.result?.tools as { name: string }[] | undefined) ?? []).map((t) => t.name)).toEqual(
		publishedTools(undefined).map((t) => t.name),
	);
	// An agent's capability, on its own request: its role's tools, nothing more.
	const reviewer = await agent("reviewer-1");
	const its = await modern("tools/list", {}, { bearer: reviewer });
	expect(((its.result?.tools as { name: string }[] | undefined) ?? []).map((t) => t.name)).toEqual(
		toolsFor("Reviewer").map((t) => t.name),
	);
});

test("a tool call in the new era acts as the caller its bearer names, and only so", async () => {
	const implementer = await agent("implementer-1");
	const posted = await modern(
		"tools/call",
		{ name: "message.post", arguments: { channel: "general", body_md: "from the new era" } },
		{ bearer: implementer },
	);
	expect(posted.result?.isError).toBeUndefined();
	expect(posted.result?.structuredContent).toMatchObject({ message: { sender_id: "implementer-1" } });
	// A tool its role lacks is refused as in the old era, and recorded.
	const refused = await modern(
		"tools/call",
		{ name: "vote.cast", arguments: { proposal_id: "P-x", vote: "approve" } },
		{ bearer: implementer },
	);
	expect(refused.result?.isError).toBe(true);
	expect(JSON.stringify(refused.result?.content)).toContain("permission_denied");
	// No bearer, a wrong one, or one that was revoked: 401 before anything runs.
	for (const bearer of ["wrong", `${implementer}x`]) {
		const r = await modern("tools/list", {}, { bearer });
		expect({ bearer, status: r.status }).toEqual({ bearer, status: 401 });
	}
	const none = await modern("tools/list", {}, { drop: ["authorization"] });
	expect(none.status).toBe(401);
});

test("bad new-era requests get the specified errors: an unknown version, headers missing or disagreeing, an unknown tool", async () => {
	const unknown = await modern(
		"tools/list",
		{},
		{
			meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
			headers: { "mcp-protocol-version": "2099-01-01" },
		},
	);
	expect(unknown.status).toBe(400);
	expect(unknown.error?.code).toBe(-32022);
	expect(unknown.error?.data).toMatchObject({ supported: expect.arrayContaining([MODERN]) });
	const noName = await modern(
		"tools/call",
		{ name: "table.get_state", arguments: {} },
		{ drop: ["mcp-name"] },
	);
	expect({ status: noName.status, code: noName.error?.code }).toEqual({ status: 400, code: -32020 });
	const wrongName = await modern(
		"tools/call",
		{ name: "table.get_state", arguments: {} },
		{ headers: { "mcp-name": "task.get" } },
	);
	expect({ status: wrongName.status, code: wrongName.error?.code }).toEqual({ status: 400, code: -32020 });
	const wrongVersion = await modern("tools/list", {}, { headers: { "mcp-protocol-version": "2025-11-25" } });
	expect(wrongVersion.status).toBe(400);
	const noTool = await modern("tools/call", { name: "task.creat", arguments: {} });
	expect(noTool.error).toMatchObject({ code: -32602, data: { did_you_mean: "task.create" } });
	// An operator tool does not exist on the MCP surface, in this era as in the other.
	const operatorOnly = await modern("tools/call", { name: "session.mint", arguments: {} });
	expect(operatorOnly.error?.code).toBe(-32602);
});

test("a 1.x client (2025-11-25, a session) and a 2.x client pinned to 2026-07-28 list and call tools side by side", async () => {
	const headers = { Authorization: `Bearer ${TOKEN}` };
	const old = new Client({ name: "old", version: "1" });
	await old.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
	closing.push(old);
	const fresh = new ModernClient(
		{ name: "new", version: "1" },
		{ versionNegotiation: { mode: { pin: MODERN } } },
	);
	await fresh.connect(new ModernTransport(new URL(server.url), { requestInit: { headers } }));
	closing.push(fresh);
	expect(fresh.getNegotiatedProtocolVersion()).toBe(MODERN);
	const [a, b] = [await old.listTools(), await fresh.listTools()];
	expect(b.tools.map((t) => t.name)).toEqual(a.tools.map((t) => t.name));
	const said = async (c: { callTool: Client["callTool"] | ModernClient["callTool"] }, body_md: string) =>
		(
			(await c.callTool({ name: "message.post", arguments: { channel: "general", body_md } }))
				.structuredContent as {
				message: { id: string; body_md: string; sender_id: string };
			}
		).message;
	const byOld = await said(old, "old");
	const byNew = await said(fresh, "new");
	expect([byOld, byNew]).toMatchObject([
		{ body_md: "old", sender_id: "operator" },
		{ body_md: "new", sender_id: "operator" },
	]);
	// Each saw the other's: the same table, whichever era wrote to it.
	const watched = (
		await fresh.callTool({ name: "table.watch", arguments: { after_event_id: 0, limit: 200 } })
	).structuredContent as { events: { type: string; payload: { message_id?: string } }[] };
	const posted = watched.events.filter((e) => e.type === "message.posted").map((e) => e.payload.message_id);
	expect(posted).toEqual(expect.arrayContaining([byOld.id, byNew.id]));
});
