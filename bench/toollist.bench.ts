// What every agent session pays up front: the MCP tools/list result, as served over Streamable HTTP,
// in bytes in all and per tool, against the 32 KiB budget (SPEC §10) and against the registry's
// full schemas (what the list held before it was made lean: input and output schemas in full).
import { jsonSchemas, TOOLS } from "../src/registry/index.ts";
import { startHttp } from "../src/transports/http.ts";
import { InFlight } from "../src/transports/inflight.ts";
import { fmt, freshProject } from "./lib.ts";

const BUDGET = 32 * 1024;
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

type Listed = { name: string; description: string; inputSchema: { properties?: Record<string, object> } };

/** The JSON-RPC result of one POST, from a JSON or an SSE reply. */
async function result(res: Response): Promise<Record<string, unknown>> {
	const text = await res.text();
	const bodies = res.headers.get("content-type")?.includes("text/event-stream")
		? text
				.split("\n")
				.filter((l) => l.startsWith("data: ") && l.length > 6)
				.map((l) => l.slice(6))
		: [text];
	return bodies.map((b) => JSON.parse(b)).find((m) => "result" in m).result;
}

async function servedList(url: string): Promise<{ tools: Listed[] }> {
	const post = (body: object, headers: Record<string, string> = {}) =>
		fetch(url, { method: "POST", headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
	const init = await post({
		jsonrpc: "2.0",
		id: 1,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
	});
	const session = {
		"mcp-session-id": init.headers.get("mcp-session-id") ?? "",
		"mcp-protocol-version": "2025-11-25",
	};
	await result(init);
	await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
	return (await result(await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session))) as {
		tools: Listed[];
	};
}

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

export async function run(): Promise<void> {
	const p = await freshProject();
	const server = startHttp(p.rt, {
		address: "127.0.0.1:0",
		token: undefined,
		tls: undefined,
		maxBodyBytes: 1024 * 1024,
		maxSessions: 4,
		inflight: new InFlight(),
		health: async () => "healthy-idle",
	});
	const list = await servedList(server.url);
	await server.close();
	p.done();

	const total = size(list);
	const full = size({
		tools: TOOLS.map((t) => ({
			name: t.name,
			title: t.title,
			description: t.description,
			inputSchema: jsonSchemas(t).input,
			outputSchema: jsonSchemas(t).output,
			annotations: t.annotations,
		})),
	});
	const descriptions = list.tools.reduce((n, t) => n + Buffer.byteLength(t.description), 0);
	const args = list.tools.flatMap(
		(t) => Object.values(t.inputSchema.properties ?? {}) as { description?: string }[],
	);
	const argDocs = args.reduce((n, a) => n + Buffer.byteLength(a.description ?? ""), 0);
	const perTool = list.tools.map((t) => [t.name, size(t)] as const).sort((a, b) => b[1] - a[1]);

	console.log(`MCP tools/list over Streamable HTTP, ${list.tools.length} tools, ${args.length} arguments:`);
	console.log(`  served                 ${fmt(total).padStart(7)} B  (~${fmt(total / 4)} tokens)`);
	console.log(
		`  budget (SPEC §10)      ${fmt(BUDGET).padStart(7)} B  (${fmt((100 * total) / BUDGET)}% used)`,
	);
	console.log(`  full schemas, for scale ${fmt(full).padStart(6)} B  (input + output in full)`);
	console.log(
		`  per tool: mean ${fmt(total / list.tools.length)} B, median ${fmt(perTool[Math.floor(perTool.length / 2)]?.[1] ?? 0)} B`,
	);
	console.log(`  text: descriptions ${fmt(descriptions)} B, argument docs ${fmt(argDocs)} B`);
	for (const [name, bytes] of perTool) console.log(`    ${name.padEnd(26)} ${fmt(bytes).padStart(6)} B`);
}
