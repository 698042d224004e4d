// A generic agent a test drives from outside, run by `roundtable sessions launch -- bun
// driven-agent.ts BRIDGE…`: it speaks MCP through the stdio bridge (BRIDGE, as real clients run
// `roundtable mcp stdio`), then takes one JSON order per stdin line and answers one JSON line on
// stdout: `{"call": tool, "args": {…}}` (the tool's result, or its error), `{"write": path, "text":
// …}` and `{"read": path}` in its working folder. It says `{"ready": true}` first and exits at the
// end of stdin.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2) as [string, ...string[]];
const client = new Client({ name: "driven-agent", version: "1" });
await client.connect(
	new StdioClientTransport({ command, args, env: process.env as Record<string, string>, stderr: "inherit" }),
);
const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
say({ ready: true });

type Order = { call?: string; args?: Record<string, unknown>; write?: string; text?: string; read?: string };
let buffer = "";
for await (const chunk of Bun.stdin.stream()) {
	buffer += new TextDecoder().decode(chunk);
	for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
		const order = JSON.parse(buffer.slice(0, nl)) as Order;
		buffer = buffer.slice(nl + 1);
		try {
			if (order.call) {
				const r = await client.callTool({ name: order.call, arguments: order.args ?? {} });
				const text = (r.content as { text: string }[])[0]?.text ?? "null";
				say(r.isError ? JSON.parse(text) : { result: JSON.parse(text) });
			} else if (order.write !== undefined) {
				writeFileSync(order.write, order.text ?? "");
				say({ result: "written" });
			} else if (order.read !== undefined) say({ result: readFileSync(order.read, "utf8") });
		} catch (err) {
			say({ error: { message: (err as Error).message } });
		}
	}
}
await client.close();
