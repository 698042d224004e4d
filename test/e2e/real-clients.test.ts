// Real agent clients against a real project: Codex's app-server, Claude Code's `mcp list` health
// check and the MCP inspector, each launching the stdio entry that `roundtable init --client …`
// wrote, with no bun on their PATH, while `roundtable start` runs as the owner. The clients are the
// pinned npm releases (see real-clients-helpers.ts); a registry that cannot be reached skips them.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { parseDocument } from "yaml";
import { WORKSPACE_INSIDE } from "../../src/launch/session.ts";
import { AGENT_TOOLS, toolsFor } from "../../src/registry/index.ts";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { commitAll, diffOf, MAIN, REPO, readyLine, runCli, tempDir, write } from "../_helpers/helpers.ts";
import { type ModelServer, serveModel } from "../_helpers/model-server.ts";
import {
	bounded,
	type ClientName,
	clientEnv,
	type Installed,
	install,
	LineRpc,
	PINNED,
	pathWithoutBun,
} from "../_helpers/real-clients-helpers.ts";

/** Scripted model servers the tests started, stopped at the end. */
const models: ModelServer[] = [];
afterAll(() => {
	for (const m of models) m.stop();
});

const names = Object.keys(PINNED) as ClientName[];
const installed = Object.fromEntries(
	await Promise.all(names.map(async (name) => [name, await install(name)] as const)),
) as Record<ClientName, Installed>;
for (const name of names) {
	const r = installed[name];
	const spec = `${PINNED[name].pkg}@${PINNED[name].version}`;
	if (r.kind === "ok")
		console.log(
			`real clients: ${spec} ${r.reused ? "reused from the cache" : `installed in ${r.seconds.toFixed(1)} s`}`,
		);
	else if (r.kind === "skip") console.log(`real clients: SKIPPED ${name}: ${r.reason}`);
}

/** A test of one client: skipped (reason printed above) when it could not be installed for lack of a registry. */
function clientTest(name: ClientName, title: string, body: (bin: string) => Promise<void>) {
	const r = installed[name];
	test.skipIf(r.kind === "skip")(
		title,
		async () => {
			if (r.kind === "error") throw new Error(r.message);
			if (r.kind === "ok") await body(r.bin);
		},
		90_000,
	);
}

const registryTools = AGENT_TOOLS.map((t) => t.name).sort();
let root = "";
let owner: Subprocess<"ignore", "pipe", "pipe"> | undefined;
/** The one stdio entry both `init --client` runs wrote (checked equal below). */
let entry = { command: "", args: [] as string[] };

/** A fresh throwaway home (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR inside) and the client environment for it. */
function home(): { dir: string; env: Record<string, string> } {
	const dir = realpathSync(tempDir("rt-client-home-"));
	const env = clientEnv(dir);
	mkdirSync(env.CODEX_HOME as string, { recursive: true });
	mkdirSync(env.CLAUDE_CONFIG_DIR as string, { recursive: true });
	return { dir, env };
}

/** The task as the owner has it, read through `roundtable mcp call` (the owner's socket). */
async function ownerTask(taskId: string): Promise<Record<string, unknown>> {
	const r = await runCli([
		"mcp",
		"call",
		"--root",
		root,
		"--tool",
		"task.get",
		"--args",
		JSON.stringify({ task_id: taskId }),
	]);
	if (r.code !== 0) throw new Error(`task.get ${taskId} failed (${r.code}): ${r.stderr}`);
	return (JSON.parse(r.stdout) as { task: Record<string, unknown> }).task;
}

const someTask = (by: string) => ({
	title: `made by ${by} ${crypto.randomUUID()}`,
	body_md: `Created through ${by} by test/real-clients.test.ts.`,
});

beforeAll(async () => {
	root = realpathSync(tempDir("rt-real-clients-"));
	commitAll(root, { "README.md": "# a project\n" });
	// The OS picks the port; the stdio bridge finds it in .roundtable/owner.json.
	mkdirSync(join(root, ".roundtable"));
	writeFileSync(join(root, ".roundtable", "config.yaml"), "mcp:\n  http_address: 127.0.0.1:0\n");
	for (const client of ["codex", "claude"]) {
		const r = await runCli(["init", "--root", root, "--client", client], {
			env: { ...process.env, ...clientEnv(home().dir) },
		});
		if (r.code !== 0) throw new Error(`init --client ${client} failed (${r.code}): ${r.stderr}`);
	}
	const codex = Bun.TOML.parse(readFileSync(join(root, ".codex/config.toml"), "utf8")) as {
		mcp_servers: { roundtable: typeof entry };
	};
	const claude = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")) as {
		mcpServers: { roundtable: typeof entry & { type: string } };
	};
	entry = codex.mcp_servers.roundtable;
	expect(claude.mcpServers.roundtable).toEqual({ type: "stdio", ...entry });
	owner = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
		cwd: REPO,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const ownerStderr = new Response(owner.stderr).text();
	await readyLine(owner, 20_000, () => ownerStderr);
}, 60_000);

afterAll(async () => {
	if (owner && owner.exitCode === null) {
		owner.kill("SIGTERM");
		if ((await Promise.race([owner.exited, Bun.sleep(5000).then(() => "late")])) === "late")
			owner.kill("SIGKILL");
		await owner.exited;
	}
});

test("the clients' PATH holds no bun, so the entry must run without it", () => {
	const PATH = pathWithoutBun();
	expect(Bun.which("bun", { PATH })).toBeNull();
	expect(Bun.which("bunx", { PATH })).toBeNull();
	expect(Bun.which("node", { PATH })).not.toBeNull(); // the clients' own launchers need it
});

describe(`Codex ${PINNED.codex.version} app-server`, () => {
	/** An app-server in a throwaway CODEX_HOME, a thread started in the project, and that thread's id. */
	async function codexThread(bin: string, trusted: boolean) {
		const { env } = home();
		// Codex reads a project's .codex/config.toml only for a project trusted in CODEX_HOME.
		const trust = `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n`;
		writeFileSync(join(env.CODEX_HOME as string, "config.toml"), trusted ? trust : "");
		const rpc = new LineRpc([bin, "app-server"], { cwd: root, env });
		await rpc.request("initialize", { clientInfo: { name: "roundtable-tests", version: "0" } });
		rpc.notify("initialized");
		const started = await rpc.request("thread/start", { cwd: root, ephemeral: true });
		return { rpc, threadId: (started.thread as { id: string }).id };
	}

	type Status = { name: string; tools: Record<string, unknown> };

	clientTest(
		"codex",
		"lists roundtable with every tool, and task.create through it creates the task",
		async (bin) => {
			const { rpc, threadId } = await codexThread(bin, true);
			try {
				// Project-local servers are listed only for a thread started in the project.
				const status = await rpc.request("mcpServerStatus/list", { threadId });
				const ours = (status.data as Status[]).find((s) => s.name === "roundtable");
				expect(ours, JSON.stringify(status).slice(0, 2000)).toBeDefined();
				expect(Object.keys(ours?.tools ?? {}).sort()).toEqual(registryTools);

				const args = someTask("Codex");
				const result = await rpc.request("mcpServer/tool/call", {
					server: "roundtable",
					threadId,
					tool: "task.create",
					arguments: args,
				});
				expect(result.isError, JSON.stringify(result)).toBeFalsy();
				const made = (result.structuredContent as { task: { id: string } }).task;
				expect(await ownerTask(made.id)).toMatchObject({ ...args, status: "open" });
			} finally {
				await rpc.close();
			}
		},
	);

	clientTest("codex", "without the trust entry the project's server is not loaded", async (bin) => {
		const { rpc, threadId } = await codexThread(bin, false);
		try {
			const status = await rpc.request("mcpServerStatus/list", { threadId });
			expect((status.data as Status[]).map((s) => s.name)).not.toContain("roundtable");
		} finally {
			await rpc.close();
		}
	});
});

describe(`Claude Code ${PINNED.claude.version} \`claude mcp list\``, () => {
	const approval = () => join(root, ".claude", "settings.local.json");

	/** `claude mcp list` from the project; it exits 0 whatever the servers' state, so its line is what counts. */
	async function mcpList(bin: string) {
		const { env } = home();
		// The trust dialog's answer, kept in the user's config (here a throwaway one).
		const trusted = { projects: { [root]: { hasTrustDialogAccepted: true } } };
		writeFileSync(join(env.CLAUDE_CONFIG_DIR as string, ".claude.json"), JSON.stringify(trusted));
		const r = await bounded([bin, "mcp", "list"], { cwd: root, env, ms: 60_000 });
		expect(r.timedOut).toBe(false);
		const line = r.stdout.split("\n").find((l) => l.startsWith("roundtable: "));
		expect(line, `${r.stdout}\n${r.stderr}`).toBeDefined();
		return line as string;
	}

	clientTest("claude", "a trusted project's server that is not approved is not connected", async (bin) => {
		rmSync(approval(), { force: true });
		const line = await mcpList(bin);
		expect(line).toContain("Pending approval");
		expect(line).not.toContain("Connected");
	});

	clientTest("claude", "shows the project's server ✔ Connected once it is approved", async (bin) => {
		// Where Claude Code keeps the approval of a .mcp.json server (it moves one given in .claude.json here).
		write(root, ".claude/settings.local.json", JSON.stringify({ enabledMcpjsonServers: ["roundtable"] }));
		try {
			const line = await mcpList(bin);
			expect(line).toBe(`roundtable: ${[entry.command, ...entry.args].join(" ")} - ✔ Connected`);
		} finally {
			rmSync(approval(), { force: true });
		}
	});
});

describe(`MCP inspector ${PINNED.inspector.version} CLI`, () => {
	/** The inspector's CLI on the project's stdio entry; it needs Node >= 22.19, so it runs under Bun. */
	async function inspect(bin: string, ...method: string[]): Promise<Record<string, unknown>> {
		const { env } = home();
		const argv = [
			process.execPath,
			bin,
			"--cli",
			"--format",
			"json",
			...method,
			"--",
			entry.command,
			...entry.args,
		];
		const r = await bounded(argv, { cwd: root, env, ms: 60_000 });
		if (r.code !== 0)
			throw new Error(`inspector ${method.join(" ")} exited ${r.code}: ${r.stderr}${r.stdout}`);
		return (JSON.parse(r.stdout) as { result: Record<string, unknown> }).result;
	}

	clientTest("inspector", "lists every tool of the registry and calls task.create", async (bin) => {
		const listed = await inspect(bin, "--method", "tools/list");
		expect((listed.tools as { name: string }[]).map((t) => t.name).sort()).toEqual(registryTools);

		const args = someTask("the inspector");
		const result = await inspect(
			bin,
			"--method",
			"tools/call",
			"--tool-name",
			"task.create",
			"--tool-args-json",
			JSON.stringify(args),
		);
		expect(result.isError, JSON.stringify(result)).toBeFalsy();
		const made = (result.structuredContent as { task: { id: string } }).task;
		expect(await ownerTask(made.id)).toMatchObject({ ...args, status: "open" });
	});
});

describe("launched by `roundtable sessions launch`: the client configured for that session alone", () => {
	/** A proposal on a task of its own, for a reviewer's session to be bound to. */
	async function proposal(): Promise<string> {
		const id = `P-launch-${crypto.randomUUID().slice(0, 8)}`;
		const task = `T-${id}`;
		const steps: [string, object][] = [
			["task.create", { task_id: task, title: "t", body_md: "b", assigned_agent_id: "implementer-1" }],
			[
				"resource.claim",
				{
					agent_id: "implementer-1",
					task_id: task,
					resource_type: "file",
					resource_id: "file:README.md",
					claim_type: "write",
				},
			],
			[
				"proposal.create",
				{
					proposal_id: id,
					task_id: task,
					agent_id: "implementer-1",
					title: "t",
					summary_md: "s",
					affected_resources: [],
					risk: "low",
					patch: diffOf(root, "README.md", "# a project\nwith a line more\n"),
				},
			],
		];
		for (const [tool, args] of steps) {
			const r = await runCli(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args)]);
			if (r.code !== 0) throw new Error(`${tool}: ${r.stderr}`);
		}
		return id;
	}

	/** Points an adapter's command at the installed client (and a subcommand), in the project's config. */
	function adapterCommand(adapter: string, command: string, egress?: string[]) {
		const file = join(root, ".roundtable", "config.yaml");
		const doc = parseDocument(readFileSync(file, "utf8"));
		// No headless form: without a terminal the launch runs this command as it is, no prompt added.
		doc.setIn(["adapters", adapter, "command"], command);
		doc.setIn(["adapters", adapter, "headless"], "");
		if (egress) doc.setIn(["adapters", adapter, "egress"], egress);
		writeFileSync(file, doc.toString());
	}

	const reviewerTools = toolsFor("Reviewer")
		.map((t) => t.name)
		.sort();

	clientTest(
		"codex",
		"Codex's app-server, launched for a reviewer, lists the session's server with the reviewer's tools",
		async (bin) => {
			adapterCommand("codex", `${bin} app-server`);
			const { env } = home();
			const bound = await proposal();
			const rpc = new LineRpc(
				[
					process.execPath,
					MAIN,
					"sessions",
					"launch",
					"--root",
					root,
					"--agent",
					"reviewer-1",
					"--proposal",
					bound,
					"--adapter",
					"codex",
				],
				{ cwd: root, env },
			);
			try {
				await rpc.request("initialize", { clientInfo: { name: "roundtable-tests", version: "0" } }, 60_000);
				rpc.notify("initialized");
				// In its sandbox the agent sees no project: its working folder is its own workspace.
				const cwd = probeSandbox().kind === "bwrap" ? WORKSPACE_INSIDE : root;
				const started = await rpc.request("thread/start", { cwd, ephemeral: true });
				const threadId = (started.thread as { id: string }).id;
				const status = await rpc.request("mcpServerStatus/list", { threadId }, 60_000);
				const ours = (status.data as { name: string; tools: Record<string, unknown> }[]).find(
					(s) => s.name === "roundtable",
				);
				expect(ours, JSON.stringify(status).slice(0, 2000)).toBeDefined();
				expect(Object.keys(ours?.tools ?? {}).sort(), JSON.stringify(status).slice(0, 2000)).toEqual(
					reviewerTools,
				);
			} finally {
				await rpc.close();
			}
		},
	);

	clientTest(
		"claude",
		"Claude Code, launched for a reviewer, reports the session's server connected, and the owner records its tools/list",
		async (bin) => {
			// `claude mcp list` takes no --mcp-config; a print-mode session does, and its first event says
			// how each MCP server stands before any model is asked (there is none here: it is stopped then).
			// A scripted model answers at once, so the session ends by itself after its init event.
			const model = serveModel([]);
			models.push(model);
			adapterCommand("claude", `${bin} -p hello --output-format stream-json --verbose`, [
				`http://127.0.0.1:${model.port}`,
			]);
			const { env } = home();
			const bound = await proposal();
			const launched = Bun.spawn(
				[
					process.execPath,
					MAIN,
					"sessions",
					"launch",
					"--root",
					root,
					"--agent",
					"reviewer-1",
					"--proposal",
					bound,
					"--adapter",
					"claude",
				],
				{
					cwd: root,
					env: { ...env, ANTHROPIC_API_KEY: "sk-ant-not-a-key", ANTHROPIC_BASE_URL: model.url },
					stdin: "ignore",
					stdout: "pipe",
					stderr: "pipe",
				},
			);
			const stderr = new Response(launched.stderr).text();
			const killer = setTimeout(() => launched.kill("SIGKILL"), 60_000);
			let init: { mcp_servers?: { name: string; status: string; source: string }[] } | undefined;
			let text = "";
			for await (const chunk of launched.stdout) {
				text += new TextDecoder().decode(chunk);
				const line = text.split("\n").find((l) => l.includes('"subtype":"init"'));
				if (line) {
					init = JSON.parse(line);
					break;
				}
			}
			launched.kill("SIGTERM");
			await launched.exited;
			clearTimeout(killer);
			const err = await stderr;
			expect(init?.mcp_servers, `${text}\n${err}`).toEqual([
				{ name: "roundtable", status: "connected", source: "dynamic" },
			]);
			const session = /session (S-\S+) for reviewer-1/.exec(err)?.[1];
			const watched = await runCli(["watch", "--root", root, "--limit", "500", "--json"]);
			const events = (
				JSON.parse(watched.stdout) as { events: { type: string; payload: Record<string, unknown> }[] }
			).events;
			expect(
				events.find((e) => e.type === "session.tools_listed" && e.payload.session_id === session),
			).toMatchObject({
				payload: { tools: reviewerTools.length },
			});
			expect(
				events.find((e) => e.type === "session.closed" && e.payload.session_id === session),
			).toBeDefined();
		},
	);
});
