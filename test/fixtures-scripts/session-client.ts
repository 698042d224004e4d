// The scripted agents' MCP client: their session's socket (ROUNDTABLE_SESSION_SOCKET), one JSON-RPC
// message per line, initialized as `name`.
export interface SessionClient {
	request(method: string, params: object): Promise<Record<string, unknown>>;
	end(): void;
}

export async function sessionClient(name: string): Promise<SessionClient> {
	const replies = new Map<number, unknown>();
	let buffer = "";
	const waiters = new Map<number, () => void>();
	const socket = await Bun.connect({
		unix: process.env.ROUNDTABLE_SESSION_SOCKET as string,
		socket: {
			data(_s, chunk) {
				buffer += new TextDecoder().decode(chunk);
				for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
					const m = JSON.parse(buffer.slice(0, nl)) as { id?: number };
					buffer = buffer.slice(nl + 1);
					if (typeof m.id === "number") {
						replies.set(m.id, m);
						waiters.get(m.id)?.();
					}
				}
			},
		},
	});
	let id = 0;
	const request = (method: string, params: object) =>
		new Promise<Record<string, unknown>>((resolve) => {
			const mine = ++id;
			waiters.set(mine, () => resolve(replies.get(mine) as Record<string, unknown>));
			socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: mine, method, params })}\n`);
		});
	await request("initialize", {
		protocolVersion: "2025-11-25",
		capabilities: {},
		clientInfo: { name, version: "1" },
	});
	socket.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
	return { request, end: () => socket.end() };
}
