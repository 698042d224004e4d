// What every agent session pays up front: the MCP tools/list result, as served over Streamable HTTP,
// in bytes in all and per tool, against the 32 KiB budget (SPEC §10) and against the registry's
// full schemas (what the list held before it was made lean: input and output schemas in full).
import { jsonSchemas, TOOLS } from "../src/registry/index.ts";
import { publishedTools } from "../src/registry/mcp.ts";
import { ROLES } from "../src/registry/types.ts";
import { loopbackHttp } from "../test/_helpers/loopback-http.ts";
import { servedToolList } from "../test/_helpers/raw-mcp.ts";
import { type Figure, fmt, freshProject } from "./lib.ts";

const BUDGET = 32 * 1024;
/** Issue 37's goals: each role's list, and the operator's. */
const ROLE_GOAL = 24 * 1024;
const OPERATOR_GOAL = 32 * 1024;

type Listed = { name: string; description: string; inputSchema: { properties?: Record<string, object> } };

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

export async function run(): Promise<Figure[]> {
	const p = await freshProject();
	const server = loopbackHttp(p.rt, { maxSessions: 4 });
	const list = (await servedToolList(server.url)) as { tools: Listed[] };
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
	// What each role's capability is served: its own tools, without actor arguments.
	const byRole = ROLES.map((role) => [role, size({ tools: publishedTools(role) })] as const);
	console.log("  per role (a capability's list):");
	for (const [role, bytes] of byRole) console.log(`    ${role.padEnd(14)} ${fmt(bytes).padStart(7)} B`);
	const largest = Math.max(...byRole.map(([, b]) => b));
	return [
		{ name: "tool list, largest role", ratio: largest / ROLE_GOAL, goal: { op: "≤", value: 1 } },
		{ name: "tool list, operator", ratio: total / OPERATOR_GOAL, goal: { op: "≤", value: 1 } },
	];
}
