// task.get over the legacy socket and over Streamable HTTP (one client, and 8 at once; in a
// 2025-11-25 session and as 2026-07-28 stateless requests), each next to a bare Bun.listen /
// Bun.serve echo in the same run; and cold starts of the compiled binary.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callSocket } from "../src/transports/socket-client.ts";
import { fmt, initOnAnyPort, percentile, readLine, startOwner } from "./lib.ts";
import { modernCaller } from "./mcp-client.ts";

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src/main.ts");
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);

interface Figures {
	perSecond: number;
	p50: number;
	p99: number;
}

async function measure(clients: number, once: () => Promise<unknown>): Promise<Figures> {
	for (let i = 0; i < 50; i++) await once(); // warm-up
	const times: number[] = [];
	const perClient = Math.ceil(CALLS / clients);
	const start = performance.now();
	await Promise.all(
		Array.from({ length: clients }, async () => {
			for (let i = 0; i < perClient; i++) {
				const t = performance.now();
				await once();
				times.push(performance.now() - t);
			}
		}),
	);
	const seconds = (performance.now() - start) / 1000;
	times.sort((a, b) => a - b);
	return { perSecond: times.length / seconds, p50: percentile(times, 50), p99: percentile(times, 99) };
}

const line = (label: string, f: Figures, floor?: Figures) =>
	`  ${label.padEnd(48)} ${fmt(f.perSecond).padStart(7)} /s   p50 ${fmt(f.p50, 2)} ms   p99 ${fmt(f.p99, 2)} ms${
		floor ? `   (${fmt(f.perSecond / floor.perSecond, 2)} of echo)` : ""
	}`;

/** A minimal Streamable HTTP client: one session, tools/call answered on an SSE stream. */
async function mcpSession(url: string, bearer: string) {
	const headers: Record<string, string> = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		authorization: `Bearer ${bearer}`,
	};
	const post = async (body: object) => {
		const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
		const text = await res.text();
		return { res, text };
	};
	const init = await post({
		jsonrpc: "2.0",
		id: 0,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
	});
	headers["mcp-session-id"] = init.res.headers.get("mcp-session-id") as string;
	headers["mcp-protocol-version"] = "2025-11-25";
	await post({ jsonrpc: "2.0", method: "notifications/initialized" });
	let id = 1;
	return async (tool: string, args: object) => {
		const { text } = await post({
			jsonrpc: "2.0",
			id: id++,
			method: "tools/call",
			params: { name: tool, arguments: args },
		});
		if (!text.includes('"result"') || text.includes('"isError":true'))
			throw new Error(`call failed: ${text.slice(0, 200)}`);
	};
}

async function coldStarts(project: string): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "rt-bench-bin-"));
	const binary = join(dir, "roundtable");
	const build = Bun.spawnSync(
		[process.execPath, "build", "--compile", "--minify", MAIN, "--outfile", binary],
		{ stdout: "ignore" },
	);
	if (build.exitCode !== 0) throw new Error("bun build --compile failed");
	const runs = 20;
	const version: number[] = [];
	for (let i = 0; i < runs; i++) {
		const t = performance.now();
		Bun.spawnSync([binary, "--version"], { stdout: "ignore" });
		version.push(performance.now() - t);
	}
	const firstList: number[] = [];
	const request = [
		{
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } },
		},
		{ jsonrpc: "2.0", method: "notifications/initialized" },
		{ jsonrpc: "2.0", id: 2, method: "tools/list" },
	];
	for (let i = 0; i < runs; i++) {
		const t = performance.now();
		const proc = Bun.spawn([binary, "mcp", "stdio", "--root", project], {
			stdin: "pipe",
			stdout: "pipe",
			stderr: "ignore",
		});
		proc.stdin.write(`${JSON.stringify(request[0])}\n`);
		await readLine(proc.stdout); // initialize answered
		proc.stdin.write(`${JSON.stringify(request[1])}\n${JSON.stringify(request[2])}\n`);
		const reader = proc.stdout.getReader();
		let text = "";
		while (!text.includes('"id":2')) {
			const { value, done } = await reader.read();
			if (done) break;
			text += new TextDecoder().decode(value);
		}
		firstList.push(performance.now() - t);
		proc.stdin.end();
		await proc.exited;
	}
	version.sort((a, b) => a - b);
	firstList.sort((a, b) => a - b);
	console.log(`compiled binary cold start (median of ${runs}):`);
	console.log(`  --version                          ${fmt(percentile(version, 50), 1)} ms`);
	console.log(`  mcp stdio: spawn → tools/list      ${fmt(percentile(firstList, 50), 1)} ms`);
	rmSync(dir, { recursive: true, force: true });
}

export async function run(): Promise<void> {
	const project = mkdtempSync(join(tmpdir(), "rt-bench-tr-"));
	const cli = (args: string[]) => Bun.spawnSync([process.execPath, MAIN, ...args, "--root", project]);
	initOnAnyPort(project);
	const owner = await startOwner(project);
	const { url, socket } = owner;
	const echoSocket = join(project, "echo.sock");
	const echo = Bun.spawn([process.execPath, join(import.meta.dir, "echo-server.ts"), echoSocket], {
		stdout: "pipe",
	});
	const echoPort = Number(await readLine(echo.stdout));
	try {
		const created = JSON.parse(
			new TextDecoder().decode(
				cli(["mcp", "call", "--tool", "task.create", "--args", '{"title":"bench","body_md":"b"}']).stdout,
			),
		) as { task: { id: string } };
		const args = { task_id: created.task.id };
		// The operator's token (the project's file) and an implementer's capability (the check on every call).
		const operator = readFileSync(join(project, ".roundtable/operator.token"), "utf8").trim();
		const capability = new TextDecoder()
			.decode(cli(["sessions", "mint", "--agent", "implementer-1"]).stdout)
			.trim();

		console.log(`task.get, ${fmt(CALLS)} calls (owner and echo servers in their own processes):`);
		const socketEcho = (clients: number) => measure(clients, () => callSocket(echoSocket, "x", {}));
		const socketCall = (clients: number) =>
			measure(clients, async () => {
				const reply = await callSocket(socket, "task.get", args);
				if (!reply.ok) throw new Error(reply.error);
			});
		for (const clients of [1, 8]) {
			const floor = await socketEcho(clients);
			console.log(line(`socket echo, ${clients} client${clients > 1 ? "s" : ""}`, floor));
			console.log(
				line(`socket task.get, ${clients} client${clients > 1 ? "s" : ""}`, await socketCall(clients), floor),
			);
		}
		for (const clients of [1, 8]) {
			let id = 0;
			const floor = await measure(clients, () =>
				fetch(`http://127.0.0.1:${echoPort}/`, {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify({
						jsonrpc: "2.0",
						id: id++,
						method: "tools/call",
						params: { name: "task.get", arguments: args },
					}),
				}).then((r) => r.json()),
			);
			console.log(line(`HTTP echo, ${clients} client${clients > 1 ? "s" : ""}`, floor));
			for (const [who, bearer] of [
				["operator", operator],
				["capability", capability],
			] as const) {
				const sessions = await Promise.all(Array.from({ length: clients }, () => mcpSession(url, bearer)));
				let next = 0;
				const figures = await measure(clients, () =>
					(sessions[next++ % clients] as (t: string, a: object) => Promise<void>)("task.get", args),
				);
				const label = `HTTP MCP task.get, ${clients} session${clients > 1 ? "s" : ""}, ${who}`;
				console.log(line(label, figures, floor));
				// The same call in the 2026-07-28 era: no session, a server made for each request.
				const modern = modernCaller(url, bearer);
				const stateless = await measure(clients, () => modern("task.get", args));
				console.log(
					line(
						`HTTP MCP 2026-07-28 task.get, ${clients} client${clients > 1 ? "s" : ""}, ${who}`,
						stateless,
						floor,
					),
				);
			}
		}
		console.log();
		await coldStarts(project);
	} finally {
		echo.kill("SIGTERM");
		await Promise.all([owner.stop(), echo.exited]);
		rmSync(project, { recursive: true, force: true });
	}
}
