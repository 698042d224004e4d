// A scripted agent for `roundtable sessions launch --agent … -- bun scripted-agent.ts <bridge argv…>`:
// it connects with the official SDK client to the session through the stdio bridge it is given
// (which finds the session's socket in ROUNDTABLE_SESSION_SOCKET), makes the calls in SCRIPT (a JSON
// list of [tool, args]) in order, prints each result as one JSON line, and exits 1 at the first error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2) as [string, ...string[]];
const client = new Client({ name: "scripted-agent", version: "1" });
await client.connect(new StdioClientTransport({ command, args, env: process.env as Record<string, string> }));
const steps = JSON.parse(process.env.SCRIPT ?? "[]") as [string, Record<string, unknown>][];
let code = 0;
for (const [name, input] of steps) {
	const r = await client.callTool({ name, arguments: input });
	const text = (r.content as { text: string }[])[0]?.text ?? "{}";
	console.log(JSON.stringify({ tool: name, isError: r.isError ?? false, result: JSON.parse(text) }));
	if (r.isError) {
		code = 1;
		break;
	}
}
await client.close();
process.exit(code);
