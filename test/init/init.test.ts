// `roundtable init`: the files and folders it creates, idempotence, user edits, generated MCP assets
// and syncing the configured agents into the database.
import { describe, expect, test } from "bun:test";
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	realpathSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { isAbsolute, join } from "node:path";
import { lexer, type Tokens } from "marked";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../src/config/load.ts";
import { CONFIG_TEMPLATE } from "../../src/init/config-template.ts";
import { type InitReport, initProject } from "../../src/init/index.ts";
import { AGENTS_MD, PROJECT_MD } from "../../src/init/starter-files.ts";
import { DEFAULT_POLICY } from "../../src/policy/defaults.ts";
import { AGENT_TOOLS, TOOLS } from "../../src/registry/index.ts";
import { openRuntime } from "../../src/runtime.ts";
import type { StoredAgent } from "../../src/store/agents.ts";
import { allEvents, makeProject, type Project, REPO, runCli, tempDir } from "../_helpers/helpers.ts";

const CONFIG = ".roundtable/config.yaml";

const DIRS = [
	".roundtable",
	".roundtable/mcp",
	".roundtable/patches",
	".roundtable/journal",
	".roundtable/testlogs",
	".roundtable/logs",
];

const FILES = [
	CONFIG,
	".roundtable/.gitignore",
	"POLICIES.ROUNDTABLE.md",
	"AGENTS.ROUNDTABLE.md",
	"PROJECT.ROUNDTABLE.md",
	"TASKS.ROUNDTABLE/README.md",
	".roundtable/mcp/tools.schema.json",
	".roundtable/mcp/server.json",
	".roundtable/mcp/AGENT_MCP_MANIFEST.md",
];

const DEFAULT_AGENTS: [id: string, role: string, adapter: string][] = [
	["chair-1", "Chair", "claude"],
	["architect-1", "Architect", "claude"],
	["tester-1", "Tester", "codex"],
	["security-1", "Security", "claude"],
	["memory-oracle-1", "MemoryOracle", "claude"],
	["implementer-1", "Implementer", "codex"],
	["implementer-2", "Implementer", "codex"],
	["reviewer-1", "Reviewer", "gemini"],
];

/** A fresh directory (symlinks resolved, as init reports it). */
const freshRoot = () => realpathSync(tempDir());

/** A directory whose .roundtable/config.yaml holds `text`, not yet initialized. */
function rootWithConfig(text: string): string {
	const root = freshRoot();
	mkdirSync(join(root, ".roundtable"));
	writeFileSync(join(root, CONFIG), text);
	return root;
}

/** Every file below `dir` (relative paths, sorted). */
function walk(dir: string, prefix = ""): string[] {
	return readdirSync(dir, { withFileTypes: true })
		.flatMap((e) =>
			e.isDirectory() ? walk(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
		)
		.sort();
}

const mode = (path: string) => statSync(path).mode & 0o777;
const read = (root: string, rel: string) => readFileSync(join(root, rel), "utf8");
const actionOf = (report: InitReport, rel: string) => report.files.find((f) => f.path === rel)?.action;

/** The template with one exact substring replaced; fails if the substring is not there. */
function templateWith(from: string, to: string): string {
	expect(CONFIG_TEMPLATE).toContain(from);
	return CONFIG_TEMPLATE.replace(from, to);
}

const agentsIn = (p: Project): Promise<StoredAgent[]> =>
	p.rt.store.withTransaction("read", (tx) => tx.agents.list());

async function agentIn(p: Project, id: string): Promise<StoredAgent> {
	const agent = await p.rt.store.withTransaction("read", (tx) => tx.agents.get(id));
	if (!agent) throw new Error(`no agent ${id}`);
	return agent;
}

/** Events after `afterId`. */
async function eventsAfter(p: Project, afterId: number) {
	return (await allEvents(p)).filter((e) => e.id > afterId);
}

const lastEventId = async (p: Project) => (await allEvents(p)).at(-1)?.id ?? 0;

describe("a fresh init", () => {
	test("creates .roundtable/ and its runtime folders with mode 0700", async () => {
		const root = freshRoot();
		await initProject(root);
		for (const dir of DIRS) {
			expect(statSync(join(root, dir)).isDirectory()).toBe(true);
			expect({ dir, mode: mode(join(root, dir)).toString(8) }).toEqual({ dir, mode: "700" });
		}
	});

	test("tightens an existing .roundtable/ to 0700", async () => {
		const root = rootWithConfig(CONFIG_TEMPLATE);
		const { chmodSync } = await import("node:fs");
		chmodSync(join(root, ".roundtable"), 0o755);
		mkdirSync(join(root, ".roundtable", "logs"), { mode: 0o777 });
		chmodSync(join(root, ".roundtable", "logs"), 0o777);
		await initProject(root);
		expect(mode(join(root, ".roundtable")).toString(8)).toBe("700");
		expect(mode(join(root, ".roundtable", "logs")).toString(8)).toBe("700");
	});

	test("writes the starter files, the MCP assets and the database, and reports each one created", async () => {
		const root = freshRoot();
		const report = await initProject(root);
		expect(report.root).toBe(root);
		expect(report.changed).toBe(true);
		expect(report.files).toEqual(FILES.map((path) => ({ path, action: "created" })));
		for (const rel of FILES) expect(statSync(join(root, rel)).isFile()).toBe(true);
		expect(statSync(join(root, "TASKS.ROUNDTABLE")).isDirectory()).toBe(true);
		expect(read(root, CONFIG)).toBe(CONFIG_TEMPLATE);
		expect(read(root, "AGENTS.ROUNDTABLE.md")).toBe(AGENTS_MD);
		expect(read(root, "PROJECT.ROUNDTABLE.md")).toBe(PROJECT_MD);
		expect(statSync(join(root, ".roundtable", "roundtable.db")).size).toBeGreaterThan(0);
		// the database is a real SQLite file with the agents in it
		const rt = openRuntime(root);
		try {
			const ids = await rt.store.withTransaction("read", (tx) => tx.agents.ids());
			expect(ids.length).toBe(8);
		} finally {
			rt.close();
		}
	});

	test(".roundtable/.gitignore ignores runtime state and nothing that is meant to be committed", async () => {
		const root = freshRoot();
		await initProject(root);
		const patterns = read(root, ".roundtable/.gitignore")
			.split("\n")
			.map((l) => l.trim())
			.filter((l) => l !== "" && !l.startsWith("#"));
		for (const p of [
			"owner.lock",
			"owner.json",
			"repo.lock",
			"mcp/",
			"patches/",
			"journal/",
			"testlogs/",
			"logs/",
		]) {
			expect(patterns).toContain(p);
		}
		expect(patterns.some((p) => p === "roundtable.db*" || p === "roundtable.db")).toBe(true);

		// and git itself agrees
		const git = (...args: string[]) =>
			Bun.spawnSync(["git", ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
		expect(git("init", "-q").exitCode).toBe(0);
		const ignored = (rel: string) => git("check-ignore", "-q", rel).exitCode === 0;
		for (const rel of [
			".roundtable/roundtable.db",
			".roundtable/roundtable.db-wal",
			".roundtable/roundtable.db-shm",
			".roundtable/owner.lock",
			".roundtable/owner.json",
			".roundtable/repo.lock",
			".roundtable/mcp/server.json",
			".roundtable/patches/abc.patch",
			".roundtable/journal/x.json",
			".roundtable/testlogs/run.log",
			".roundtable/logs/owner.log",
		]) {
			expect({ rel, ignored: ignored(rel) }).toEqual({ rel, ignored: true });
		}
		for (const rel of [
			".roundtable/config.yaml",
			".roundtable/.gitignore",
			"POLICIES.ROUNDTABLE.md",
			"AGENTS.ROUNDTABLE.md",
			"PROJECT.ROUNDTABLE.md",
			"TASKS.ROUNDTABLE/README.md",
		]) {
			expect({ rel, ignored: ignored(rel) }).toEqual({ rel, ignored: false });
		}
	});

	test("leaves no temp files behind", async () => {
		const root = freshRoot();
		await initProject(root);
		await initProject(root);
		writeFileSync(join(root, "AGENTS.ROUNDTABLE.md"), "# mine\n");
		await initProject(root, { force: true });
		expect(walk(root).filter((f) => f.endsWith(".tmp"))).toEqual([]);
	});

	test("refuses a root that is not a directory", async () => {
		const root = freshRoot();
		await expect(initProject(join(root, "missing"))).rejects.toThrow("is not a directory");
		writeFileSync(join(root, "file"), "x");
		await expect(initProject(join(root, "file"))).rejects.toThrow("is not a directory");
		expect(readdirSync(root)).toEqual(["file"]);
	});
});

describe("running init again", () => {
	test("changes nothing: every file unchanged, no agents touched, mtimes kept", async () => {
		const root = freshRoot();
		await initProject(root);
		const files = walk(root).filter((f) => !f.includes("roundtable.db"));
		const before = new Map(files.map((f) => [f, statSync(join(root, f)).mtimeMs]));
		const contents = new Map(files.map((f) => [f, read(root, f)]));
		await Bun.sleep(30);

		const again = await initProject(root);
		expect(again.changed).toBe(false);
		expect(again.files).toEqual(FILES.map((path) => ({ path, action: "unchanged" })));
		expect(again.agents).toEqual({ added: [], updated: [], enabled: [], disabled: [] });
		expect(walk(root).filter((f) => !f.includes("roundtable.db"))).toEqual(files);
		for (const f of files) {
			expect({ f, mtime: statSync(join(root, f)).mtimeMs }).toEqual({ f, mtime: before.get(f) as number });
			expect(read(root, f)).toBe(contents.get(f) as string);
		}
	});

	test("the CLI says what it created, then that nothing changed", async () => {
		const root = freshRoot();
		const first = await runCli(["init", "--root", root]);
		expect(first.stderr).toBe("");
		expect(first.code).toBe(0);
		for (const rel of FILES) expect(first.stdout).toContain(`created ${rel}\n`);
		expect(first.stdout).toContain(
			"agents added: chair-1, architect-1, tester-1, security-1, memory-oracle-1, implementer-1, implementer-2, reviewer-1",
		);
		expect(first.stdout).toEndWith(`initialized roundtable in ${root}\n`);

		const second = await runCli(["init", "--root", root]);
		expect(second.code).toBe(0);
		expect(second.stderr).toBe("");
		expect(second.stdout).toBe(`roundtable is already initialized in ${root}; nothing changed\n`);
	});

	test("init says which agent CLIs it found on PATH, and which roles cannot be launched without the others", async () => {
		const root = freshRoot();
		const bin = tempDir("rt-bin-");
		writeFileSync(join(bin, "codex"), "#!/bin/sh\n", { mode: 0o755 });
		const r = await runCli(["init", "--root", root], {
			env: { ...process.env, PATH: `${bin}:/usr/bin:/bin` },
		});
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout).toContain("agent CLIs found on PATH: codex (tester, implementers)\n");
		expect(r.stdout).toContain(
			"agent CLIs not on PATH: claude (chair, architect, security, memory_oracle), gemini (reviewers); agents using them cannot be launched until the CLI is installed or agents.<role>.adapter in .roundtable/config.yaml names one that is\n",
		);
	});
});

describe("user edits", () => {
	test("a file the user edited is kept; --force overwrites it", async () => {
		const root = freshRoot();
		await initProject(root);
		const mine = "# Our own agent rules\n";
		writeFileSync(join(root, "AGENTS.ROUNDTABLE.md"), mine);

		const kept = await initProject(root);
		expect(actionOf(kept, "AGENTS.ROUNDTABLE.md")).toBe("kept");
		expect(kept.files.filter((f) => f.path !== "AGENTS.ROUNDTABLE.md").map((f) => f.action)).toEqual(
			Array(FILES.length - 1).fill("unchanged"),
		);
		expect(kept.changed).toBe(false);
		expect(read(root, "AGENTS.ROUNDTABLE.md")).toBe(mine);

		const forced = await initProject(root, { force: true });
		expect(actionOf(forced, "AGENTS.ROUNDTABLE.md")).toBe("overwritten");
		expect(forced.changed).toBe(true);
		expect(read(root, "AGENTS.ROUNDTABLE.md")).toBe(AGENTS_MD);

		// and after that it is init's own file again
		const after = await initProject(root);
		expect(actionOf(after, "AGENTS.ROUNDTABLE.md")).toBe("unchanged");
		expect(after.changed).toBe(false);
	});

	test("the CLI names a kept file and says how to overwrite it", async () => {
		const root = freshRoot();
		await initProject(root);
		writeFileSync(join(root, "PROJECT.ROUNDTABLE.md"), "# Our product\n");
		const kept = await runCli(["init", "--root", root]);
		expect(kept.code).toBe(0);
		expect(kept.stdout).toContain(
			"kept PROJECT.ROUNDTABLE.md (not as init wrote it, so left alone; --force overwrites it)\n",
		);
		expect(read(root, "PROJECT.ROUNDTABLE.md")).toBe("# Our product\n");

		const forced = await runCli(["init", "--root", root, "--force"]);
		expect(forced.code).toBe(0);
		expect(forced.stdout).toContain(
			"overwritten PROJECT.ROUNDTABLE.md (your edits were replaced: --force)\n",
		);
		expect(read(root, "PROJECT.ROUNDTABLE.md")).toBe(PROJECT_MD);
	});

	test("a file that existed before init (init never wrote it) is kept", async () => {
		const root = freshRoot();
		const theirs = "# Project\n\nA payments service. Never log card numbers.\n";
		writeFileSync(join(root, "PROJECT.ROUNDTABLE.md"), theirs);
		const report = await initProject(root);
		expect(actionOf(report, "PROJECT.ROUNDTABLE.md")).toBe("kept");
		expect(actionOf(report, "AGENTS.ROUNDTABLE.md")).toBe("created");
		expect(read(root, "PROJECT.ROUNDTABLE.md")).toBe(theirs);
		expect(actionOf(await initProject(root), "PROJECT.ROUNDTABLE.md")).toBe("kept");
		expect(read(root, "PROJECT.ROUNDTABLE.md")).toBe(theirs);
	});

	test("a config.yaml the user wrote is kept and governs the generated files and agents", async () => {
		const root = rootWithConfig(
			"mcp:\n  http_address: 127.0.0.1:9911\nagents:\n  implementers: { count: 3 }\n",
		);
		const report = await initProject(root);
		expect(actionOf(report, CONFIG)).toBe("kept");
		expect(read(root, CONFIG)).toContain("127.0.0.1:9911");
		const server = JSON.parse(read(root, ".roundtable/mcp/server.json"));
		expect(server.transports.streamable_http.url).toBe("http://127.0.0.1:9911/mcp");
		expect(read(root, ".roundtable/mcp/AGENT_MCP_MANIFEST.md")).toContain("http://127.0.0.1:9911/mcp");
		expect(report.agents.added).toContain("implementer-3");
	});

	test("editing config.yaml regenerates init's own files derived from it (updated), keeping the config", async () => {
		const root = freshRoot();
		await initProject(root);
		writeFileSync(
			join(root, CONFIG),
			templateWith("http_address: 127.0.0.1:7117", "http_address: 127.0.0.1:8123"),
		);
		const report = await initProject(root);
		expect(actionOf(report, CONFIG)).toBe("kept");
		expect(actionOf(report, ".roundtable/mcp/server.json")).toBe("updated");
		expect(actionOf(report, ".roundtable/mcp/AGENT_MCP_MANIFEST.md")).toBe("updated");
		expect(actionOf(report, ".roundtable/mcp/tools.schema.json")).toBe("unchanged");
		expect(report.changed).toBe(true);
		expect(JSON.parse(read(root, ".roundtable/mcp/server.json")).transports.streamable_http.url).toBe(
			"http://127.0.0.1:8123/mcp",
		);
	});

	test("an existing invalid config.yaml fails init with the ConfigError and writes nothing", async () => {
		const bad = "version: 1\nstorage:\n  sqlite_pth: x.db\n";
		const root = rootWithConfig(bad);
		let thrown: unknown;
		try {
			await initProject(root);
		} catch (err) {
			thrown = err;
		}
		expect(thrown).toBeInstanceOf(ConfigError);
		expect((thrown as ConfigError).message).toBe(
			".roundtable/config.yaml:3: unknown key 'storage.sqlite_pth' (did you mean 'storage.sqlite_path'?)",
		);
		expect(walk(root)).toEqual([".roundtable/config.yaml"]);
		expect(readdirSync(join(root, ".roundtable"))).toEqual(["config.yaml"]);
		expect(read(root, CONFIG)).toBe(bad);
	});

	test("the CLI reports an invalid config on stderr and exits 1", async () => {
		const root = rootWithConfig("agents:\n  tester:\n    adapter: codx\n");
		const out = await runCli(["init", "--root", root]);
		expect(out.code).toBe(1);
		expect(out.stdout).toBe("");
		expect(out.stderr).toContain(
			".roundtable/config.yaml:3: 'agents.tester.adapter' names unknown adapter 'codx' (did you mean 'codex'?)",
		);
		expect(existsSync(join(root, "POLICIES.ROUNDTABLE.md"))).toBe(false);
		expect(existsSync(join(root, ".roundtable", "roundtable.db"))).toBe(false);
	});

	test("an invalid edit to an initialized project changes nothing", async () => {
		const root = freshRoot();
		await initProject(root);
		writeFileSync(join(root, "AGENTS.ROUNDTABLE.md"), "# edited\n");
		writeFileSync(join(root, CONFIG), "mcp:\n  tls_cert_file: c.pem\n");
		const server = read(root, ".roundtable/mcp/server.json");
		await expect(initProject(root, { force: true })).rejects.toThrow(
			".roundtable/config.yaml:2: 'mcp.tls_cert_file' and 'mcp.tls_key_file' must be set together",
		);
		expect(read(root, "AGENTS.ROUNDTABLE.md")).toBe("# edited\n");
		expect(read(root, ".roundtable/mcp/server.json")).toBe(server);
	});
});

/** Deep merge of plain objects; later values win, lists replace. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = { ...base };
	for (const [k, v] of Object.entries(over)) {
		const b = out[k];
		out[k] =
			typeof b === "object" &&
			b !== null &&
			!Array.isArray(b) &&
			typeof v === "object" &&
			v !== null &&
			!Array.isArray(v)
				? deepMerge(b as Record<string, unknown>, v as Record<string, unknown>)
				: v;
	}
	return out;
}

describe("generated files", () => {
	test("POLICIES.ROUNDTABLE.md: its yaml blocks merge to exactly the default policy", async () => {
		const root = freshRoot();
		await initProject(root);
		const blocks = lexer(read(root, "POLICIES.ROUNDTABLE.md")).filter(
			(t): t is Tokens.Code => t.type === "code" && (t as Tokens.Code).lang === "yaml",
		);
		expect(blocks.length).toBeGreaterThan(0);
		const merged = blocks.reduce<Record<string, unknown>>(
			(acc, b) => deepMerge(acc, parseYaml(b.text) as Record<string, unknown>),
			{},
		);
		expect(merged).toEqual(DEFAULT_POLICY);
	});

	test("server.json describes how to reach this project", async () => {
		const root = freshRoot();
		await initProject(root);
		const server = JSON.parse(read(root, ".roundtable/mcp/server.json"));
		const socket = join(root, ".roundtable/mcp/roundtable.sock");
		expect(server.name).toBe("roundtable");
		expect(server.transport).toBe("unix");
		expect(isAbsolute(server.socket_path)).toBe(true);
		expect(server.socket_path).toBe(socket);
		expect(server.manifest_path).toBe(".roundtable/mcp/AGENT_MCP_MANIFEST.md");
		expect(server.tools_schema_path).toBe(".roundtable/mcp/tools.schema.json");
		expect(existsSync(join(root, server.manifest_path))).toBe(true);
		expect(existsSync(join(root, server.tools_schema_path))).toBe(true);
		expect(server.transports.streamable_http.url).toBe("http://127.0.0.1:7117/mcp");
		expect(server.transports.legacy_unix_socket.path).toBe(socket);

		// Run from the package (as the tests are), clients start the package's launcher by its absolute
		// path; the compiled binary names its own absolute path instead (test/binary.test.ts).
		const { command, args } = server.transports.stdio as { command: string; args: string[] };
		expect([command, ...args]).toEqual([join(REPO, "bin", "roundtable"), "mcp", "stdio", "--root", root]);
	});

	test("with a TLS certificate and key the HTTP URL is https", async () => {
		const root = rootWithConfig(
			"mcp:\n  http_address: 0.0.0.0:8443\n  tls_cert_file: certs/server.crt\n  tls_key_file: certs/server.key\n",
		);
		await initProject(root);
		const server = JSON.parse(read(root, ".roundtable/mcp/server.json"));
		expect(server.transports.streamable_http.url).toBe("https://0.0.0.0:8443/mcp");
		expect(read(root, ".roundtable/mcp/AGENT_MCP_MANIFEST.md")).toContain("`https://0.0.0.0:8443/mcp`");
	});

	test("an absolute socket_path in the config is used as is", async () => {
		const sock = join(freshRoot(), "rt.sock");
		const root = rootWithConfig(`mcp:\n  socket_path: ${sock}\n`);
		await initProject(root);
		const server = JSON.parse(read(root, ".roundtable/mcp/server.json"));
		expect(server.socket_path).toBe(sock);
		expect(server.transports.legacy_unix_socket.path).toBe(sock);
	});

	test("tools.schema.json lists every agent tool of the registry with a strict input schema", async () => {
		const root = freshRoot();
		await initProject(root);
		const { tools } = JSON.parse(read(root, ".roundtable/mcp/tools.schema.json")) as {
			tools: { name: string; description: string; input_schema: Record<string, unknown> }[];
		};
		expect(tools.length).toBe(61);
		expect(tools.map((t) => t.name)).toEqual(AGENT_TOOLS.map((t) => t.name));
		expect(new Set(tools.map((t) => t.name)).size).toBe(61);
		for (const t of tools) {
			expect(typeof t.description).toBe("string");
			expect(t.description.trim().length).toBeGreaterThan(0);
			expect({ name: t.name, type: t.input_schema.type, extra: t.input_schema.additionalProperties }).toEqual(
				{
					name: t.name,
					type: "object",
					extra: false,
				},
			);
		}
		const create = tools.find((t) => t.name === "task.create");
		expect(create?.input_schema.required).toEqual(expect.arrayContaining(["title", "body_md"]));
	});

	test("AGENT_MCP_MANIFEST.md has the mandatory sections and names every agent tool, and no other", async () => {
		const root = freshRoot();
		await initProject(root);
		const manifest = read(root, ".roundtable/mcp/AGENT_MCP_MANIFEST.md");
		const headings = lexer(manifest)
			.filter((t): t is Tokens.Heading => t.type === "heading")
			.map((t) => t.text);
		expect(headings).toEqual(
			expect.arrayContaining(["Mandatory rules", "Startup and resume checklist", "Turns"]),
		);
		for (const t of TOOLS)
			expect({ t: t.name, named: manifest.includes(`\`${t.name}\``) }).toEqual({
				t: t.name,
				named: t.visibility === "agent",
			});
		expect(manifest).toContain(`--root ${root}`);
	});

	test("the start-up checklist, and AGENTS.ROUNDTABLE.md, send an agent to agent.brief first", async () => {
		const root = freshRoot();
		await initProject(root);
		const tokens = lexer(read(root, ".roundtable/mcp/AGENT_MCP_MANIFEST.md"));
		const at = tokens.findIndex((t) => t.type === "heading" && t.text === "Startup and resume checklist");
		const checklist = tokens.slice(at + 1).find((t): t is Tokens.List => t.type === "list");
		expect(checklist?.ordered).toBe(true);
		expect(checklist?.items[0]?.text).toStartWith("`agent.brief`: ");
		expect(checklist?.items[1]?.text).toStartWith("`table.get_state`: ");
		const agents = lexer(read(root, "AGENTS.ROUNDTABLE.md"));
		const first = agents.filter((t): t is Tokens.Heading => t.type === "heading" && t.depth === 2)[0];
		expect(first?.text).toBe("Start here");
		const said = agents.slice(agents.indexOf(first as Tokens.Heading)).find((t) => t.type === "paragraph");
		expect(said?.raw).toStartWith("Call `agent.brief` first");
	});
});

describe("agents sync", () => {
	test("init registers the configured agents with their roles, one agent.registered event each", async () => {
		const p = await makeProject();
		const agents = await agentsIn(p);
		expect(agents.map((a) => [a.id, a.role, a.adapter]).sort()).toEqual([...DEFAULT_AGENTS].sort());
		for (const a of agents) {
			expect(a.enabled).toBe(true);
			expect(a.disabled_by).toBeNull();
		}
		expect((await agentIn(p, "tester-1")).command).toBe("codex");
		expect((await agentIn(p, "implementer-2")).name).toBe("Implementer 2");

		const registered = (await allEvents(p)).filter((e) => e.type === "agent.registered");
		expect(registered.map((e) => e.payload)).toEqual(
			DEFAULT_AGENTS.map(([agent_id, role, adapter]) => ({ agent_id, role, adapter })),
		);
		for (const e of registered) expect(e.actor_id).toBe("system");
	});

	test("the pools follow their counts", async () => {
		const p = await makeProject({
			config: "agents:\n  implementers: { count: 4 }\n  reviewers: { count: 2, adapter: claude }\n",
		});
		const ids = (await agentsIn(p)).map((a) => a.id).sort();
		expect(ids).toEqual(
			[
				"chair-1",
				"architect-1",
				"tester-1",
				"security-1",
				"memory-oracle-1",
				"implementer-1",
				"implementer-2",
				"implementer-3",
				"implementer-4",
				"reviewer-1",
				"reviewer-2",
			].sort(),
		);
		expect((await agentIn(p, "reviewer-2")).adapter).toBe("claude");
	});

	test("an agent the operator disabled stays disabled after another init", async () => {
		const p = await makeProject();
		const agent = await agentIn(p, "implementer-1");
		await p.rt.store.withTransaction("write", (tx) =>
			tx.agents.update({ ...agent, enabled: false, disabled_by: "operator" }, new Date().toISOString()),
		);
		const before = await lastEventId(p);
		const report = await initProject(p.root);
		expect(report.agents).toEqual({ added: [], updated: [], enabled: [], disabled: [] });
		expect(report.changed).toBe(false);
		const after = await agentIn(p, "implementer-1");
		expect(after.enabled).toBe(false);
		expect(after.disabled_by).toBe("operator");
		expect(await eventsAfter(p, before)).toEqual([]);
	});

	test("lowering a pool disables (never deletes) the extra agent; raising it enables it again", async () => {
		const p = await makeProject();
		const config = join(p.root, CONFIG);
		const start = await lastEventId(p);

		writeFileSync(config, templateWith("implementers: { count: 2,", "implementers: { count: 1,"));
		const lowered = await initProject(p.root);
		expect(lowered.agents).toEqual({ added: [], updated: [], enabled: [], disabled: ["implementer-2"] });
		expect(lowered.changed).toBe(true);
		const gone = await agentIn(p, "implementer-2");
		expect(gone.enabled).toBe(false);
		expect(gone.disabled_by).toBe("config");
		expect((await agentsIn(p)).length).toBe(8);
		const state = (await p.call("table.get_state")) as { agents: { id: string; enabled: boolean }[] };
		expect(state.agents.find((a) => a.id === "implementer-2")?.enabled).toBe(false);
		const disabledEvents = await eventsAfter(p, start);
		expect(disabledEvents.map((e) => [e.type, e.payload.agent_id])).toEqual([
			["agent.disabled", "implementer-2"],
		]);

		// running init again with the lowered count changes nothing more
		const mid = await lastEventId(p);
		expect((await initProject(p.root)).agents.disabled).toEqual([]);
		expect(await eventsAfter(p, mid)).toEqual([]);

		writeFileSync(config, CONFIG_TEMPLATE);
		const raised = await initProject(p.root);
		expect(raised.agents).toEqual({ added: [], updated: [], enabled: ["implementer-2"], disabled: [] });
		const back = await agentIn(p, "implementer-2");
		expect(back.enabled).toBe(true);
		expect(back.disabled_by).toBeNull();
		const enabledEvents = await eventsAfter(p, mid);
		expect(enabledEvents.map((e) => [e.type, e.payload.agent_id])).toEqual([
			["agent.enabled", "implementer-2"],
		]);
	});

	test("an operator-disabled agent that leaves and re-enters the config stays disabled", async () => {
		const p = await makeProject();
		const agent = await agentIn(p, "implementer-2");
		await p.rt.store.withTransaction("write", (tx) =>
			tx.agents.update({ ...agent, enabled: false, disabled_by: "operator" }, new Date().toISOString()),
		);
		const config = join(p.root, CONFIG);
		writeFileSync(config, templateWith("implementers: { count: 2,", "implementers: { count: 1,"));
		await initProject(p.root);
		writeFileSync(config, CONFIG_TEMPLATE);
		const raised = await initProject(p.root);
		expect(raised.agents.enabled).toEqual([]);
		const after = await agentIn(p, "implementer-2");
		expect(after.enabled).toBe(false);
		expect(after.disabled_by).toBe("operator");
	});

	test("changing a role's adapter updates the agent with an agent.updated event", async () => {
		const p = await makeProject();
		const before = await lastEventId(p);
		writeFileSync(
			join(p.root, CONFIG),
			templateWith(
				"tester: { role: Tester, adapter: codex, model: default }",
				"tester: { role: Tester, adapter: claude, model: default }",
			),
		);
		const report = await initProject(p.root);
		expect(report.agents).toEqual({ added: [], updated: ["tester-1"], enabled: [], disabled: [] });
		const tester = await agentIn(p, "tester-1");
		expect(tester.adapter).toBe("claude");
		expect(tester.command).toBe("claude");
		expect(tester.enabled).toBe(true);
		const events = await eventsAfter(p, before);
		expect(events.map((e) => e.type)).toEqual(["agent.updated"]);
		expect(events[0]?.payload).toEqual({
			agent_id: "tester-1",
			changes: {
				adapter: { from: "codex", to: "claude" },
				command: { from: "codex", to: "claude" },
			},
		});
	});

	test("merely opening a runtime syncs nothing", async () => {
		const p = await makeProject();
		const before = await lastEventId(p);
		const agentsBefore = await agentsIn(p);
		writeFileSync(
			join(p.root, CONFIG),
			templateWith("implementers: { count: 2, adapter: codex", "implementers: { count: 3, adapter: claude"),
		);
		const rt = openRuntime(p.root);
		try {
			expect(rt.config.agents.implementers.count).toBe(3);
			const ids = await rt.store.withTransaction("read", (tx) => tx.agents.ids());
			expect(ids).not.toContain("implementer-3");
		} finally {
			rt.close();
		}
		expect(await agentsIn(p)).toEqual(agentsBefore);
		expect(await eventsAfter(p, before)).toEqual([]);
	});
});
