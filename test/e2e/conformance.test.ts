// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the real
// owner: the tests' own owner entry (test/_helpers/conformance-owner.ts: the owner as `roundtable
// start` runs it, with the suite's fixture tools, resources and prompts), in a subprocess on a port
// the OS picks. The suite's CLI runs once, every server scenario of spec 2025-11-25, pending ones
// included; each scenario is then judged from its checks.json: no failure, no warning. A plain
// `roundtable start` serves no fixture, even with the variable that once asked for them set.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
} from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { initProject } from "../../src/init/index.ts";
import { MAIN, REPO, readyLine, runProcess, tempDir } from "../_helpers/helpers.ts";

const CONFORMANCE = join(REPO, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SPEC = "2025-11-25";

// The suite's own list, so a scenario it has is a scenario we run (the CLI needs Bun: it crashes on Node 20).
const listed = Bun.spawnSync([process.execPath, CONFORMANCE, "list", "--server", "--spec-version", SPEC], {
	cwd: REPO,
});
const SCENARIOS = [...listed.stdout.toString().matchAll(/^ {2}- (\S+)/gm)].map((m) => m[1] as string);

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
/** checks.json of each scenario, from the one run of the suite. */
let results: Promise<Map<string, Check[]>> = Promise.resolve(new Map());

async function runSuite(port: number): Promise<Map<string, Check[]>> {
	const out = tempDir("rt-conformance-out-");
	const run = await runProcess(
		[
			process.execPath,
			CONFORMANCE,
			"server",
			// dns-rebinding-protection needs a localhost URL; the owner listens on 127.0.0.1.
			"--url",
			`http://localhost:${port}/mcp`,
			"--suite",
			"all",
			"--spec-version",
			SPEC,
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
	if (byScenario.size !== SCENARIOS.length) console.log(`${run.stdout}\n${run.stderr}`);
	return byScenario;
}

beforeAll(async () => {
	[owner, plain] = await Promise.all([startOwner(true), startOwner(false)]);
	results = runSuite(owner.port);
	await results;
}, 60_000);

afterAll(async () => {
	for (const o of [owner, plain]) {
		if (o && o.proc.exitCode === null) {
			o.proc.kill("SIGKILL");
			await o.proc.exited;
		}
	}
});

describe(`MCP conformance suite (spec ${SPEC}) against \`roundtable start\` with the fixtures`, () => {
	test("the suite lists the server scenarios we expect, pending ones included", () => {
		expect(SCENARIOS.length).toBeGreaterThanOrEqual(32);
		expect(SCENARIOS).toContain("json-schema-2020-12");
		expect(SCENARIOS).toContain("server-sse-polling");
	});

	for (const scenario of SCENARIOS) {
		test(scenario, async () => {
			const checks = (await results).get(scenario);
			expect(checks).toBeDefined();
			const problems = (checks as Check[])
				.filter((c) => c.status === "FAILURE" || c.status === "WARNING")
				.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ""}`);
			expect(problems).toEqual([]);
			expect((checks as Check[]).some((c) => c.status === "SUCCESS")).toBe(true);
		});
	}
});

// The suite speaks HTTP only; `roundtable mcp stdio` relays the same session to the owner.
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
