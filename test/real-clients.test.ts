// Real agent clients against a real project: Codex's app-server, Claude Code's `mcp list` health
// check and the MCP inspector, each launching the stdio entry that `roundtable init --client …`
// wrote, with no bun on their PATH, while `roundtable start` runs as the owner. The clients are the
// pinned npm releases (see real-clients-helpers.ts); a registry that cannot be reached skips them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { AGENT_TOOLS } from "../src/registry/index.ts";
import { commitAll, MAIN, REPO, readyLine, runCli, tempDir, write } from "./helpers.ts";
import {
	bounded,
	type ClientName,
	clientEnv,
	type Installed,
	install,
	LineRpc,
	PINNED,
	pathWithoutBun,
} from "./real-clients-helpers.ts";

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
