// A bare Streamable HTTP MCP client (fetch, no SDK): what a client receives byte for byte. The tool
// list's size test and its bench both measure through it.

/** The per-request `_meta` envelope of a 2026-07-28 request sent by hand. */
export const MODERN_META = {
	"io.modelcontextprotocol/protocolVersion": "2026-07-28",
	"io.modelcontextprotocol/clientCapabilities": {},
	"io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** The JSON-RPC result in a reply, whether it came as JSON or as an SSE stream. */
async function resultOf(res: Response): Promise<Record<string, unknown>> {
	const text = await res.text();
	const bodies = res.headers.get("content-type")?.includes("text/event-stream")
		? text
				.split("\n")
				.filter((l) => l.startsWith("data: "))
				.map((l) => l.slice(6))
				.filter((data) => data !== "") // a priming event carries no data
		: [text];
	const reply = bodies.map((b) => JSON.parse(b)).find((m) => "result" in m);
	if (!reply) throw new Error(`no result in: ${text}`);
	return reply.result;
}

/** initialize, initialized, then one tools/list: its result exactly as it came over the wire. */
export async function servedToolList(url: string): Promise<Record<string, unknown>> {
	const post = (body: object, headers: Record<string, string> = {}) =>
		fetch(url, { method: "POST", headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
	const init = await post({
		jsonrpc: "2.0",
		id: 1,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
	});
	const session = {
		"mcp-session-id": init.headers.get("mcp-session-id") ?? "",
		"mcp-protocol-version": "2025-11-25",
	};
	await resultOf(init);
	await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
	return resultOf(await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session));
}
