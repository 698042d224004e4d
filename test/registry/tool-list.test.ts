// The tool list an agent reads at the start of every session (SPEC §10): each role's list, as its
// capability gets it, fits 32 KiB; the operator's, every agent tool over the real Streamable HTTP
// transport, fits 48 KiB; and every tool and argument is described for agents. Lean as the published schemas are, results keep their full types.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AGENT_TOOLS, argNames, jsonSchemas, TOOLS } from "../../src/registry/index.ts";
import { publishedTools } from "../../src/registry/mcp.ts";
import { ROLES } from "../../src/registry/types.ts";
import type { HttpServer } from "../../src/transports/http.ts";
import { expectDeclaredOutput, makeProject, type Project } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";
import { servedToolList } from "../_helpers/raw-mcp.ts";

/** What an agent's capability lists (its role's tools). */
const BUDGET = 32 * 1024;
/** What the operator's token lists: every agent tool. */
const OPERATOR_BUDGET = 48 * 1024;

type Listed = {
	name: string;
	description: string;
	inputSchema: { properties?: Record<string, { description?: string }>; required?: string[] };
	outputSchema?: unknown;
	annotations: Record<string, unknown>;
};

let server: HttpServer;
let client: Client;
/** The tools/list result exactly as it came over the wire, and its size re-serialized compactly. */
let wire: { tools: Listed[] };
let bytes: number;

async function rawToolsList(url: string): Promise<{ tools: Listed[] }> {
	const result = await servedToolList(url);
	expect(result.nextCursor).toBeUndefined(); // one page: the whole list
	return result as { tools: Listed[] };
}

// makeProject closes its runtime in an afterAll of its own, so it runs at the top level, not in a hook.
const p: Project = await makeProject();

beforeAll(async () => {
	server = loopbackHttp(p.rt, { maxSessions: 8 });
	wire = await rawToolsList(server.url);
	bytes = Buffer.byteLength(JSON.stringify(wire));
	client = new Client({ name: "tool-list-test", version: "1.0.0" });
	await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
}, 30_000);

afterAll(async () => {
	await client?.close();
	await server?.close();
});

describe("tools/list over Streamable HTTP", () => {
	test("each role's list fits 32 KiB", () => {
		const sizes = ROLES.map((role) => [
			role,
			Buffer.byteLength(JSON.stringify({ tools: publishedTools(role) })),
		]);
		console.log(`tools/list by role: ${sizes.map(([r, b]) => `${r} ${b}`).join(", ")} (budget ${BUDGET})`);
		for (const [role, size] of sizes)
			expect({ role, size }).toEqual({ role, size: Math.min(size as number, BUDGET) });
	});

	test("the operator's whole list fits 48 KiB", () => {
		const sizes = wire.tools.map((t) => [t.name, Buffer.byteLength(JSON.stringify(t))] as const);
		const largest = [...sizes].sort((a, b) => b[1] - a[1]).slice(0, 5);
		console.log(
			`tools/list: ${bytes} bytes for ${wire.tools.length} tools (budget ${OPERATOR_BUDGET}); largest: ${largest.map(([n, b]) => `${n} ${b}`).join(", ")}`,
		);
		expect(wire.tools.map((t) => t.name)).toEqual(AGENT_TOOLS.map((t) => t.name));
		expect(bytes).toBeLessThanOrEqual(OPERATOR_BUDGET);
	});

	test("is the registry's published projection, with no outputSchema", async () => {
		expect(wire).toEqual(
			JSON.parse(JSON.stringify({ tools: publishedTools(), ttlMs: 3_600_000, cacheScope: "private" })),
		);
		for (const t of wire.tools) expect(t.outputSchema).toBeUndefined();
		const { tools } = await client.listTools();
		expect(tools.length).toBe(AGENT_TOOLS.length);
	});

	test("publishes every argument, with what is required, and the hints", () => {
		for (const t of wire.tools) {
			const reg = TOOLS.find((r) => r.name === t.name);
			if (!reg) throw new Error(`unexpected ${t.name}`);
			expect(Object.keys(t.inputSchema.properties ?? {}).sort()).toEqual(argNames(reg).sort());
			expect(t.inputSchema.required).toEqual(jsonSchemas(reg).input.required as string[] | undefined);
			expect(t.annotations.readOnlyHint).toBe(!reg.mutates);
			expect(t.annotations.openWorldHint).toBe(false);
			if (reg.mutates) {
				expect(t.annotations.destructiveHint).toBe(reg.annotations.destructiveHint);
				expect(t.annotations.idempotentHint ?? false).toBe(reg.annotations.idempotentHint);
			}
			expect(t.annotations.title).toBeUndefined();
		}
	});

	test("every argument is described, never by its type alone", () => {
		for (const t of wire.tools) {
			for (const [arg, prop] of Object.entries(t.inputSchema.properties ?? {})) {
				expect({ tool: t.name, arg, doc: prop.description?.trim() ?? "" }).toMatchObject({
					doc: expect.stringMatching(/^(?!an? (non-empty string|id of|integer|string|number)\b)\S.{2,}/),
				});
			}
		}
	});

	test("every tool says what usually comes next, naming a real tool", () => {
		const names = new Set(TOOLS.map((t) => t.name as string));
		for (const t of wire.tools) {
			const next = t.description.split("Next: ")[1] ?? "";
			const named = [...next.matchAll(/[a-z]+(?:\.[a-z_]+)+/g)].map((m) => m[0]);
			expect({ tool: t.name, named: named.some((n) => names.has(n)) }).toEqual({ tool: t.name, named: true });
		}
	});
});

describe("results keep their types without an outputSchema", () => {
	test("structuredContent equals the text and matches the registry's output type", async () => {
		const made = await client.callTool({ name: "task.create", arguments: { title: "t", body_md: "b" } });
		for (const [name, r] of [
			["task.create", made],
			["table.get_state", await client.callTool({ name: "table.get_state", arguments: {} })],
			["table.watch", await client.callTool({ name: "table.watch", arguments: { after_event_id: 0 } })],
		] as const) {
			expect(r.isError).toBeFalsy();
			const text = (r.content as { text: string }[])[0]?.text ?? "";
			expect(JSON.parse(text)).toEqual(r.structuredContent);
			expectDeclaredOutput(name, r.structuredContent);
		}
	});
});

// A role's list shows what that role may give: an argument its grant allows no value of is not
// listed, and one it may give only some values of lists just those (call() refuses the rest).
test("each role's list leaves out the arguments it may not give, and lists only the values it may", () => {
	let checked = 0;
	for (const role of ROLES) {
		const listed = new Map(publishedTools(role).map((t) => [t.name, t]));
		for (const tool of AGENT_TOOLS) {
			const grant =
				tool.access === "every"
					? undefined
					: (tool.access as Record<string, { only?: Record<string, unknown[]> }>)[role];
			const mine = listed.get(tool.name);
			for (const [field, allowed] of Object.entries(grant?.only ?? {})) {
				const prop = (mine?.inputSchema.properties as Record<string, { enum?: unknown[] }> | undefined)?.[
					field
				];
				if (allowed.length === 0)
					expect({ role, tool: tool.name, field, listed: prop !== undefined }).toEqual({
						role,
						tool: tool.name,
						field,
						listed: false,
					});
				else if (prop?.enum) expect(prop.enum.every((v) => allowed.includes(v))).toBe(true);
				checked++;
			}
		}
	}
	expect(checked).toBeGreaterThan(10);
	const implementer = publishedTools("Implementer").find((t) => t.name === "human.request_approval");
	expect(Object.keys(implementer?.inputSchema.properties ?? {})).not.toContain("decision_md");
	const reviewer = publishedTools("Reviewer").find((t) => t.name === "resource.claim");
	const claimType = (reviewer?.inputSchema.properties as Record<string, { enum?: string[] }> | undefined)
		?.claim_type;
	expect(claimType?.enum).toEqual(["read", "review"]);
	// The operator's list keeps every argument.
	const operator = publishedTools().find((t) => t.name === "human.request_approval");
	expect(Object.keys(operator?.inputSchema.properties ?? {})).toContain("decision_md");
});
