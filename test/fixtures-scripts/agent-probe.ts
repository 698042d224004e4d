// A launched agent that probes its boundary, run by `roundtable sessions launch -- bun agent-probe.ts`:
// the attempts named in PROBE (JSON: reads, writes, lists, unix sockets, TCP and proxied connections),
// then MCP over its session's socket (initialize, tools/list, and the calls in ARGS_CALLS). Prints one
// JSON line: each attempt's outcome ("ok", "ok: <what it read>" or "refused: <why>"), the tools, the
// call results and the names of every variable in its environment.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { sessionClient } from "./session-client.ts";

interface Probe {
	reads?: string[];
	writes?: string[];
	lists?: string[];
	unix?: string[];
	tcp?: [string, number][];
	/** host:port to reach through the sandbox's proxy (HTTPS_PROXY), sending a line and reading one back. */
	proxied?: string[];
}

const probe: Probe = JSON.parse(process.env.PROBE ?? "{}");
const tries: Record<string, string> = {};
const attempt = async (name: string, fn: () => unknown | Promise<unknown>) => {
	try {
		const got = await fn();
		tries[name] = typeof got === "string" ? `ok: ${got.slice(0, 200)}` : "ok";
	} catch (err) {
		tries[name] = `refused: ${(err as Error).message.split("\n")[0]}`;
	}
};
const withTimeout = <T>(p: Promise<T>, ms = 3000) =>
	Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timed out")), ms))]);

/** Opens a connection and resolves once it is open (or fails), then closes it. */
const connect = (options: { unix: string } | { hostname: string; port: number }) =>
	withTimeout(
		new Promise<void>((resolve, reject) => {
			Bun.connect({
				...options,
				socket: {
					open(s) {
						s.end();
						resolve();
					},
					data() {},
					connectError(_s, err) {
						reject(err);
					},
					error(_s, err) {
						reject(err);
					},
				},
			} as Parameters<typeof Bun.connect>[0]).catch(reject);
		}),
	);

/** CONNECT through the proxy named by HTTPS_PROXY; then "ping\n" and the first reply line. */
async function proxied(target: string): Promise<string> {
	const proxy = new URL(process.env.HTTPS_PROXY ?? "http://127.0.0.1:1");
	let text = "";
	return withTimeout(
		new Promise<string>((resolve, reject) => {
			let tunnel = false;
			Bun.connect({
				hostname: proxy.hostname,
				port: Number(proxy.port),
				socket: {
					open(s) {
						s.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`);
					},
					data(s, chunk) {
						text += new TextDecoder().decode(chunk);
						if (!tunnel) {
							const end = text.indexOf("\r\n\r\n");
							if (end === -1) return;
							const status = text.slice(0, text.indexOf("\r\n"));
							text = text.slice(end + 4);
							if (!status.includes(" 200 ")) {
								s.end();
								reject(new Error(status));
								return;
							}
							tunnel = true;
							s.write("ping\n");
						}
						if (text.includes("\n")) {
							s.end();
							resolve(text.split("\n")[0] as string);
						}
					},
					connectError(_s, err) {
						reject(err);
					},
				},
			}).catch(reject);
		}),
	);
}

for (const path of probe.reads ?? []) await attempt(`read ${path}`, () => readFileSync(path, "utf8"));
for (const path of probe.writes ?? [])
	await attempt(`write ${path}`, () => writeFileSync(path, "probe was here"));
for (const path of probe.lists ?? []) await attempt(`list ${path}`, () => readdirSync(path).sort().join(","));
for (const path of probe.unix ?? []) await attempt(`unix ${path}`, () => connect({ unix: path }));
for (const [host, port] of probe.tcp ?? [])
	await attempt(`tcp ${host}:${port}`, () => connect({ hostname: host, port }));
for (const target of probe.proxied ?? []) await attempt(`proxied ${target}`, () => proxied(target));

// MCP over the session's socket, one message per line.
const { request, end } = await sessionClient("probe");
const list = (await request("tools/list", {})) as { result: { tools: { name: string }[] } };
const calls: [string, object][] = JSON.parse(process.env.ARGS_CALLS ?? "[]");
const results: unknown[] = [];
for (const [name, args] of calls) {
	const r = (await request("tools/call", { name, arguments: args })) as {
		result: { content: { text: string }[] };
	};
	results.push(JSON.parse(r.result.content[0]?.text ?? "null"));
}
end();
console.log(
	JSON.stringify({
		tries,
		tools: list.result.tools.map((t) => t.name),
		results,
		env: Object.keys(process.env).sort(),
		cwd: process.cwd(),
		home: (() => {
			try {
				return readdirSync(process.env.HOME ?? "/nonexistent")
					.sort()
					.join(",");
			} catch (err) {
				return `refused: ${(err as Error).message}`;
			}
		})(),
	}),
);
