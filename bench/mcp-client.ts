// A minimal Streamable HTTP MCP client for benches: one session, each request a POST whose answer
// (JSON or an SSE stream) is read whole.
export interface McpSession {
	call(tool: string, args: object): Promise<void>;
	/** A call's structuredContent. */
	result(tool: string, args: object): Promise<unknown>;
	list(): Promise<void>;
}

export async function mcpSession(url: string, bearer?: string): Promise<McpSession> {
	const headers: Record<string, string> = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		...(bearer && { authorization: `Bearer ${bearer}` }),
	};
	const post = async (body: object) => {
		const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
		return { res, text: await res.text() };
	};
	const init = await post({
		jsonrpc: "2.0",
		id: 0,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
	});
	const sid = init.res.headers.get("mcp-session-id");
	if (!sid) throw new Error(`initialize failed: ${init.res.status} ${init.text.slice(0, 200)}`);
	headers["mcp-session-id"] = sid;
	headers["mcp-protocol-version"] = "2025-11-25";
	await post({ jsonrpc: "2.0", method: "notifications/initialized" });
	let id = 1;
	const request = async (method: string, params: object) => {
		const { text } = await post({ jsonrpc: "2.0", id: id++, method, params });
		if (!text.includes('"result"') || text.includes('"isError":true'))
			throw new Error(`${method} failed: ${text.slice(0, 200)}`);
		return text;
	};
	return {
		call: async (tool, args) => {
			await request("tools/call", { name: tool, arguments: args });
		},
		async result(tool, args) {
			const text = await request("tools/call", { name: tool, arguments: args });
			// A JSON answer, or an event stream whose last data line is the answer.
			const json = text.startsWith("{")
				? text
				: (text.split("\n").findLast((l) => l.startsWith("data: ")) ?? "").slice(6);
			return (JSON.parse(json) as { result: { structuredContent: unknown } }).result.structuredContent;
		},
		list: async () => {
			await request("tools/list", {});
		},
	};
}

/** A 2026-07-28 client: no session, each tools/call a POST of its own with the envelope and headers. */
export function modernCaller(url: string, bearer?: string): (tool: string, args: object) => Promise<void> {
	let id = 1;
	const meta = {
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": {},
		"io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
	};
	return async (tool, args) => {
		const res = await fetch(url, {
			method: "POST",
			headers: {
				"content-type": "application/json",
				accept: "application/json, text/event-stream",
				...(bearer && { authorization: `Bearer ${bearer}` }),
				"mcp-protocol-version": "2026-07-28",
				"mcp-method": "tools/call",
				"mcp-name": tool,
			},
			body: JSON.stringify({
				jsonrpc: "2.0",
				id: id++,
				method: "tools/call",
				params: { name: tool, arguments: args, _meta: meta },
			}),
		});
		const text = await res.text();
		if (!text.includes('"result"') || text.includes('"isError":true'))
			throw new Error(`call failed: ${text.slice(0, 200)}`);
	};
}
