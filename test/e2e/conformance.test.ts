// The official MCP conformance suites against the real owner, one for each era it serves:
// @modelcontextprotocol/conformance 0.1.16 for 2025-11-25 and 0.2.0-alpha.12 (installed as
// mcp-conformance-next, both pinned) for 2026-07-28. The owner is the tests' own entry
// (test/_helpers/conformance-owner.ts: the owner as `roundtable start` runs it, with the suites'
// fixture tools, resources and prompts), in a subprocess on a port the OS picks. Each suite's CLI
// runs once, every server scenario of its spec, pending ones included; each scenario is then judged
// from its checks.json: no failure, no warning. A plain `roundtable start` serves no fixture, even
// with the variable that once asked for them set.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	Client as ModernClient,
	StreamableHTTPClientTransport as ModernHttp,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
	CreateMessageRequestSchema,
	ElicitRequestSchema,
	EmptyResultSchema,
	ListPromptsResultSchema,
	LoggingMessageNotificationSchema,
	ReadResourceResultSchema,
	ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { initProject } from "../../src/init/index.ts";
import { MAIN, REPO, readyLine, runProcess, tempDir, until } from "../_helpers/helpers.ts";
import { MODERN_META } from "../_helpers/raw-mcp.ts";

interface Suite {
	spec: string;
	cli: string;
	scenarios: string[];
}

/** A suite and its own list, so a scenario it has is a scenario we run (the CLI needs Bun: it crashes on Node 20). */
function suite(pkg: string, spec: string): Suite {
	const cli = join(REPO, "node_modules", pkg, "dist", "index.js");
	const listed = Bun.spawnSync([process.execPath, cli, "list", "--server", "--spec-version", spec], {
		cwd: REPO,
	});
	const scenarios = [...listed.stdout.toString().matchAll(/^ {2}- (\S+)/gm)].map((m) => m[1] as string);
	return { spec, cli, scenarios };
}

const SUITES = [
	suite("@modelcontextprotocol/conformance", "2025-11-25"),
	suite("mcp-conformance-next", "2026-07-28"),
];

interface Owner {
	proc: Subprocess<"ignore", "pipe", "pipe">;
	root: string;
	port: number;
	stderr: Promise<string>;
}

/** An owner: the tests' conformance entry (the fixtures served), or `roundtable start` itself. */
async function startOwner(withFixtures: boolean): Promise<Owner> {
	const root = tempDir("rt-conformance-");
	mkdirSync(join(root, ".roundtable"), { recursive: true });
	// The suite speaks to the endpoint without credentials: loopback_auth none makes that the
	// operator (the credential checks have tests of their own).
	writeFileSync(
		join(root, ".roundtable", "config.yaml"),
		"mcp:\n  http_address: 127.0.0.1:0\n  loopback_auth: none\n",
	);
	await initProject(root);
	const argv = withFixtures
		? [process.execPath, join(REPO, "test/_helpers/conformance-owner.ts"), root]
		: [process.execPath, MAIN, "start", "--root", root];
	const proc = Bun.spawn(argv, {
		cwd: REPO,
		// The variable that once made the product load the fixtures now does nothing.
		env: { ...process.env, ROUNDTABLE_CONFORMANCE_FIXTURES: "1" },
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const stderr = new Response(proc.stderr).text();
	const { ready: line } = await readyLine(proc, 15_000, () => stderr);
	const url = /\bhttp=(http:\/\/127\.0\.0\.1:(\d+)\/mcp)\b/.exec(line);
	if (!url) throw new Error(`unexpected ready line: ${line}`);
	const published = JSON.parse(await Bun.file(join(root, ".roundtable", "owner.json")).text());
	expect(published).toMatchObject({ pid: proc.pid, http_url: url[1] });
	return { proc, root, port: Number(url[2]), stderr };
}

interface Check {
	id: string;
	status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
	errorMessage?: string;
}

let owner: Owner | undefined;
let plain: Owner | undefined;
/** checks.json of each scenario, from the one run of each suite, by spec. */
const results = new Map<string, Map<string, Check[]>>();

async function runSuite({ cli, spec, scenarios }: Suite, port: number): Promise<Map<string, Check[]>> {
	const out = tempDir("rt-conformance-out-");
	const run = await runProcess(
		[
			process.execPath,
			cli,
			"server",
			// dns-rebinding-protection needs a localhost URL; the owner listens on 127.0.0.1.
			"--url",
			`http://localhost:${port}/mcp`,
			"--suite",
			"all",
			"--spec-version",
			spec,
			"-o",
			out,
		],
		{ cwd: REPO },
	);
	const byScenario = new Map<string, Check[]>();
	for (const dir of readdirSync(out)) {
		const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
		if (scenario) byScenario.set(scenario, JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")));
	}
	if (byScenario.size !== scenarios.length) console.log(`${run.stdout}\n${run.stderr}`);
	return byScenario;
}

beforeAll(async () => {
	[owner, plain] = await Promise.all([startOwner(true), startOwner(false)]);
	// One after the other: a scenario of one may announce a list change a listen of the other hears.
	for (const s of SUITES) results.set(s.spec, await runSuite(s, owner.port));
}, 120_000);

afterAll(async () => {
	for (const o of [owner, plain]) {
		if (o && o.proc.exitCode === null) {
			o.proc.kill("SIGKILL");
			await o.proc.exited;
		}
	}
});

for (const { spec, scenarios } of SUITES) {
	describe(`MCP conformance suite (spec ${spec}) against \`roundtable start\` with the fixtures`, () => {
		test("the suite lists the server scenarios we expect, pending ones included", () => {
			const expected =
				spec === "2025-11-25"
					? ["json-schema-2020-12", "server-sse-polling"]
					: [
							"server-stateless",
							"caching",
							"http-custom-header-server-validation",
							"input-required-result-multi-round",
						];
			expect(scenarios.length).toBeGreaterThanOrEqual(spec === "2025-11-25" ? 32 : 40);
			for (const name of expected) expect(scenarios).toContain(name);
		});

		for (const scenario of scenarios) {
			test(scenario, () => {
				const checks = results.get(spec)?.get(scenario);
				expect(checks).toBeDefined();
				const problems = (checks as Check[])
					.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO")
					.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ""}`);
				expect(problems).toEqual([]);
				expect((checks as Check[]).some((c) => c.status === "SUCCESS")).toBe(true);
			});
		}
	});
}

// The suite speaks HTTP only; `roundtable mcp stdio` relays the same session to the owner.
// The owner's hub carries word of a changed list to every listener of both eras that asked for that
// list, and to no other: here a fixture tool announces it (Roundtable's own lists never change).
test("a list change announced reaches a 2025-11-25 session and the 2026-07-28 listens that asked for it, once each", async () => {
	const url = `http://127.0.0.1:${(owner as Owner).port}/mcp`;
	const legacy = new Client({ name: "legacy", version: "1.0.0" });
	const heard: string[] = [];
	legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => {
		heard.push("legacy tools");
	});
	await legacy.connect(new StreamableHTTPClientTransport(new URL(url)));
	const listens = new AbortController();
	const listen = async (name: string, notifications: Record<string, boolean>) => {
		const res = await fetch(url, {
			method: "POST",
			signal: listens.signal,
			headers: {
				"content-type": "application/json",
				accept: "application/json, text/event-stream",
				"mcp-protocol-version": "2026-07-28",
				"mcp-method": "subscriptions/listen",
			},
			body: JSON.stringify({
				jsonrpc: "2.0",
				id: name,
				method: "subscriptions/listen",
				params: { _meta: MODERN_META, notifications },
			}),
		});
		const reader = (res.body as ReadableStream<Uint8Array>).getReader();
		const decoder = new TextDecoder();
		void (async () => {
			let buffer = "";
			try {
				for (;;) {
					const { value, done } = await reader.read();
					if (done) return;
					buffer += decoder.decode(value, { stream: true });
					for (const line of buffer.split("\n").slice(0, -1))
						if (line.startsWith("data: ")) {
							const m = JSON.parse(line.slice(6)) as { method?: string };
							heard.push(`${name} ${m.method?.replace(/^notifications\//, "")}`);
						}
					buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
				}
			} catch {
				// the listen was closed
			}
		})();
	};
	try {
		// The session's notifications come on its GET stream, which the SDK opens after initializing.
		await Bun.sleep(300);
		await listen("tools", { toolsListChanged: true });
		await listen("prompts", { promptsListChanged: true });
		await until(
			() => heard.filter((h) => h.endsWith("subscriptions/acknowledged")).length === 2,
			5000,
			"both acks",
		);
		const modern = new ModernClient(
			{ name: "trigger", version: "1.0.0" },
			{ versionNegotiation: { mode: { pin: "2026-07-28" } } },
		);
		await modern.connect(new ModernHttp(new URL(url)));
		await modern.callTool({ name: "test_trigger_tool_change", arguments: {} });
		await until(() => heard.length >= 4, 5000, "the tools list change");
		await Bun.sleep(300);
		expect(heard.sort()).toEqual([
			"legacy tools",
			"prompts subscriptions/acknowledged",
			"tools subscriptions/acknowledged",
			"tools tools/list_changed",
		]);
		await modern.close();
	} finally {
		listens.abort();
		await legacy.close();
	}
}, 30_000);

test("through the stdio bridge: sampling and elicitation requests, log messages, and a stream cut mid-call", async () => {
	const client = new Client(
		{ name: "bridged", version: "1.0.0" },
		{ capabilities: { sampling: {}, elicitation: {} } },
	);
	const logs: unknown[] = [];
	client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
		logs.push(n.params.data);
	});
	client.setRequestHandler(CreateMessageRequestSchema, async () => ({
		role: "assistant",
		content: { type: "text", text: "sampled by the client" },
		model: "test",
	}));
	client.setRequestHandler(ElicitRequestSchema, async () => ({
		action: "accept",
		content: { username: "ada", email: "ada@example.com" },
	}));
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [MAIN, "mcp", "stdio", "--root", (owner as Owner).root],
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (chunk) => {
		stderr += chunk;
	});
	await client.connect(transport);
	try {
		const textOf = async (name: string, args: Record<string, unknown> = {}) =>
			JSON.stringify(
				(await client.callTool({ name, arguments: args }, undefined, { timeout: 10_000 })).content,
			);
		expect(await textOf("test_sampling", { prompt: "hi" })).toContain("LLM response: sampled by the client");
		expect(await textOf("test_elicitation", { message: "who?" })).toContain("ada@example.com");
		await client.setLoggingLevel("debug");
		await textOf("test_tool_with_logging");
		expect(logs).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"]);
		// The owner closes this call's stream before answering; the bridge resumes it with Last-Event-ID.
		expect(await textOf("test_reconnection")).toContain("Reconnection test completed");
	} finally {
		await client.close();
	}
	expect(stderr).toBe("");
}, 30_000);

describe("roundtable start serves no fixture, whatever its environment says", () => {
	async function connect(): Promise<Client> {
		const client = new Client({ name: "plain", version: "1.0.0" });
		await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${plain?.port}/mcp`)));
		return client;
	}

	test("only tools and Roundtable's own resources are declared; fixture tools are neither listed nor callable", async () => {
		const client = await connect();
		try {
			expect(client.getServerCapabilities()).toEqual({ tools: {}, resources: { subscribe: true } });
			const { tools } = await client.listTools();
			expect(tools.length).toBeGreaterThan(0);
			expect(tools.filter((t) => !t.name.includes("."))).toEqual([]);
			const unknown = await client.callTool({ name: "test_simple_text", arguments: {} }).catch((e) => e);
			expect(unknown).toMatchObject({ code: -32602 });
			expect(await client.ping()).toEqual({});
		} finally {
			await client.close();
		}
	});

	test("the fixtures' resources are not there; prompts and logging are not offered: −32601, as for any undeclared method", async () => {
		const client = await connect();
		try {
			const codeOf = (
				method: string,
				params: Record<string, unknown>,
				schema: Parameters<Client["request"]>[1],
			) =>
				client.request({ method, params }, schema).then(
					() => "answered",
					(e: { code?: number }) => e.code,
				);
			// Roundtable's own resources only: the inbox, each active run's events (none here).
			const { resources } = await client.listResources();
			expect(resources.map((r) => r.uri)).toEqual(["roundtable://inbox"]);
			expect(await codeOf("resources/read", { uri: "test://static-text" }, ReadResourceResultSchema)).toBe(
				-32002,
			);
			expect(await codeOf("prompts/list", {}, ListPromptsResultSchema)).toBe(-32601);
			expect(await codeOf("logging/setLevel", { level: "info" }, EmptyResultSchema)).toBe(-32601);
		} finally {
			await client.close();
		}
	});
	test("2026-07-28: discovery declares tools and Roundtable's own resources, no list changes; no fixture tool, prompt or resource", async () => {
		const client = new ModernClient(
			{ name: "plain-modern", version: "1.0.0" },
			{ versionNegotiation: { mode: { pin: "2026-07-28" } } },
		);
		await client.connect(new ModernHttp(new URL(`http://127.0.0.1:${plain?.port}/mcp`)));
		try {
			expect(client.getServerCapabilities()).toEqual({ tools: {}, resources: { subscribe: true } });
			const { tools } = await client.listTools();
			expect(tools.length).toBeGreaterThan(0);
			expect(tools.filter((t) => !t.name.includes("."))).toEqual([]);
			const codeOf = (p: Promise<unknown>) =>
				p.then(
					() => "answered",
					(e: { code?: number }) => e.code,
				);
			expect(await codeOf(client.callTool({ name: "test_trigger_tool_change", arguments: {} }))).toBe(-32602);
			// Asked for all the same, on the wire (the client's listPrompts would answer an empty list itself).
			const prompts = await fetch(`http://127.0.0.1:${plain?.port}/mcp`, {
				method: "POST",
				headers: {
					"content-type": "application/json",
					accept: "application/json, text/event-stream",
					"mcp-protocol-version": "2026-07-28",
					"mcp-method": "prompts/list",
				},
				body: JSON.stringify({
					jsonrpc: "2.0",
					id: 1,
					method: "prompts/list",
					params: { _meta: MODERN_META },
				}),
			});
			expect({
				status: prompts.status,
				code: ((await prompts.json()) as { error?: { code?: number } }).error?.code,
			}).toEqual({
				status: 404,
				code: -32601,
			});
			expect(await codeOf(client.readResource({ uri: "test://static-text" }))).toBe(-32602);
		} finally {
			await client.close();
		}
	});
});

test("SIGTERM stops the owner with exit code 0 and withdraws owner.json", async () => {
	const { proc, root, port, stderr: text } = owner as Owner;
	proc.kill("SIGTERM");
	const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => "still running")]);
	const stderr = await Promise.race([text, Bun.sleep(1000).then(() => "")]);
	expect({ code, stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining("SIGTERM") });
	expect(existsSync(join(root, ".roundtable", "owner.json"))).toBe(false);
	const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
		(r) => `answered ${r.status}`,
		() => "refused",
	);
	expect(refused).toBe("refused");
}, 30_000);
