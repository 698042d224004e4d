// test.run through every real transport: MCP progress notifications carry the elapsed time and the
// latest output line (throttled), and MCP notifications/cancelled, the end of an MCP session (HTTP
// DELETE, the server closing, a stdio client's EOF) or a legacy-socket client's disconnect kill the
// whole process group within a second and record the run `cancelled`. Real servers on 127.0.0.1
// port 0 and in temp dirs, the official SDK client, the real `mcp stdio` bridge as a subprocess, and
// a real shell script that leaves a grandchild behind in its process group.

import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { callerOf } from "../../src/dispatch.ts";
import type { HttpServer } from "../../src/transports/http.ts";
import { InFlight } from "../../src/transports/inflight.ts";
import { type SocketServer, startSocket } from "../../src/transports/socket.ts";
import type { TestRunRecord } from "../../src/vocabulary/records.ts";
import { allEvents, MAIN, type Project, REPO, tempDir, until } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";
import {
	running as alive,
	result as getResult,
	project as testProject,
} from "../_helpers/test-run-helpers.ts";

// The test command: prints `line N` every INTERVAL seconds, COUNT times, after starting a background
// grandchild (`sleep 60`) in its own process group and writing that grandchild's pid to child.pid.
const SCRIPT = "slow-test.sh";
const SCRIPT_BODY = `
sleep 60 &
echo $! > child.pid
interval=\${1:-0.2}
count=\${2:-150}
i=0
while [ "$i" -lt "$count" ]; do
  i=$((i + 1))
  echo "line $i"
  sleep "$interval"
done
`;
/** A run that outlives every test unless it is cancelled (150 lines, 200 ms apart: 30 s). */
const SLOW = `./${SCRIPT} 0.2 150`;
const RUN_TIMEOUT_S = 60;
/** The requirement: the group is dead within a second of the cancellation. */
const KILL_WITHIN_MS = 1000;

// ---------------------------------------------------------------------------------------------
// Processes

/** State and process group from /proc/<pid>/stat (the fields after the parenthesized name). */
function procStat(pid: number): { state: string; pgrp: number } | undefined {
	try {
		const text = readFileSync(`/proc/${pid}/stat`, "utf8");
		const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
		return { state: fields[0] as string, pgrp: Number(fields[2]) };
	} catch {
		return undefined;
	}
}

/** Every live (not zombie) process in a process group. */
function liveMembers(pgrp: number): number[] {
	const live: number[] = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		const stat = procStat(Number(name));
		if (stat && stat.pgrp === pgrp && stat.state !== "Z") live.push(Number(name));
	}
	return live;
}

// Every grandchild and group a test saw: whatever still lives at the end is killed.
const seenPids = new Set<number>();
const seenGroups = new Set<number>();
afterAll(() => {
	for (const pgrp of seenGroups) {
		try {
			process.kill(-pgrp, "SIGKILL");
		} catch {
			// already gone
		}
	}
	for (const pid of seenPids) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// already gone
		}
	}
});

// ---------------------------------------------------------------------------------------------
// The project and its runs

/**
 * A project whose tests.allowed_commands is the script, with the script in its root. Unsandboxed:
 * these tests find and kill the script's processes by the pids it writes, which bwrap's own pid
 * namespace would renumber (test-run-sandbox.test.ts checks the tree dies in bwrap).
 */
const project = () =>
	testProject({ allow: [`./${SCRIPT}`], timeout: 120, scripts: { [SCRIPT]: SCRIPT_BODY }, sandbox: "off" });

interface Running {
	/** The background `sleep 60` the script started. */
	grandchild: number;
	/** The script's process group (the script leads it). */
	group: number;
	testRunId: string;
}

/** Waits until the script runs (its grandchild is up) and the run is recorded as started. */
async function running(p: Project): Promise<Running> {
	const pidFile = join(p.root, "child.pid");
	const grandchild = await until(
		() => {
			if (!existsSync(pidFile)) return undefined;
			const pid = Number(readFileSync(pidFile, "utf8").trim());
			return pid > 0 ? pid : undefined;
		},
		10_000,
		"the script to write child.pid",
	);
	seenPids.add(grandchild);
	const stat = procStat(grandchild);
	if (!stat) throw new Error(`the grandchild ${grandchild} is not running`);
	seenGroups.add(stat.pgrp);
	// The grandchild shares the script's group, which is not ours: the script leads a group of its own.
	expect(stat.pgrp).not.toBe(procStat(process.pid)?.pgrp);
	expect(liveMembers(stat.pgrp).length).toBeGreaterThanOrEqual(2);
	const started = (await allEvents(p)).find((e) => e.type === "test.started");
	if (!started) throw new Error("no test.started event");
	return { grandchild, group: stat.pgrp, testRunId: started.payload.test_run_id as string };
}

/**
 * After a cancellation at `cancelledAt`: the grandchild and every other member of the group are
 * dead within a second, and the run is then recorded `cancelled`, with the output it produced.
 */
async function expectKilledAndCancelled(p: Project, r: Running, cancelledAt: number): Promise<void> {
	await until(() => !alive(r.grandchild), 5000, `the grandchild ${r.grandchild} to die`);
	const killedMs = performance.now() - cancelledAt;
	await until(() => liveMembers(r.group).length === 0, 5000, `process group ${r.group} to be empty`);
	expect(killedMs).toBeLessThan(KILL_WITHIN_MS);
	const result = await until(
		async () => {
			const got = await getResult(p, { test_run_id: r.testRunId });
			return got.test_run.status === "running" ? undefined : got;
		},
		5000,
		`test run ${r.testRunId} to finish`,
	);
	expect(result.test_run.status).toBe("cancelled");
	expect(result.test_run.command).toBe(SLOW);
	expect(result.test_run.signal).toBe("SIGKILL");
	expect(result.test_run.exit_code).toBeNull();
	expect(result.test_run.summary_md).toContain("(cancelled)");
	expect(result.log).toContain("line 1\n");
	const finished = (await allEvents(p)).filter((e) => e.type === "test.finished");
	expect(finished.map((e) => [e.payload.test_run_id, e.payload.status])).toEqual([
		[r.testRunId, "cancelled"],
	]);
}

// ---------------------------------------------------------------------------------------------
// HTTP

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
	for (const clean of cleanups.splice(0).reverse()) await clean().catch(() => {});
});

function serveHttp(p: Project, inflight = new InFlight()): HttpServer {
	const server = loopbackHttp(p.rt, { inflight });
	cleanups.push(() => server.close());
	return server;
}

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
	const client = new Client({ name: "test-run-mcp", version: "1.0.0" });
	const transport = new StreamableHTTPClientTransport(new URL(url));
	await client.connect(transport);
	cleanups.push(() => client.close());
	await client.listTools();
	return { client, transport };
}

const PROGRESS_MESSAGE = /^(\d+)s: line (\d+)$/;

describe("over Streamable HTTP with the SDK client", () => {
	test("progress notifications carry the elapsed seconds and the latest output line, throttled", async () => {
		const p = await project();
		const { client } = await connect(serveHttp(p).url);
		const seen: Progress[] = [];
		// 250 lines as fast as the script can print them (about 2–3 s).
		const result = (await client.callTool(
			{ name: "test.run", arguments: { command: `./${SCRIPT} 0.01 250`, timeout_seconds: RUN_TIMEOUT_S } },
			undefined,
			{ onprogress: (progress) => seen.push(progress), timeout: 60_000 },
		)) as { isError?: boolean; structuredContent?: { test_run: TestRunRecord & { duration_ms: number } } };
		expect(result.isError).toBeFalsy();
		const run = result.structuredContent?.test_run;
		expect(run?.status).toBe("passed");
		const seconds = (run?.duration_ms ?? 0) / 1000;
		expect(seconds).toBeGreaterThan(1);

		expect(seen.length).toBeGreaterThanOrEqual(1);
		let previousLine = 0;
		for (const progress of seen) {
			const m = PROGRESS_MESSAGE.exec(progress.message ?? "");
			if (!m) throw new Error(`a progress message without elapsed time and output line: ${progress.message}`);
			// The elapsed seconds are both the progress value and the message's prefix; the total is the
			// timeout; the line is one the script printed, never an older one than before.
			expect(Number(m[1])).toBe(progress.progress);
			expect(progress.total).toBe(RUN_TIMEOUT_S);
			const line = Number(m[2]);
			expect(line).toBeGreaterThanOrEqual(1);
			expect(line).toBeLessThanOrEqual(250);
			expect(line).toBeGreaterThanOrEqual(previousLine);
			previousLine = line;
		}
		// Throttled: 250 output lines gave a handful of notifications (about one a second), not one a line.
		expect(seen.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
		expect(seen.length).toBeLessThan(10);
		// The elapsed time in them grows strictly with each one, as MCP requires of progress values.
		const values = seen.map((s) => s.progress);
		for (let i = 1; i < values.length; i++)
			expect(values[i] as number).toBeGreaterThan(values[i - 1] as number);
		expect(values.at(-1) as number).toBeGreaterThanOrEqual(1);
	}, 30_000);

	test("a slow test reports progress every second even between output lines", async () => {
		const p = await project();
		const { client } = await connect(serveHttp(p).url);
		const seen: Progress[] = [];
		// One line, then 2.5 s of silence: the heartbeat still reports, with that line.
		const result = (await client.callTool(
			{ name: "test.run", arguments: { command: `./${SCRIPT} 2.5 1`, timeout_seconds: RUN_TIMEOUT_S } },
			undefined,
			{ onprogress: (progress) => seen.push(progress), timeout: 60_000 },
		)) as { structuredContent?: { test_run: TestRunRecord } };
		expect(result.structuredContent?.test_run.status).toBe("passed");
		expect(seen.length).toBeGreaterThanOrEqual(2);
		for (const progress of seen) expect(progress.message).toMatch(/^\d+s: line 1$/);
	}, 30_000);

	test("notifications/cancelled (the SDK's abort signal) kills the process group and records cancelled", async () => {
		const p = await project();
		const { client } = await connect(serveHttp(p).url);
		const abort = new AbortController();
		const seen: Progress[] = [];
		const call = client.callTool(
			{ name: "test.run", arguments: { command: SLOW, timeout_seconds: RUN_TIMEOUT_S } },
			undefined,
			{ signal: abort.signal, onprogress: (progress) => seen.push(progress), timeout: 60_000 },
		);
		const outcome = call.then(
			() => "answered",
			(err: Error) => err,
		);
		const r = await running(p);
		await until(() => seen.length >= 1, 5000, "a progress notification");
		const cancelledAt = performance.now();
		abort.abort("the test cancels it");
		await expectKilledAndCancelled(p, r, cancelledAt);
		expect(await outcome).not.toBe("answered");
		// The session goes on.
		expect(await client.ping()).toEqual({});
	}, 30_000);

	test("ending the session with DELETE kills the process group and records cancelled", async () => {
		const p = await project();
		const server = serveHttp(p);
		const { client, transport } = await connect(server.url);
		const call = client.callTool(
			{ name: "test.run", arguments: { command: SLOW, timeout_seconds: RUN_TIMEOUT_S } },
			undefined,
			{ timeout: 60_000 },
		);
		void call.catch(() => {});
		const r = await running(p);
		const sessionId = transport.sessionId;
		expect(sessionId).toBeString();
		const cancelledAt = performance.now();
		await transport.terminateSession();
		await expectKilledAndCancelled(p, r, cancelledAt);
		// The session is gone: its id is now unknown.
		const after = await fetch(server.url, {
			method: "POST",
			headers: {
				"content-type": "application/json",
				accept: "application/json, text/event-stream",
				"mcp-session-id": sessionId as string,
			},
			body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
		});
		expect(after.status).toBe(404);
		await after.body?.cancel();
	}, 30_000);

	test("the server closing its sessions (the owner stopping) kills the process group and records cancelled", async () => {
		const p = await project();
		const inflight = new InFlight();
		const server = serveHttp(p, inflight);
		const { client } = await connect(server.url);
		void client
			.callTool(
				{ name: "test.run", arguments: { command: SLOW, timeout_seconds: RUN_TIMEOUT_S } },
				undefined,
				{
					timeout: 60_000,
				},
			)
			.catch(() => {});
		const r = await running(p);
		expect(inflight.size).toBe(1);
		const cancelledAt = performance.now();
		server.stopAccepting();
		await server.close();
		await expectKilledAndCancelled(p, r, cancelledAt);
		expect(await inflight.drain(2000)).toBe(true);
	}, 30_000);
});

// ---------------------------------------------------------------------------------------------
// The legacy Unix socket

const sockets: SocketServer[] = [];
afterAll(() => {
	for (const s of sockets) s.close();
});

async function serveSocket(p: Project, inflight: InFlight): Promise<string> {
	const path = join(tempDir("rtr-"), "s.sock");
	sockets.push(
		await startSocket(callerOf(p.rt), {
			path,
			privateDir: false,
			maxFrameBytes: 1024 * 1024,
			readDeadlineMs: 5000,
			writeDeadlineMs: 5000,
			maxConnections: 16,
			inflight,
		}),
	);
	return path;
}

const requestLine = (command: string) =>
	`${JSON.stringify({ tool: "test.run", args: { command, timeout_seconds: RUN_TIMEOUT_S } })}\n`;

describe("over the legacy Unix socket", () => {
	test("a client process that dies mid-run cancels it: the group is killed, the run recorded cancelled", async () => {
		const p = await project();
		const inflight = new InFlight();
		const path = await serveSocket(p, inflight);
		// A real client in its own process, which sends the request and then waits for the answer.
		const client = Bun.spawn(
			[
				process.execPath,
				"-e",
				`const s = await Bun.connect({ unix: ${JSON.stringify(path)}, socket: { data() {} } });
				 s.write(${JSON.stringify(requestLine(SLOW))});
				 await Bun.sleep(60_000);`,
			],
			{ stdin: "ignore", stdout: "ignore", stderr: "pipe" },
		);
		cleanups.push(async () => client.kill("SIGKILL"));
		const r = await running(p);
		expect(inflight.size).toBe(1);
		await Bun.sleep(300); // some output
		const cancelledAt = performance.now();
		client.kill("SIGKILL");
		await expectKilledAndCancelled(p, r, cancelledAt);
		expect(await inflight.drain(2000)).toBe(true);
	}, 30_000);

	test("a client that closes its connection mid-run cancels it", async () => {
		const p = await project();
		const inflight = new InFlight();
		const path = await serveSocket(p, inflight);
		let received = "";
		const sock = await Bun.connect({
			unix: path,
			socket: {
				data(_s, chunk) {
					received += Buffer.from(chunk).toString();
				},
			},
		});
		sock.write(requestLine(SLOW));
		const r = await running(p);
		const cancelledAt = performance.now();
		sock.end();
		await expectKilledAndCancelled(p, r, cancelledAt);
		expect(received).toBe("");
		expect(await inflight.drain(2000)).toBe(true);
	}, 30_000);

	test("a client that half-closes after its request still gets the answer (not a cancellation)", async () => {
		const p = await project();
		const path = await serveSocket(p, new InFlight());
		let received = "";
		let closed!: () => void;
		const done = new Promise<void>((resolve) => {
			closed = resolve;
		});
		const sock = await Bun.connect({
			unix: path,
			allowHalfOpen: true,
			socket: {
				data(_s, chunk) {
					received += Buffer.from(chunk).toString();
				},
				end(s) {
					s.end();
				},
				close: () => closed(),
			},
		});
		sock.write(requestLine(`./${SCRIPT} 0.2 5`));
		sock.shutdown();
		const r = await running(p);
		await Promise.race([done, Bun.sleep(10_000)]);
		const reply = JSON.parse(received) as { ok: boolean; result: { test_run: TestRunRecord } };
		expect(reply.ok).toBe(true);
		expect(reply.result.test_run.id).toBe(r.testRunId);
		expect(reply.result.test_run.status).toBe("passed");
		// The leader exited, so the group it left behind (the grandchild) was killed too.
		await until(() => !alive(r.grandchild), 2000, "the grandchild to die");
	}, 30_000);
});

// ---------------------------------------------------------------------------------------------
// The stdio bridge (`roundtable mcp stdio`), a subprocess relaying to the HTTP server

interface Frame {
	jsonrpc: string;
	id?: string | number | null;
	method?: string;
	params?: Record<string, unknown>;
	result?: Record<string, unknown>;
	error?: { code: number; message: string };
}

class Bridge {
	readonly proc: Subprocess<"pipe", "pipe", "pipe">;
	stdout = "";
	stderr = "";

	constructor(root: string, url: string) {
		// The HTTP server here takes no token: the bridge must send none.
		const { ROUNDTABLE_MCP_TOKEN: _, ...env } = process.env;
		this.proc = Bun.spawn([process.execPath, MAIN, "mcp", "stdio", "--root", root, "--url", url], {
			cwd: REPO,
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
			env,
		});
		const proc = this.proc;
		cleanups.push(async () => {
			if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
		});
		void this.collect(this.proc.stdout, (t) => {
			this.stdout += t;
		});
		void this.collect(this.proc.stderr, (t) => {
			this.stderr += t;
		});
	}

	private async collect(stream: ReadableStream<Uint8Array>, add: (text: string) => void) {
		const decoder = new TextDecoder();
		for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
	}

	frames(): Frame[] {
		const end = this.stdout.lastIndexOf("\n");
		if (end === -1) return [];
		return this.stdout
			.slice(0, end)
			.split("\n")
			.map((line) => JSON.parse(line) as Frame);
	}

	async send(message: Record<string, unknown>): Promise<void> {
		this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
		await this.proc.stdin.flush();
	}

	async initialize(): Promise<void> {
		await this.send({
			id: "init",
			method: "initialize",
			params: {
				protocolVersion: "2025-11-25",
				capabilities: {},
				clientInfo: { name: "stdio", version: "1" },
			},
		});
		const answer = await until(
			() => this.frames().find((f) => f.id === "init"),
			15_000,
			`the initialize answer (stderr: ${this.stderr})`,
		);
		expect(answer.result?.protocolVersion).toBe("2025-11-25");
		await this.send({ method: "notifications/initialized" });
	}

	progress(token: string): Frame[] {
		return this.frames().filter(
			(f) => f.method === "notifications/progress" && f.params?.progressToken === token,
		);
	}
}

describe("through the stdio bridge", () => {
	test("progress comes back; notifications/cancelled kills the process group and records cancelled", async () => {
		const p = await project();
		const inflight = new InFlight();
		const b = new Bridge(p.root, serveHttp(p, inflight).url);
		await b.initialize();
		await b.send({
			id: "run",
			method: "tools/call",
			params: {
				name: "test.run",
				arguments: { command: SLOW, timeout_seconds: RUN_TIMEOUT_S },
				_meta: { progressToken: "run-progress" },
			},
		});
		const r = await running(p);
		const first = await until(() => b.progress("run-progress")[0], 5000, "a progress notification");
		expect(first.params?.message).toMatch(PROGRESS_MESSAGE);
		expect(first.params?.total).toBe(RUN_TIMEOUT_S);
		const cancelledAt = performance.now();
		await b.send({ method: "notifications/cancelled", params: { requestId: "run", reason: "test" } });
		await expectKilledAndCancelled(p, r, cancelledAt);
		expect(await inflight.drain(2000)).toBe(true);
		// No answer to a cancelled request; the session goes on.
		await b.send({ id: "ping", method: "ping" });
		await until(() => b.frames().find((f) => f.id === "ping"), 5000, "the ping answer");
		expect(b.frames().filter((f) => f.id === "run")).toEqual([]);
		b.proc.stdin.end();
		expect(await b.proc.exited).toBe(0);
	}, 40_000);

	/** The client leaves mid-run (`leave`): the session ends, the group dies, the bridge exits `code`. */
	async function leaveMidRun(leave: (b: Bridge) => void, code: number) {
		const p = await project();
		const inflight = new InFlight();
		const b = new Bridge(p.root, serveHttp(p, inflight).url);
		await b.initialize();
		await b.send({
			id: "run",
			method: "tools/call",
			params: { name: "test.run", arguments: { command: SLOW, timeout_seconds: RUN_TIMEOUT_S } },
		});
		const r = await running(p);
		expect(inflight.size).toBe(1);
		const cancelledAt = performance.now();
		leave(b);
		await expectKilledAndCancelled(p, r, cancelledAt);
		expect(await b.proc.exited).toBe(code);
		expect(await inflight.drain(2000)).toBe(true);
	}

	test("stdin EOF (the client went away) ends the session, which kills the process group", async () => {
		await leaveMidRun((b) => b.proc.stdin.end(), 0);
	}, 40_000);

	test("a bridge stopped by SIGTERM ends the session too, and exits 143", async () => {
		await leaveMidRun((b) => b.proc.kill("SIGTERM"), 143);
	}, 40_000);
});
