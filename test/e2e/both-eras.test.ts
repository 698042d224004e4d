// One owner, both eras of MCP, every MCP door: a 1.x SDK client (2025-11-25, a session) and a 2.x
// one pinned to 2026-07-28 (no session, each request on its own) list and call tools over Streamable
// HTTP, through the stdio bridge, and through a launched session's private socket (as its agent).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
	Client as ModernClient,
	StreamableHTTPClientTransport as ModernHttp,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { toolsFor } from "../../src/registry/index.ts";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { MAIN, tempDir, until } from "../_helpers/helpers.ts";
import { type Owned, operatorCall, ownedProject } from "../_helpers/launch-helpers.ts";

let owned: Owned;
let socket: string;
beforeAll(async () => {
	owned = await ownedProject(tempDir("rt-eras-"), { "a.txt": "a\n" });
	const minted = await operatorCall(owned.root, "session.mint", {
		agent_id: "implementer-1",
		capability_sha256: capabilityHash(newCapability()),
		endpoint: true,
	});
	socket = minted.session.mcp_socket as string;
	await until(() => existsSync(socket), 15_000, "the session's socket");
}, 60_000);
afterAll(async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
});

interface AnyClient {
	listTools(): Promise<{ tools: { name: string }[] }>;
	callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<{ structuredContent?: unknown }>;
	close(): Promise<void>;
}

type Door = "HTTP" | "stdio" | "session socket";
type Era = "2025-11-25" | "2026-07-28";

async function connect(door: Door, era: Era): Promise<AnyClient> {
	const modern = era === "2026-07-28";
	const client = modern
		? new ModernClient({ name: "eras", version: "1" }, { versionNegotiation: { mode: { pin: era } } })
		: new Client({ name: "eras", version: "1" });
	const env = { ...(process.env as Record<string, string>) };
	const stdio = (extra: Record<string, string>) => ({
		command: process.execPath,
		args: [MAIN, "mcp", "stdio", ...(door === "stdio" ? ["--root", owned.root] : [])],
		env: { ...env, ...extra },
	});
	const token = readFileSync(join(owned.root, ".roundtable/operator.token"), "utf8").trim();
	const requestInit = { headers: { Authorization: `Bearer ${token}` } };
	const transport =
		door === "HTTP"
			? modern
				? new ModernHttp(new URL(owned.url), { requestInit })
				: new StreamableHTTPClientTransport(new URL(owned.url), { requestInit })
			: modern
				? new ModernStdio(stdio(door === "session socket" ? { ROUNDTABLE_SESSION_SOCKET: socket } : {}))
				: new StdioClientTransport(
						stdio(door === "session socket" ? { ROUNDTABLE_SESSION_SOCKET: socket } : {}),
					);
	// biome-ignore lint/suspicious/noExplicitAny: the two SDK lines' clients take their own transports
	await (client as any).connect(transport);
	return client as unknown as AnyClient;
}

test("each era lists and calls tools through each door: the operator's tools over HTTP and stdio, the agent's over its socket", async () => {
	const seen: string[] = [];
	for (const door of ["HTTP", "stdio", "session socket"] as const)
		for (const era of ["2025-11-25", "2026-07-28"] as const) {
			const client = await connect(door, era);
			try {
				const { tools } = await client.listTools();
				const names = tools.map((t) => t.name);
				if (door === "session socket") expect(names).toEqual(toolsFor("Implementer").map((t) => t.name));
				else expect(names.length).toBeGreaterThan(toolsFor("Implementer").length);
				const state = await client.callTool({ name: "table.get_state", arguments: {} });
				expect(state.structuredContent).toMatchObject({ last_event_id: expect.any(Number) });
				seen.push(`${door} ${era}`);
			} finally {
				await client.close();
			}
		}
	expect(seen).toHaveLength(6);
}, 120_000);
