// A launched agent that probes its boundary, run by `roundtable sessions launch -- bun agent-probe.ts
// <root> <http url> <legacy socket>`: what it can read, write and reach, then MCP over its session's
// socket (initialize, tools/list, and the calls given as JSON in ARGS_CALLS). Prints one JSON line.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [root, url, legacy] = process.argv.slice(2) as [string, string, string];
const tries: Record<string, string> = {};
const attempt = async (name: string, fn: () => unknown | Promise<unknown>) => {
	try {
		await fn();
		tries[name] = "ok";
	} catch (err) {
		tries[name] = `refused: ${(err as Error).message.split("\n")[0]}`;
	}
};
await attempt("read database", () => readFileSync(join(root, ".roundtable/roundtable.db")));
await attempt("read operator token", () => readFileSync(join(root, ".roundtable/operator.token")));
await attempt("write project", () => writeFileSync(join(root, "probe-was-here.txt"), "x"));
await attempt("read project", () => readFileSync(join(root, "README.md")));
await attempt("legacy socket", async () => {
	const s = await Bun.connect({ unix: legacy, socket: { data() {} } });
	s.end();
});
let httpStatus = 0;
await attempt("http without capability", async () => {
	const res = await fetch(url, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "p", version: "1" } },
		}),
	});
	httpStatus = res.status;
	await res.text();
});

// MCP over the session's socket, one message per line.
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
	new Promise<unknown>((resolve) => {
		const mine = ++id;
		waiters.set(mine, () => resolve(replies.get(mine)));
		socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: mine, method, params })}\n`);
	});
await request("initialize", {
	protocolVersion: "2025-11-25",
	capabilities: {},
	clientInfo: { name: "probe", version: "1" },
});
socket.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
const list = (await request("tools/list", {})) as { result: { tools: { name: string }[] } };
const calls: [string, object][] = JSON.parse(process.env.ARGS_CALLS ?? "[]");
const results: unknown[] = [];
for (const [name, args] of calls) {
	const r = (await request("tools/call", { name, arguments: args })) as {
		result: { content: { text: string }[] };
	};
	results.push(JSON.parse(r.result.content[0]?.text ?? "null"));
}
socket.end();
const env = Object.keys(process.env)
	.filter((k) => k.startsWith("ROUNDTABLE_"))
	.sort();
console.log(JSON.stringify({ tries, httpStatus, tools: list.result.tools.map((t) => t.name), results, env }));
