// The floor of the "memory" figure: a minimal MCP server as the official SDK's own examples build
// one, under Bun: Streamable HTTP (a transport and an McpServer per session, as a stateful server
// keeps them) with trivial tools that each answer a fixed row (given in argv as JSON: tool name →
// row). It prints its URL, then serves until SIGTERM.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const rows = JSON.parse(process.argv[2] as string) as Record<string, Record<string, unknown>>;
const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();

async function newSession(): Promise<WebStandardStreamableHTTPServerTransport> {
	const server = new McpServer({ name: "floor", version: "1.0.0" });
	for (const [name, row] of Object.entries(rows))
		server.registerTool(
			name,
			{ description: `Answers ${name}.`, inputSchema: { task_id: z.string().optional() } },
			async () => ({ content: [{ type: "text", text: JSON.stringify(row) }], structuredContent: row }),
		);
	const transport = new WebStandardStreamableHTTPServerTransport({
		sessionIdGenerator: () => crypto.randomUUID(),
		onsessioninitialized: (id) => {
			transports.set(id, transport);
		},
	});
	transport.onclose = () => {
		if (transport.sessionId) transports.delete(transport.sessionId);
	};
	await server.connect(transport);
	return transport;
}

const http = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	async fetch(req) {
		const sid = req.headers.get("mcp-session-id");
		const body = req.method === "POST" ? ((await req.json()) as unknown) : undefined;
		const known = sid ? transports.get(sid) : undefined;
		if (known) return known.handleRequest(req, { parsedBody: body });
		if (!sid && isInitializeRequest(body))
			return (await newSession()).handleRequest(req, { parsedBody: body });
		return Response.json(
			{ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request" }, id: null },
			{ status: 400 },
		);
	},
});
process.stdout.write(`ready http=http://127.0.0.1:${http.port}/mcp\n`);
process.on("SIGTERM", () => {
	void http.stop(true);
	process.exit(0);
});
