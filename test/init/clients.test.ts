// `roundtable init --client codex|claude`: the project-local MCP client entry (.codex/config.toml,
// .mcp.json) that launches `roundtable mcp stdio` for this project. Only Roundtable's own entry is
// written; the rest of each file is kept; nothing outside the project (HOME) is touched.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
	write as put,
	REPO,
	type CliResult as Result,
	runCli,
	runProcess,
	tempDir,
} from "../_helpers/helpers.ts";
import { pathWithoutBun } from "../_helpers/install-helpers.ts";

const CODEX = ".codex/config.toml";
const CLAUDE = ".mcp.json";
const SERVER_JSON = ".roundtable/mcp/server.json";

/** A home directory of its own for every run, so that a write to global config would show. */
const homes: string[] = [];

/** `roundtable init --root <root> …` from source, with HOME (and the clients' config homes) in a temp dir. */
async function init(root: string, args: string[] = [], cwd?: string): Promise<Result> {
	const home = realpathSync(tempDir("rt-home-"));
	homes.push(home);
	return runCli(["init", "--root", root, ...args], {
		cwd: cwd ?? root,
		env: {
			...process.env,
			HOME: home,
			XDG_CONFIG_HOME: join(home, ".config"),
			XDG_DATA_HOME: join(home, ".local/share"),
			CODEX_HOME: join(home, ".codex"),
			CLAUDE_CONFIG_DIR: join(home, ".claude"),
			// Bun's own transpiler cache lives under HOME; it is not Roundtable's doing.
			BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
		},
	});
}

const project = () => realpathSync(tempDir("rt-clients-"));
const read = (root: string, rel: string) => readFileSync(join(root, rel), "utf8");

/** The package's launcher (bin/roundtable), by its absolute path: no bun on PATH, no registry. */
const LAUNCHER = join(REPO, "bin", "roundtable");

/** What a client run from source should be told to launch for this project. */
const expectedEntry = (root: string) => ({
	command: LAUNCHER,
	args: ["mcp", "stdio", "--root", root],
});

type CodexConfig = { mcp_servers?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
const codexConfig = (root: string) => Bun.TOML.parse(read(root, CODEX)) as CodexConfig;

type McpJson = { mcpServers?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
const mcpJson = (root: string) => JSON.parse(read(root, CLAUDE)) as McpJson;

const serverJsonStdio = (root: string) =>
	(JSON.parse(read(root, SERVER_JSON)) as { transports: { stdio: { command: unknown; args: unknown } } })
		.transports.stdio;

function ok(r: Result): Result {
	if (r.code !== 0) throw new Error(`init failed (${r.code}): ${r.stderr}`);
	expect(r.stderr).toBe("");
	return r;
}

describe("--client codex", () => {
	test("writes [mcp_servers.roundtable] with the stdio command line for this project", async () => {
		const root = project();
		const r = ok(await init(root, ["--client", "codex"]));
		expect(r.stdout).toContain(`created ${CODEX}`);
		const config = codexConfig(root);
		expect(Object.keys(config)).toEqual(["mcp_servers"]);
		expect(config.mcp_servers?.roundtable).toEqual(expectedEntry(root));
		expect(read(root, CODEX)).toContain("[mcp_servers.roundtable]\n");
	});

	test("the entry names the absolute root even when --root is relative", async () => {
		const root = project();
		ok(await init(basename(root), ["--client", "codex"], dirname(root)));
		const args = codexConfig(root).mcp_servers?.roundtable?.args as string[];
		expect(args.slice(-2)).toEqual(["--root", root]);
	});

	test("other settings, tables and servers are kept; an older roundtable table is replaced", async () => {
		const root = project();
		put(
			root,
			CODEX,
			`# my codex settings
model = "o3"

[projects."/some/where"]
trust_level = "trusted"

[mcp_servers.other]
command = "other-server"
args = ["--flag"] # a comment

[mcp_servers.roundtable]
command = "old-roundtable"
args = ["stdio"]
startup_timeout_sec = 5

[mcp_servers.roundtable.env]
ROUNDTABLE_OLD = "1"

[mcp_servers.roundtable_http]
url = "http://127.0.0.1:7117/mcp"

[mcp_servers.zeta]
command = "zeta"

[mcp_servers.zeta.env]
ZETA = "z"
`,
		);
		const r = ok(await init(root, ["--client", "codex"]));
		expect(r.stdout).toContain(`updated ${CODEX}`);
		const text = read(root, CODEX);
		// It still parses: the old table and its sub-table are gone, not duplicated.
		const config = codexConfig(root);
		expect(config.model).toBe("o3");
		expect(config.projects).toEqual({ "/some/where": { trust_level: "trusted" } });
		expect(config.mcp_servers).toEqual({
			other: { command: "other-server", args: ["--flag"] },
			roundtable: expectedEntry(root),
			roundtable_http: { url: "http://127.0.0.1:7117/mcp" },
			zeta: { command: "zeta", env: { ZETA: "z" } },
		});
		expect(text).toContain("# my codex settings");
		expect(text).toContain('args = ["--flag"] # a comment');
		expect(text).not.toContain("old-roundtable");
		expect(text).not.toContain("ROUNDTABLE_OLD");
		expect(text.match(/^\[mcp_servers\.roundtable\]/gm)).toHaveLength(1);
	});

	// Other valid ways to spell an older roundtable entry: the result must still be a config Codex can
	// read (ours replacing it), or else init must fail and leave the file as it was. Never a file
	// that no longer parses.
	test.each([
		["a quoted table name", '[mcp_servers."roundtable"]\ncommand = "old"\n'],
		["an inline table under [mcp_servers]", '[mcp_servers]\nroundtable = { command = "old" }\n'],
		["dotted keys", 'mcp_servers.roundtable.command = "old"\n'],
	])("an older entry written as %s never leaves an unreadable config", async (_what, content) => {
		const root = project();
		put(root, CODEX, content);
		expect(() => codexConfig(root)).not.toThrow();
		const r = await init(root, ["--client", "codex"]);
		if (r.code === 0) {
			expect(() => codexConfig(root)).not.toThrow();
			expect(codexConfig(root).mcp_servers?.roundtable).toEqual(expectedEntry(root));
		} else {
			expect(r.stderr).toContain(CODEX);
			expect(read(root, CODEX)).toBe(content);
		}
	});

	test("a second run changes nothing and says so", async () => {
		const root = project();
		put(root, CODEX, '[mcp_servers.other]\ncommand = "x"\n');
		ok(await init(root, ["--client", "codex"]));
		const first = read(root, CODEX);
		const again = ok(await init(root, ["--client", "codex"]));
		expect(again.stdout).toBe(`roundtable is already initialized in ${root}; nothing changed\n`);
		expect(read(root, CODEX)).toBe(first);
	});

	test("an entry edited by hand is put back", async () => {
		const root = project();
		ok(await init(root, ["--client", "codex"]));
		const first = read(root, CODEX);
		put(root, CODEX, first.replace(JSON.stringify(LAUNCHER), '"somewhere-else"'));
		const r = ok(await init(root, ["--client", "codex"]));
		expect(r.stdout).toContain(`updated ${CODEX}`);
		expect(read(root, CODEX)).toBe(first);
	});
});

describe("--client claude", () => {
	test('writes .mcp.json {"mcpServers":{"roundtable":{type,command,args}}}', async () => {
		const root = project();
		const r = ok(await init(root, ["--client", "claude"]));
		expect(r.stdout).toContain(`created ${CLAUDE}`);
		expect(mcpJson(root)).toEqual({
			mcpServers: { roundtable: { type: "stdio", ...expectedEntry(root) } },
		});
	});

	test("other servers and other keys are kept; an older roundtable entry is replaced", async () => {
		const root = project();
		const other = { type: "stdio", command: "other", args: ["x"], env: { A: "1" } };
		const http = { type: "http", url: "http://127.0.0.1:7117/mcp" };
		put(
			root,
			CLAUDE,
			JSON.stringify({
				$comment: "kept",
				mcpServers: {
					other,
					roundtable: { type: "stdio", command: "old", args: ["stdio"], env: { OLD: "1" } },
					roundtable_http: http,
				},
			}),
		);
		const r = ok(await init(root, ["--client", "claude"]));
		expect(r.stdout).toContain(`updated ${CLAUDE}`);
		expect(mcpJson(root)).toEqual({
			$comment: "kept",
			mcpServers: {
				other,
				roundtable: { type: "stdio", ...expectedEntry(root) },
				roundtable_http: http,
			},
		});
	});

	test("an empty .mcp.json is filled in", async () => {
		const root = project();
		put(root, CLAUDE, "  \n");
		ok(await init(root, ["--client", "claude"]));
		expect(mcpJson(root).mcpServers?.roundtable).toEqual({ type: "stdio", ...expectedEntry(root) });
	});

	test.each([
		["invalid JSON", '{"mcpServers": {"other": {"command": "x",}}}', "not valid JSON"],
		["JSON that is not an object", '[{"mcpServers": {}}]', "not a JSON object"],
		["null", "null", "not a JSON object"],
	])("%s: init fails with a clear message and leaves the file alone", async (_what, content, message) => {
		const root = project();
		put(root, CLAUDE, content);
		const r = await init(root, ["--client", "claude"]);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain(".mcp.json");
		expect(r.stderr).toContain(message);
		expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
		expect(read(root, CLAUDE)).toBe(content);
	});

	test("a second run changes nothing and says so", async () => {
		const root = project();
		ok(await init(root, ["--client", "claude"]));
		const first = read(root, CLAUDE);
		const again = ok(await init(root, ["--client", "claude"]));
		expect(again.stdout).toBe(`roundtable is already initialized in ${root}; nothing changed\n`);
		expect(read(root, CLAUDE)).toBe(first);
	});
});

describe("both clients", () => {
	test("server.json's stdio transport is the command line both client entries run", async () => {
		const root = project();
		ok(await init(root, ["--client", "codex"]));
		ok(await init(root, ["--client", "claude"]));
		const stdio = serverJsonStdio(root);
		expect(stdio).toEqual(expectedEntry(root));
		const codex = codexConfig(root).mcp_servers?.roundtable;
		expect({ command: codex?.command, args: codex?.args }).toEqual(stdio);
		const claude = mcpJson(root).mcpServers?.roundtable;
		expect({ command: claude?.command, args: claude?.args }).toEqual(stdio);
	});

	test("the entry runs Roundtable's bridge from any folder, with no bun on PATH", async () => {
		const root = project();
		ok(await init(root, ["--client", "claude"]));
		const entry = mcpJson(root).mcpServers?.roundtable;
		const [command, args] = [entry?.command as string, entry?.args as string[]];
		const elsewhere = realpathSync(tempDir("rt-elsewhere-"));
		const env = { PATH: pathWithoutBun(), HOME: elsewhere };
		// No owner runs for this project, so the bridge itself says so: Roundtable ran, not "bun: not found".
		const r = await runProcess([command, ...args], { cwd: elsewhere, env });
		expect(r.stderr).toStartWith("roundtable mcp stdio: no Roundtable owner");
		expect(r.code).toBe(1);
	});

	test("init without --client writes no client file", async () => {
		const root = project();
		ok(await init(root));
		expect(readdirSync(root).sort()).not.toContain(".codex");
		expect(readdirSync(root)).not.toContain(CLAUDE);
	});

	test("no global configuration is touched: HOME stays empty", async () => {
		const root = project();
		ok(await init(root, ["--client", "codex"]));
		ok(await init(root, ["--client", "claude"]));
		ok(await init(root, ["--client", "codex"]));
		expect(homes.length).toBeGreaterThanOrEqual(3);
		for (const home of homes) expect(readdirSync(home, { recursive: true })).toEqual([]);
	});
});

describe("--client validation", () => {
	test("an unknown client is a usage error (exit 2) that names the valid ones; nothing is written", async () => {
		const root = project();
		const r = await init(root, ["--client", "nope"]);
		expect(r.code).toBe(2);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain("--client must be codex, claude or both as codex,claude (was 'nope')");
		expect(readdirSync(root)).toEqual([]);
	});

	test("--client codex,claude writes both entries, the same command in each", async () => {
		const root = project();
		const r = ok(await init(root, ["--client", "codex,claude"]));
		expect(r.stdout).toContain(`created ${CODEX}`);
		expect(r.stdout).toContain(`created ${CLAUDE}`);
		const codex = codexConfig(root).mcp_servers?.roundtable;
		const claude = mcpJson(root).mcpServers?.roundtable;
		expect(codex).toEqual(expectedEntry(root));
		expect(claude).toEqual({ type: "stdio", ...expectedEntry(root) });
	});

	test("one bad name in a list writes nothing", async () => {
		const root = project();
		const r = await init(root, ["--client", "codex,nope"]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("(was 'nope')");
		expect(readdirSync(root)).toEqual([]);
	});

	test.each([
		["codx", "codex"],
		["cladue", "claude"],
		["Claude", "claude"],
	])("--client %s suggests %s", async (given, near) => {
		const root = project();
		const r = await init(root, ["--client", given]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(`did you mean '${near}'?`);
		expect(readdirSync(root)).toEqual([]);
	});

	test("--client without a value is a usage error", async () => {
		const root = project();
		const r = await init(root, ["--client"]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("--client needs a value");
	});
});

describe("the client files stay out of git", () => {
	const git = (root: string, ...args: string[]) =>
		Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: root });

	test("init --client adds them to .gitignore, once, beside what it held; git then ignores them", async () => {
		const root = project();
		git(root, "init", "-q");
		put(root, ".gitignore", "node_modules/");
		ok(await init(root, ["--client", "codex,claude"]));
		expect(read(root, ".gitignore")).toBe(
			"node_modules/\n\n# Roundtable's MCP client entries: absolute paths of this machine (roundtable init --client)\n/.codex/config.toml\n/.mcp.json\n",
		);
		const status = git(root, "status", "--porcelain", "--untracked-files=all").stdout.toString();
		expect(status).not.toContain(CODEX);
		expect(status).not.toContain(CLAUDE);
		// Again: nothing more is added.
		const again = ok(await init(root, ["--client", "codex,claude"]));
		expect(again.stdout).not.toContain(".gitignore");
		expect(read(root, ".gitignore").match(/\/\.mcp\.json/g)).toHaveLength(1);
	});

	test("a client file git already tracks (a team's .mcp.json) is named at the end: do not commit our entry", async () => {
		const root = project();
		git(root, "init", "-q");
		put(root, CLAUDE, '{"mcpServers":{"team":{"command":"team-server"}}}\n');
		git(root, "add", CLAUDE);
		git(root, "commit", "-qm", "team servers");
		const r = ok(await init(root, ["--client", "codex,claude"]));
		const lines = r.stdout.trim().split("\n");
		expect(lines.at(-1)).toBe(
			"do not commit the roundtable entry in .mcp.json: git tracks it, and the entry holds this machine's absolute paths",
		);
		expect(read(root, ".gitignore")).toContain("/.codex/config.toml\n");
		expect(read(root, ".gitignore")).not.toContain(".mcp.json");
	});
});
