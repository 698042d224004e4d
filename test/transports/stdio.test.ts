// `roundtable mcp stdio`: the bridge MCP clients launch. Everything here runs for real: an owner
// process (`roundtable start`) on a port the OS picked, the bridge as a subprocess, and either the
// SDK's own stdio client or raw bytes written to the bridge's stdin and read back from its stdout.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { parseDocument } from "yaml";
import { readOperatorToken } from "../../src/config/operator-token.ts";
import { LAYOUT } from "../../src/layout.ts";
import { VERSION } from "../../src/version.ts";
import { MAIN, REPO, tempDir, until } from "../_helpers/helpers.ts";

const CONFIG = ".roundtable/config.yaml";
const OWNER_FILE = ".roundtable/owner.json";
const OWNER_LOG = ".roundtable/logs/owner.log";
const TOOL_COUNT = 61;
const SOURCE = [process.execPath, MAIN];

type Id = string | number | null;
interface Message {
	jsonrpc: string;
	id?: Id;
	method?: string;
	params?: Record<string, unknown>;
	result?: Record<string, unknown>;
	error?: { code: number; message: string; data?: unknown };
}

/** Resolves with the exit code, or with "timeout" when the process is still running after `ms`. */
function exitWithin(proc: Subprocess, ms: number): Promise<number | "timeout"> {
	return Promise.race([proc.exited, Bun.sleep(ms).then(() => "timeout" as const)]);
}

/** Everything a stream carries, as text, collected in the background. */
class Collected {
	text = "";
	readonly done: Promise<void>;
	constructor(stream: ReadableStream<Uint8Array>) {
		const decoder = new TextDecoder();
		this.done = (async () => {
			for await (const chunk of stream) this.text += decoder.decode(chunk, { stream: true });
			this.text += decoder.decode();
		})();
	}
}

interface Run {
	code: number;
	stdout: string;
	stderr: string;
	ms: number;
}

/**
 * Runs a command to its end, stdin left open (a pipe nobody writes to) as a client would leave it.
 * A command still running after 25 s (a loaded machine is slow, a hang is endless) is killed (exit
 * 137), inside the test's own 30 s.
 */
async function run(cmd: string[], env: Record<string, string | undefined> = process.env): Promise<Run> {
	const started = Date.now();
	const proc = Bun.spawn(cmd, { cwd: REPO, stdin: "pipe", stdout: "pipe", stderr: "pipe", env });
	spawned.push(proc);
	const limit = setTimeout(() => proc.kill("SIGKILL"), 25_000);
	void proc.exited.then(() => clearTimeout(limit));
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited,
	]);
	return { code, stdout, stderr, ms: Date.now() - started };
}

// Every process a test starts; whatever still runs at the end is stopped.
const spawned: Subprocess[] = [];
const owners: Owner[] = [];
const autostarted: string[] = [];
afterAll(async () => {
	for (const root of autostarted) {
		try {
			const { pid } = JSON.parse(readFileSync(join(root, OWNER_FILE), "utf8")) as { pid: number };
			process.kill(pid, "SIGTERM");
			await until(() => !existsSync(join(root, OWNER_FILE)), 10_000, "the autostarted owner to stop");
		} catch {
			// already gone
		}
	}
	for (const proc of spawned) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
	for (const owner of owners) await owner.stop();
}, 30_000);

/** Sets mcp.http_address in the project's config.yaml (the rest of the file stays as init wrote it). */
function setHttpAddress(root: string, address: string): void {
	const path = join(root, CONFIG);
	const doc = parseDocument(readFileSync(path, "utf8"));
	expect(doc.getIn(["mcp", "http_address"])).toBe("127.0.0.1:7117");
	doc.setIn(["mcp", "http_address"], address);
	writeFileSync(path, doc.toString());
}

/** An initialized project whose owner would listen on `address` (by default a port the OS picks). */
async function makeProject(
	options: { address?: string; cli?: string[]; initArgs?: string[] } = {},
): Promise<string> {
	const root = realpathSync(tempDir("rt-stdio-"));
	const init = await run([...(options.cli ?? SOURCE), "init", "--root", root, ...(options.initArgs ?? [])]);
	expect(init.stderr).toBe("");
	expect(init.code).toBe(0);
	setHttpAddress(root, options.address ?? "127.0.0.1:0");
	return root;
}

/** A port nothing listens on (it was free a moment ago). */
function freePort(): number {
	const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
	const port = listener.port;
	listener.stop(true);
	return port;
}

interface Owner {
	root: string;
	url: string;
	proc: Subprocess<"ignore", "pipe", "pipe">;
	stderr: Collected;
	/** SIGTERM, then the exit code. */
	stop(): Promise<number>;
}

/** Runs `roundtable start` for the project and waits for its ready line. */
async function startOwner(root: string, cli = SOURCE): Promise<Owner> {
	const proc = Bun.spawn([...cli, "start", "--root", root], {
		cwd: REPO,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const stdout = new Collected(proc.stdout);
	const stderr = new Collected(proc.stderr);
	const owner: Owner = {
		root,
		url: "",
		proc,
		stderr,
		async stop() {
			if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
			return proc.exited;
		},
	};
	owners.push(owner);
	const line = await until(
		() => stdout.text.split("\n").find((l) => l.startsWith("roundtable ready:")) || proc.exitCode !== null,
		20_000,
		"the owner's ready line",
	);
	if (typeof line !== "string") throw new Error(`the owner exited early: ${stderr.text}`);
	const url = /\bhttp=(\S+)/.exec(line)?.[1];
	if (!url?.startsWith("http://127.0.0.1:")) throw new Error(`no http URL in the ready line: ${line}`);
	owner.url = url;
	return owner;
}

/** The bridge as a subprocess, spoken to in raw bytes. */
class Bridge {
	readonly proc: Subprocess<"pipe", "pipe", "pipe">;
	readonly stdout: Collected;
	readonly stderr: Collected;

	constructor(args: string[], env: Record<string, string | undefined> = process.env) {
		this.proc = Bun.spawn([...SOURCE, "mcp", "stdio", ...args], {
			cwd: REPO,
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
			env,
		});
		spawned.push(this.proc);
		this.stdout = new Collected(this.proc.stdout);
		this.stderr = new Collected(this.proc.stderr);
	}

	/** Every complete stdout line, each parsed: a line that is not one JSON-RPC object fails the test. */
	frames(): Message[] {
		const text = this.stdout.text;
		const end = text.lastIndexOf("\n");
		if (end === -1) return [];
		return text
			.slice(0, end)
			.split("\n")
			.map((line) => {
				let value: unknown;
				try {
					value = JSON.parse(line);
				} catch {
					throw new Error(`stdout carried a line that is not JSON: ${line.slice(0, 200)}`);
				}
				if (typeof value !== "object" || value === null || Array.isArray(value))
					throw new Error(`stdout carried a line that is not a message object: ${line.slice(0, 200)}`);
				if ((value as Message).jsonrpc !== "2.0") throw new Error(`not JSON-RPC 2.0: ${line.slice(0, 200)}`);
				return value as Message;
			});
	}

	async write(data: string | Uint8Array): Promise<void> {
		this.proc.stdin.write(data);
		await this.proc.stdin.flush();
	}

	send(message: Record<string, unknown>): Promise<void> {
		return this.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
	}

	/** The response to request `id` (a result or an error). */
	response(id: string | number, ms = 15_000): Promise<Message> {
		return until(
			() => this.frames().find((f) => f.id === id && (f.result !== undefined || f.error !== undefined)),
			ms,
			`the response to request ${JSON.stringify(id)} (stderr: ${this.stderr.text})`,
		);
	}

	async request(id: string | number, method: string, params: Record<string, unknown> = {}) {
		await this.send({ id, method, params });
		return this.response(id);
	}

	async initialize(): Promise<void> {
		const answer = await this.request("init", "initialize", {
			protocolVersion: "2025-11-25",
			capabilities: {},
			clientInfo: { name: "stdio-test", version: "1.0.0" },
		});
		expect(answer.error).toBeUndefined();
		expect(answer.result?.protocolVersion).toBe("2025-11-25");
		expect(answer.result?.serverInfo).toMatchObject({ name: "roundtable" });
		await this.send({ method: "notifications/initialized" });
	}

	callTool(id: string | number, name: string, args: Record<string, unknown> = {}) {
		return this.request(id, "tools/call", { name, arguments: args });
	}

	/** Closes stdin and waits for the exit code. */
	close(): Promise<number> {
		this.proc.stdin.end();
		return this.proc.exited;
	}
}

/** The SDK's own client over stdio, plus the child process behind it (to see how it ends). */
async function sdkClient(command: string, args: string[], cwd = REPO) {
	const transport = new StdioClientTransport({ command, args, cwd, stderr: "pipe" });
	let stderr = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const client = new Client({ name: "stdio-test", version: "1.0.0" });
	await client.connect(transport);
	const child = (transport as unknown as { _process: ChildProcess })._process;
	const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
		child.once("exit", (code, signal) => resolve({ code, signal }));
	});
	return { client, transport, exit, stderr: () => stderr };
}

/** The structuredContent of a successful tools/call answer; anything else fails the test. */
function structured(answer: Message): Record<string, unknown> {
	const content = answer.result?.structuredContent;
	if (answer.error || answer.result?.isError || typeof content !== "object" || content === null)
		throw new Error(`not a successful tool result: ${JSON.stringify(answer).slice(0, 500)}`);
	return content as Record<string, unknown>;
}

type ToolResult = {
	isError?: boolean;
	content: { type: string; text?: string }[];
	structuredContent?: Record<string, unknown>;
};

let shared: Owner;
beforeAll(async () => {
	shared = await startOwner(await makeProject());
}, 30_000);

describe("the SDK client over `mcp stdio` (from source)", () => {
	let sdk: Awaited<ReturnType<typeof sdkClient>>;
	beforeAll(async () => {
		sdk = await sdkClient(process.execPath, [MAIN, "mcp", "stdio", "--root", shared.root]);
	}, 20_000);

	test("tools/list: every tool of the registry, the same as the generated schema file", async () => {
		const { tools } = await sdk.client.listTools();
		expect(tools).toHaveLength(TOOL_COUNT);
		const schemaFile = JSON.parse(
			readFileSync(join(shared.root, ".roundtable/mcp/tools.schema.json"), "utf8"),
		) as { tools: { name: string }[] };
		expect(tools.map((t) => t.name)).toEqual(schemaFile.tools.map((t) => t.name));
		const watch = tools.find((t) => t.name === "table.watch");
		expect(watch?.inputSchema.type).toBe("object");
		expect(watch?.outputSchema).toBeUndefined(); // kept out of the list's byte budget
	});

	test("the server names itself", () => {
		expect(sdk.client.getServerVersion()).toMatchObject({ name: "roundtable", version: VERSION });
	});

	test("tools/call success: text content and structuredContent with the same result", async () => {
		const result = (await sdk.client.callTool({ name: "table.get_state", arguments: {} })) as ToolResult;
		expect(result.isError).toBeFalsy();
		const content = result.structuredContent as Record<string, unknown>;
		expect(typeof content.last_event_id).toBe("number");
		expect(Array.isArray(content.agents)).toBe(true);
		expect(result.content[0]?.type).toBe("text");
		expect(JSON.parse(result.content[0]?.text ?? "")).toEqual(content);
	});

	test("a mutation through the bridge is seen by the next call", async () => {
		const created = (await sdk.client.callTool({
			name: "task.create",
			arguments: { title: "through stdio", body_md: "made by the stdio test" },
		})) as ToolResult;
		expect(created.isError).toBeFalsy();
		const task = created.structuredContent?.task as { id: string; title: string };
		expect(task.title).toBe("through stdio");
		const got = (await sdk.client.callTool({
			name: "task.get",
			arguments: { task_id: task.id },
		})) as ToolResult;
		expect(got.structuredContent?.task).toEqual(task);
	});

	test('a tool error is an isError result with {"error":{…}} text and no structuredContent', async () => {
		const result = (await sdk.client.callTool({
			name: "task.get",
			arguments: { task_id: "T-does-not-exist" },
		})) as ToolResult;
		expect(result.isError).toBe(true);
		expect(result.structuredContent).toBeUndefined();
		const body = JSON.parse(result.content[0]?.text ?? "") as { error: { code: string; message: string } };
		expect(body.error.code).toBe("not_found");
		expect(body.error.message).toContain("T-does-not-exist");
	});

	test("invalid arguments are an isError result too", async () => {
		const result = (await sdk.client.callTool({ name: "task.get", arguments: {} })) as ToolResult;
		expect(result.isError).toBe(true);
		const body = JSON.parse(result.content[0]?.text ?? "") as { error: { code: string } };
		expect(body.error.code).toBe("invalid_argument");
	});

	test("an unknown tool is McpError -32602, its message not doubled", async () => {
		let caught: unknown;
		try {
			await sdk.client.callTool({ name: "task.gett", arguments: {} });
		} catch (err) {
			caught = err;
		}
		expect(caught).toBeInstanceOf(McpError);
		const err = caught as McpError;
		expect(err.code).toBe(-32602);
		expect(err.message).toContain("task.gett");
		expect(err.message).not.toMatch(/MCP error.*MCP error/);
	});

	test("nothing but frames reached the client: no stderr noise from a healthy session", () => {
		expect(sdk.stderr()).toBe("");
	});

	test("closing the client ends the bridge on its own, exit 0, promptly", async () => {
		const started = Date.now();
		await sdk.client.close();
		const { code, signal } = await sdk.exit;
		// The SDK waits 2 s before it sends SIGTERM: a bridge that exits by itself has no signal.
		expect(signal).toBeNull();
		expect(code).toBe(0);
		expect(Date.now() - started).toBeLessThan(2000);
	});
});

describe("the compiled binary", () => {
	let binary: string;
	let root: string;
	let owner: Owner;
	beforeAll(async () => {
		binary = join(realpathSync(tempDir("rt-bin-")), "roundtable");
		const build = Bun.spawn(
			[process.execPath, "build", "--compile", join(REPO, "src/main.ts"), "--outfile", binary],
			{ cwd: REPO, stdout: "pipe", stderr: "pipe" },
		);
		const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
		if (code !== 0) throw new Error(`bun build --compile failed: ${stderr}`);
		// The binary does it all itself: init (with the client entry), the owner, the bridge.
		root = await makeProject({ cli: [binary], initArgs: ["--client", "claude"] });
		owner = await startOwner(root, [binary]);
	}, 120_000);

	test("--version", async () => {
		const r = await run([binary, "--version"]);
		expect(r).toMatchObject({ code: 0, stdout: `roundtable ${VERSION}\n`, stderr: "" });
	});

	test("init --client writes the binary's absolute path as the command", () => {
		const mcp = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8"));
		expect(mcp.mcpServers.roundtable).toEqual({
			type: "stdio",
			command: binary,
			args: ["mcp", "stdio", "--root", root],
		});
	});

	test("tools/list and tools/call through the entry init wrote, run from the project", async () => {
		const entry = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")).mcpServers.roundtable as {
			command: string;
			args: string[];
		};
		const sdk = await sdkClient(entry.command, entry.args, root);
		try {
			const { tools } = await sdk.client.listTools();
			expect(tools).toHaveLength(TOOL_COUNT);
			const result = (await sdk.client.callTool({ name: "table.get_state", arguments: {} })) as ToolResult;
			expect(result.isError).toBeFalsy();
			expect(typeof result.structuredContent?.last_event_id).toBe("number");
			const failed = (await sdk.client.callTool({
				name: "task.get",
				arguments: { task_id: "T-missing" },
			})) as ToolResult;
			expect(failed.isError).toBe(true);
		} finally {
			await sdk.client.close();
		}
		expect(await sdk.exit).toEqual({ code: 0, signal: null });
		expect(owner.proc.exitCode).toBeNull();
	}, 20_000);
});

describe("framing, raw", () => {
	test("bad lines get their JSON-RPC error and the next call is still answered", async () => {
		const b = new Bridge(["--root", shared.root]);
		await b.initialize();

		const huge = Buffer.alloc(17 * 1024 * 1024, "a");
		const head = '{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"';
		huge.write(head, 0);
		huge.write('"}}', huge.length - 3);
		const invalidUtf8 = Buffer.concat([
			Buffer.from('{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"'),
			Buffer.from([0xff, 0xfe]),
			Buffer.from('"}}'),
		]);

		const cases: { what: string; line: Uint8Array | string; code: number; id: Id }[] = [
			{ what: "not JSON", line: "not json", code: -32700, id: null },
			{ what: "invalid UTF-8", line: invalidUtf8, code: -32700, id: null },
			{ what: "a 17 MiB line", line: huge, code: -32700, id: null },
			{ what: "a batch", line: "[1,2]", code: -32600, id: null },
			{ what: "no method, not a response", line: '{"jsonrpc":"2.0","id":5}', code: -32600, id: 5 },
			{ what: "no jsonrpc", line: '{"id":"six","method":"ping"}', code: -32600, id: "six" },
		];
		let callId = 100;
		for (const c of cases) {
			const before = b.frames().length;
			await b.write(c.line);
			await b.write("\n");
			const id = callId++;
			const answer = await b.callTool(id, "table.get_state");
			expect(answer.error).toBeUndefined();
			expect(answer.result?.isError).toBeUndefined();
			expect(typeof structured(answer).last_event_id).toBe("number");
			const others = b
				.frames()
				.slice(before)
				.filter((f) => f.id !== id);
			expect({ what: c.what, frames: others }).toEqual({
				what: c.what,
				frames: [{ jsonrpc: "2.0", id: c.id, error: { code: c.code, message: expect.any(String) } }],
			});
			if (c.line === huge) {
				// The bridge drained the line instead of keeping it.
				const status = readFileSync(`/proc/${b.proc.pid}/status`, "utf8");
				const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]);
				expect(rssKb).toBeGreaterThan(0);
				expect(rssKb).toBeLessThan(200 * 1024);
			}
		}
		// A ping the oversized line carried was never answered: nothing was forwarded from it.
		expect(b.frames().some((f) => f.id === 9 || f.id === 8)).toBe(false);
		// Blank lines are skipped, not answered.
		const before = b.frames().length;
		await b.write("\n   \n\t\r\n");
		expect((await b.request("after-blank", "ping")).result).toEqual({});
		expect(b.frames().slice(before)).toHaveLength(1);

		expect(await b.close()).toBe(0);
		await b.stdout.done;
		// Every stdout line was one frame; no empty lines, nothing after the last newline.
		expect(b.stdout.text.endsWith("\n")).toBe(true);
		expect(
			b.stdout.text
				.split("\n")
				.slice(0, -1)
				.every((l) => l.length > 0),
		).toBe(true);
		expect(b.frames().length).toBeGreaterThanOrEqual(1 + cases.length * 2 + 1);
	}, 60_000);

	test("a 512 MiB line is drained with bounded memory and the session goes on", async () => {
		const b = new Bridge(["--root", shared.root]);
		await b.initialize();
		const mib = Buffer.alloc(1024 * 1024, "b");
		await b.write('{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"');
		for (let i = 0; i < 512; i++) await b.write(mib);
		await b.write('"}}\n');
		const error = await until(
			() => b.frames().find((f) => f.error?.code === -32700),
			30_000,
			"the parse error for the 512 MiB line",
		);
		expect(error.id).toBeNull();
		const status = readFileSync(`/proc/${b.proc.pid}/status`, "utf8");
		// VmHWM is the peak: the line was never held whole (the bridge idles at about 45 MB, and up to
		// 16 MiB of a line is kept before it counts as oversized).
		const peakKb = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1]);
		expect(peakKb).toBeGreaterThan(0);
		expect(peakKb).toBeLessThan(256 * 1024);
		expect((await b.request("after-big", "ping")).result).toEqual({});
		expect(b.frames().some((f) => f.id === "big")).toBe(false);
		expect(await b.close()).toBe(0);
	}, 60_000);

	test("stdin EOF ends the bridge promptly with exit 0", async () => {
		const b = new Bridge(["--root", shared.root]);
		await b.initialize();
		const started = Date.now();
		b.proc.stdin.end();
		expect(await exitWithin(b.proc, 2000)).toBe(0);
		expect(Date.now() - started).toBeLessThan(2000);
		await b.stdout.done;
		expect(b.frames().map((f) => f.id)).toEqual(["init"]);
		expect(b.stderr.text).toBe("");
	}, 20_000);

	test("stdin EOF ends the bridge promptly even with a long call in flight", async () => {
		const b = new Bridge(["--root", shared.root]);
		await b.initialize();
		await b.send({
			id: "long",
			method: "tools/call",
			params: { name: "table.watch", arguments: { after_event_id: 1_000_000_000, wait_ms: 20_000 } },
		});
		await Bun.sleep(300);
		const started = Date.now();
		b.proc.stdin.end();
		expect(await exitWithin(b.proc, 2000)).toBe(0);
		expect(Date.now() - started).toBeLessThan(2000);
	}, 20_000);
});

describe("no owner", () => {
	test("exits 1 at once with one stderr line naming the address and `roundtable start`", async () => {
		const port = freePort();
		const root = await makeProject({ address: `127.0.0.1:${port}` });
		const r = await run([...SOURCE, "mcp", "stdio", "--root", root]);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		const lines = r.stderr.trimEnd().split("\n");
		expect(lines).toHaveLength(1);
		expect(lines[0]).toContain("no Roundtable owner at");
		expect(lines[0]).toContain(`http://127.0.0.1:${port}/mcp`);
		expect(lines[0]).toContain("roundtable start");
		expect(r.ms).toBeLessThan(2000);
	}, 20_000);

	test("a stale owner.json (its process is gone) is ignored, even when its URL answers", async () => {
		const port = freePort();
		const root = await makeProject({ address: `127.0.0.1:${port}` });
		const gone = Bun.spawn([process.execPath, "-e", ""]);
		await gone.exited;
		// The URL is a live owner's (another project's): a bridge that trusted the file would serve.
		writeFileSync(
			join(root, OWNER_FILE),
			JSON.stringify({
				pid: gone.pid,
				http_url: shared.url,
				socket_path: join(root, ".roundtable/mcp/roundtable.sock"),
				started_at: new Date().toISOString(),
				version: VERSION,
			}),
		);
		const r = await run([...SOURCE, "mcp", "stdio", "--root", root]);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		const lines = r.stderr.trimEnd().split("\n");
		expect(lines).toHaveLength(1);
		expect(lines[0]).toContain(`no Roundtable owner at http://127.0.0.1:${port}/mcp`);
		expect(lines[0]).toContain("roundtable start");
		expect(r.ms).toBeLessThan(2000);
	}, 20_000);

	test("--autostart starts an owner in the background, then serves", async () => {
		const root = await makeProject();
		autostarted.push(root);
		expect(existsSync(join(root, OWNER_FILE))).toBe(false);
		const b = new Bridge(["--root", root, "--autostart"]);
		await b.initialize();
		const list = await b.request("list", "tools/list");
		expect(list.result?.tools).toHaveLength(TOOL_COUNT);

		const info = JSON.parse(readFileSync(join(root, OWNER_FILE), "utf8")) as {
			pid: number;
			http_url: string;
		};
		expect(info.pid).not.toBe(b.proc.pid);
		expect(info.http_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
		// The owner's output went to its log, not to the client's stdout.
		expect(readFileSync(join(root, OWNER_LOG), "utf8")).toContain("roundtable ready:");

		expect(await b.close()).toBe(0);
		// The owner holds none of the client's pipes: they close when the bridge exits.
		expect(await Promise.race([b.stdout.done.then(() => "closed"), Bun.sleep(2000).then(() => "open")])).toBe(
			"closed",
		);
		expect(await Promise.race([b.stderr.done.then(() => "closed"), Bun.sleep(2000).then(() => "open")])).toBe(
			"closed",
		);
		b.frames(); // every line a frame

		// It runs on in the background after the bridge is gone, until it is told to stop.
		expect(() => process.kill(info.pid, 0)).not.toThrow();
		process.kill(info.pid, "SIGTERM");
		await until(() => !existsSync(join(root, OWNER_FILE)), 10_000, "the autostarted owner to stop");
	}, 40_000);

	test("--url reaches an owner the project's own files do not name, with that owner's token", async () => {
		const root = await makeProject({ address: `127.0.0.1:${freePort()}` });
		// This project's own token is not that owner's: refused, and the message names where it came from.
		const refused = await run([...SOURCE, "mcp", "stdio", "--root", root, "--url", shared.url]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(`refused the token (${LAYOUT.operatorToken})`);
		const b = new Bridge(["--root", root, "--url", shared.url], {
			...process.env,
			ROUNDTABLE_MCP_TOKEN: readOperatorToken(shared.root),
		});
		await b.initialize();
		const list = await b.request("list", "tools/list");
		expect(list.result?.tools).toHaveLength(TOOL_COUNT);
		expect(await b.close()).toBe(0);
	}, 20_000);
});

describe("--url and --root validation", () => {
	const TOKEN = "s3cret-token-for-stdio-test";

	test.each([
		["a scheme other than http(s)", "ftp://x"],
		["credentials in the URL", "http://user:pw@127.0.0.1:1/mcp"],
		["a query", "http://127.0.0.1:1/mcp?x=1"],
		["not a URL", "not a url"],
	])("%s is a usage error (exit 2)", async (_what, url) => {
		const root = await makeProject();
		const r = await run([...SOURCE, "mcp", "stdio", "--root", root, "--url", url]);
		expect(r.code).toBe(2);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain("--url");
		// A URL may carry a password: it is never echoed.
		expect(r.stderr).not.toContain("pw@");
	});

	test("a token is never sent over plain http to a non-loopback host (exit 1), nor printed", async () => {
		const root = await makeProject();
		const r = await run([...SOURCE, "mcp", "stdio", "--root", root, "--url", "http://example.com/mcp"], {
			...process.env,
			ROUNDTABLE_MCP_TOKEN: TOKEN,
		});
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain("https");
		expect(r.stderr).not.toContain(TOKEN);
	});

	test("a token over plain http to loopback is allowed (then: no owner there, exit 1), not printed", async () => {
		const root = await makeProject();
		const port = freePort();
		const r = await run(
			[...SOURCE, "mcp", "stdio", "--root", root, "--url", `http://127.0.0.1:${port}/mcp`],
			{
				...process.env,
				ROUNDTABLE_MCP_TOKEN: TOKEN,
			},
		);
		expect(r.code).toBe(1);
		expect(r.stderr).toContain("no Roundtable owner at");
		expect(r.stderr).not.toContain(TOKEN);
		expect(r.stdout).toBe("");
	});

	test("a --root that does not exist is a usage error", async () => {
		const r = await run([...SOURCE, "mcp", "stdio", "--root", join(tempDir(), "missing")]);
		expect(r.code).toBe(2);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain("does not exist");
	});
});

describe("the owner goes away", () => {
	test("calls after the owner stopped get a -32603 answer naming it, not silence", async () => {
		const owner = await startOwner(await makeProject());
		const b = new Bridge(["--root", owner.root]);
		await b.initialize();
		expect(await owner.stop()).toBe(0);
		const answer = await b.request("after-stop", "ping");
		expect(answer.error?.code).toBe(-32603);
		expect(answer.error?.message).toContain(owner.url);
		const call = await b.callTool("call-after-stop", "table.get_state");
		expect(call.error?.code).toBe(-32603);
		expect(b.stderr.text).toContain("unreachable");
		expect(await b.close()).toBe(0);
	}, 30_000);
});

describe("progress and cancellation pass through", () => {
	test("requests do not wait for each other: a ping overtakes a waiting table.watch", async () => {
		const b = new Bridge(["--root", shared.root]);
		await b.initialize();
		const state = await b.callTool("state", "table.get_state");
		const newest = structured(state).last_event_id as number;
		await b.send({
			id: "slow",
			method: "tools/call",
			params: { name: "table.watch", arguments: { after_event_id: newest, wait_ms: 1500 } },
		});
		expect((await b.request("quick", "ping")).result).toEqual({});
		expect(b.frames().some((f) => f.id === "slow")).toBe(false);
		const slow = await b.response("slow");
		const result = structured(slow);
		expect(result.events).toEqual([]);
		expect(result.next_after_event_id).toBe(newest);
		const ids = b.frames().map((f) => f.id);
		expect(ids.indexOf("quick")).toBeLessThan(ids.indexOf("slow"));
		expect(await b.close()).toBe(0);
	}, 20_000);

	test("a cancelled table.watch gets no answer, the owner stops waiting, later calls are answered", async () => {
		// An owner of its own, so its shutdown tells whether the cancelled call was still running.
		const owner = await startOwner(await makeProject());
		const b = new Bridge(["--root", owner.root]);
		await b.initialize();
		const state = await b.callTool("state", "table.get_state");
		const newest = structured(state).last_event_id as number;

		await b.send({
			id: "watch",
			method: "tools/call",
			params: {
				name: "table.watch",
				arguments: { after_event_id: newest, wait_ms: 20_000 },
				_meta: { progressToken: "watch-progress" },
			},
		});
		await Bun.sleep(500); // the watch is waiting at the owner now
		await b.send({ method: "notifications/cancelled", params: { requestId: "watch", reason: "test" } });

		const started = Date.now();
		expect((await b.request("ping-after", "ping")).result).toEqual({});
		const later = await b.callTool("state-after", "table.get_state");
		expect(later.result?.isError).toBeUndefined();
		expect(Date.now() - started).toBeLessThan(3000);

		// The watch notices a cancellation within its 1 s poll; give it that long, and more.
		await Bun.sleep(1500);
		expect(b.frames().filter((f) => f.id === "watch")).toEqual([]);

		// Nothing is still in flight at the owner (a watch it was never told about would still be
		// waiting, and the drain would cut it off after 5 s): it stops at once.
		const stopping = Date.now();
		expect(await owner.stop()).toBe(0);
		expect(owner.stderr.text).not.toContain("cut off");
		expect(Date.now() - stopping).toBeLessThan(4000);
		expect(await b.close()).toBe(0);
		expect(b.frames().filter((f) => f.id === "watch")).toEqual([]);
	}, 40_000);
});

describe("a 2026-07-28 client over `mcp stdio`", () => {
	test("the SDK 2.x client pinned to the new era: discovers, lists and calls through the bridge, each message a request of its own", async () => {
		const { Client: ModernClient } = await import("@modelcontextprotocol/client");
		const { StdioClientTransport: ModernStdio } = await import("@modelcontextprotocol/client/stdio");
		const transport = new ModernStdio({
			command: process.execPath,
			args: [MAIN, "mcp", "stdio", "--root", shared.root],
			cwd: REPO,
			stderr: "pipe",
		});
		const client = new ModernClient(
			{ name: "stdio-modern", version: "1" },
			{ versionNegotiation: { mode: { pin: "2026-07-28" } } },
		);
		await client.connect(transport);
		try {
			expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
			const { tools } = await client.listTools();
			expect(tools).toHaveLength(TOOL_COUNT);
			const posted = await client.callTool({
				name: "message.post",
				arguments: { channel: "general", body_md: "over stdio, new era" },
			});
			expect(posted.structuredContent).toMatchObject({ message: { body_md: "over stdio, new era" } });
			const refused = await client.callTool({ name: "task.creat", arguments: {} }).then(
				() => "answered",
				(err: { code?: number }) => err.code,
			);
			expect(refused).toBe(-32602);
			// A URI no header may carry as is goes in its Base64 sentinel: the owner decodes it, finds
			// it agrees with the body, and answers the read itself (no such resource), not −32020.
			const unsafe = await client.readResource({ uri: "roundtable://requests/☃ x" }).then(
				() => "answered",
				(err: { code?: number; message?: string }) => `${err.code} ${err.message}`,
			);
			expect(unsafe).toMatch(/^-32602 .*no such resource/);
		} finally {
			await client.close();
		}
	}, 30_000);
});

describe("pushed events through `mcp stdio`", () => {
	test("a 2025-11-25 client subscribed to its inbox hears of a question addressed to it, through the bridge's event stream", async () => {
		const sdk = await sdkClient(process.execPath, [MAIN, "mcp", "stdio", "--root", shared.root]);
		const heard: string[] = [];
		sdk.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
			heard.push(n.params.uri);
		});
		try {
			await sdk.client.subscribeResource({ uri: "roundtable://inbox" });
			const asked = await sdk.client.callTool({
				name: "peer.ask",
				arguments: {
					agent_id: "implementer-1",
					assignee_agent_id: "operator",
					question_md: "are you there?",
				},
			});
			expect(asked.isError).toBeFalsy();
			await until(() => heard.length > 0, 10_000, "the inbox update");
			expect(heard).toEqual(["roundtable://inbox"]);
		} finally {
			await sdk.client.close();
		}
	}, 30_000);
});
