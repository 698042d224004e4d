// The 2026-07-28 floor of the "HTTP" figure: a minimal server on the official SDK's 2.x line, as
// its own examples build one under Bun: `createMcpHandler` making an McpServer per request, with
// trivial tools that each answer a fixed row (given in argv as JSON: tool name → row). It prints
// its URL, then serves until SIGTERM.
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const rows = JSON.parse(process.argv[2] as string) as Record<string, Record<string, unknown>>;

const handler = createMcpHandler(() => {
	const server = new McpServer({ name: "floor", version: "1.0.0" });
	for (const [name, row] of Object.entries(rows))
		server.registerTool(
			name,
			{ description: `Answers ${name}.`, inputSchema: z.object({ task_id: z.string().optional() }) },
			async () => ({ content: [{ type: "text", text: JSON.stringify(row) }], structuredContent: row }),
		);
	return server;
});

const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handler.fetch(req) });
process.stdout.write(`ready http=http://127.0.0.1:${http.port}/mcp\n`);
process.on("SIGTERM", () => {
	void http.stop(true);
	process.exit(0);
});
