// The permission matrix over HTTP with real bearers, in both eras of MCP (a 2025-11-25 session, and
// 2026-07-28 requests each authenticated on its own): every role × every agent tool, called bound
// (naming what the capability is bound to), naming another task/proposal/run, and outside the
// task's readable_paths; then with a capability that expired, one revoked, and a disabled agent.
// Each cell must come out as docs/permissions.md (the registry's `access`) says.
import { afterAll, describe, expect, test } from "bun:test";
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { AGENT_TOOLS, type Tool, type ToolName, toolsFor } from "../../src/registry/index.ts";
import { publishedTools } from "../../src/registry/mcp.ts";
import { type Grant, ROLES, type Role } from "../../src/registry/types.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";
import {
	AGENT_OF,
	type AnyClient,
	agentClient,
	argsFor,
	ERAS,
	OUTSIDE,
	type Outcome,
	outcome,
	permissionsFixture,
} from "../_helpers/permissions-fixture.ts";

const f = await permissionsFixture();
const server = loopbackHttp(f.p.rt, { maxSessions: 64 });
const clients: { close(): Promise<void> }[] = [];
afterAll(async () => {
	for (const c of clients) await c.close().catch(() => {});
	await server.close();
});

/** Every event after `after`, paging through table.watch. */
async function eventsAfter(after: number) {
	const out: { id: number; type: string; payload: Record<string, unknown> }[] = [];
	for (let cursor = after; ; ) {
		const page = await call(
			f.p.rt,
			"table.watch",
			{ after_event_id: cursor, limit: 1000 },
			operatorContext(),
		);
		if (page.events.length === 0) return out;
		out.push(...page.events);
		cursor = page.next_after_event_id;
	}
}

const REFUSED = new Set(["permission_denied", "unauthenticated"]);
const grantOf = (t: Tool, role: Role): Grant | "every" | undefined =>
	t.access === "every" ? "every" : Object.hasOwn(t.access, role) ? t.access[role] : undefined;
/** MemoryOracle's capability is bound to nothing: it has no task, so no readable_paths, and nothing to stay inside. */
const unbound = (role: Role) => role === "MemoryOracle";

/** Searches skip what may not be read instead of failing: a refused cell shows nothing. */
const SEARCHES = new Set(["repo.search", "repo.symbols"]);

/** A cell: refused unless the role has the tool and `inside` holds; a search the role has shows nothing instead. */
function expectCell(role: Role, tool: string, cell: string, got: Outcome, grant: unknown, inside: boolean) {
	const allowed = grant !== undefined && (inside || SEARCHES.has(tool));
	const refused = !got.ok && REFUSED.has(got.code);
	expect({ role, tool, cell, refused, why: got.ok ? "" : `${got.code}: ${got.message}` }).toMatchObject({
		role,
		tool,
		cell,
		refused: !allowed,
	});
	if (grant !== undefined && !inside && SEARCHES.has(tool) && got.ok) {
		const r = got.result as { matches?: unknown[]; symbols?: unknown[] };
		expect({ role, tool, cell, shown: r.matches ?? r.symbols }).toEqual({ role, tool, cell, shown: [] });
	}
}

describe.each(ERAS.flatMap((era) => ROLES.map((r) => [r, era] as const)))("%s, MCP %s", (role, era) => {
	test("tools/list holds exactly the tools the role may call", async () => {
		const { capability } = await f.mint(role);
		const client = await agentClient(server.url, capability, era);
		clients.push(client);
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name)).toEqual(toolsFor(role).map((t) => t.name));
		if (era === "2025-11-25")
			console.log(
				`tools/list for ${role}: ${tools.length} tools, ${Buffer.byteLength(JSON.stringify({ tools: publishedTools(role) }))} bytes`,
			);
	});

	test("every tool: bound, outside readable_paths, and naming another task, proposal or run", async () => {
		const { capability } = await f.mint(role);
		const client = await agentClient(server.url, capability, era);
		clients.push(client);
		const me = AGENT_OF[role];
		for (const tool of AGENT_TOOLS) {
			const grant = grantOf(tool, role);
			const name = tool.name as ToolName;
			// Bound: allowed for the role's tools, except reading (or claiming) a path for a role
			// without readable_paths. Renewing a claim on no path reads nothing.
			const bound = await outcome(client, name, argsFor(name, f.mine(role), me, f.memory));
			const readsPath = tool.reads === "claimed" || name === "resource.claim";
			expectCell(role, name, "bound", bound, grant, !(readsPath && unbound(role)));

			const outside =
				name === "resource.claim"
					? { ...argsFor(name, f.mine(role), me, f.memory), resource_id: "file:other/c.ts" }
					: OUTSIDE[name];
			if (outside)
				expectCell(role, name, "outside readable_paths", await outcome(client, name, outside), grant, false);

			if (unbound(role)) continue;
			// A tool whose arguments name no task, proposal or run (message.promote names a message)
			// has nothing to stay inside: this cell is the bound one again.
			const otherArgs = argsFor(name, f.other, me, f.memory);
			const namesNothing = Bun.deepEquals(otherArgs, argsFor(name, f.mine(role), me, f.memory));
			const other = await outcome(client, name, otherArgs);
			expectCell(role, name, "another task/proposal/run", other, grant, grant === "every" || namesNothing);
		}
	});
});

/** Calls every agent tool, bound, and expects each to come out as `expected`. */
async function everyTool(role: Role, client: AnyClient, expected: Record<string, unknown>) {
	for (const tool of AGENT_TOOLS) {
		const got = await outcome(client, tool.name, argsFor(tool.name, f.mine(role), AGENT_OF[role], f.memory));
		expect({ role, tool: tool.name, got }).toMatchObject({ got: expected });
	}
}

describe("a capability that lapsed, or whose agent is disabled", () => {
	test("expired or revoked: every tool of every role is 401 (unauthenticated), even mid-session", async () => {
		const lapsed: { role: Role; client: Awaited<ReturnType<typeof agentClient>> }[] = [];
		for (const role of ROLES) {
			const expiring = await f.mint(role, 1);
			const revoked = await f.mint(role);
			for (const cap of [expiring, revoked]) {
				const client = await agentClient(server.url, cap.capability);
				clients.push(client);
				lapsed.push({ role, client });
			}
			await call(f.p.rt, "session.revoke", { session_id: revoked.session }, operatorContext());
		}
		await Bun.sleep(1100);
		for (const { role, client } of lapsed)
			await everyTool(role, client, {
				ok: false,
				code: "rpc:401",
				message: expect.stringContaining("unauthenticated"),
			});
	});

	test("a disabled agent: every tool of every role is permission_denied, and each refusal is a call.denied event", async () => {
		const open = await Promise.all(
			ROLES.map(async (role) => ({
				role,
				client: await agentClient(server.url, (await f.mint(role)).capability),
			})),
		);
		for (const { client } of open) clients.push(client);
		for (const role of ROLES)
			await call(f.p.rt, "agent.disable", { agent_id: AGENT_OF[role] }, operatorContext());
		const before = (await call(f.p.rt, "table.get_state", {}, operatorContext())).last_event_id;
		for (const { role, client } of open)
			await everyTool(role, client, { ok: false, code: "permission_denied" });
		const denied = (await eventsAfter(before)).filter((e) => e.type === "call.denied");
		// One per (session, tool, reason) within the minute: here, one per role and tool.
		expect(denied.length).toBe(ROLES.length * AGENT_TOOLS.length);
		expect(denied[0]?.payload).toMatchObject({ code: "permission_denied", count: 1 });
	});
});
