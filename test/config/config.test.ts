// config.yaml: real YAML merged over the defaults; every bad input is a ConfigError that names the
// file, the line and the key, with a did-you-mean where one helps.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { type Config, defaultConfig } from "../../src/config/defaults.ts";
import { ConfigError, loadConfig, parseConfig } from "../../src/config/load.ts";
import { CONFIG_TEMPLATE } from "../../src/init/config-template.ts";
import { tempDir } from "../_helpers/helpers.ts";

const parse = (text: string): Config => parseConfig(text, "config.yaml");

/** The ConfigError parsing `text` throws; fails the test if it parses or throws anything else. */
function configError(text: string): ConfigError {
	let thrown: unknown;
	try {
		parse(text);
	} catch (err) {
		thrown = err;
	}
	if (thrown === undefined) throw new Error(`expected a ConfigError, but the config parsed:\n${text}`);
	expect(thrown).toBeInstanceOf(ConfigError);
	return thrown as ConfigError;
}

/** Joins lines into a file; the n-th element is line n. */
const lines = (...ls: string[]) => `${ls.join("\n")}\n`;

/** A project directory whose .roundtable/config.yaml holds `text`. */
function projectWithConfig(text: string): string {
	const root = tempDir();
	mkdirSync(join(root, ".roundtable"));
	writeFileSync(join(root, ".roundtable", "config.yaml"), text);
	return root;
}

describe("defaults", () => {
	test("an empty file is exactly the built-in defaults", () => {
		expect(parse("")).toEqual(defaultConfig());
	});

	test("a file of only comments and blank lines is the defaults", () => {
		expect(parse("# nothing here yet\n\n   # still nothing\n")).toEqual(defaultConfig());
	});

	test("the config.yaml init writes parses to exactly the defaults (template has not drifted)", () => {
		expect(parse(CONFIG_TEMPLATE)).toEqual(defaultConfig());
	});

	test("the template spells out every default key", () => {
		// Guards the other direction: a default missing from the template would still parse equal.
		const doc = parseYaml(CONFIG_TEMPLATE) as Record<string, unknown>;
		const keysOf = (v: unknown, prefix = ""): string[] =>
			typeof v === "object" && v !== null && !Array.isArray(v)
				? Object.entries(v).flatMap(([k, c]) => keysOf(c, `${prefix}${k}.`))
				: [prefix.slice(0, -1)];
		expect(keysOf(doc).sort()).toEqual(keysOf(defaultConfig()).sort());
	});

	test("defaultConfig returns a fresh copy each call", () => {
		const a = defaultConfig();
		a.tests.allowed_commands.push("evil");
		a.agents.implementers.count = 99;
		expect(defaultConfig().tests.allowed_commands).not.toContain("evil");
		expect(parse("").agents.implementers.count).toBe(2);
	});

	test("the defaults named in the spec", () => {
		const c = defaultConfig();
		expect(c.storage.sqlite_path).toBe(".roundtable/roundtable.db");
		expect(c.mcp.socket_path).toBe(".roundtable/mcp/roundtable.sock");
		expect(c.mcp.http_address).toBe("127.0.0.1:7117");
		expect(c.turns.lease_seconds).toBe(600);
		expect(c.claims.default_ttl_seconds).toBe(900);
		expect(c.tests.timeout_seconds).toBe(600);
		expect(c.tests.max_output_bytes).toBe(4 * 1024 * 1024);
		expect(c.limits).toEqual({
			max_frame_bytes: 16 * 1024 * 1024,
			read_deadline_seconds: 30,
			write_deadline_seconds: 30,
			max_connections: 256,
			max_http_connections: 512,
			max_patch_bytes: 2 * 1024 * 1024,
			max_revisions_per_proposal: 50,
			max_open_proposals_per_task: 20,
		});
		expect(c.idempotency.ttl_hours).toBe(24);
		expect(c.sandbox.expose).toEqual([]);
		expect(c.adapters.codex?.env).toEqual(["OPENAI_API_KEY", "CODEX_*"]);
	});
});

describe("real YAML", () => {
	test("block lists, flow lists and comments", () => {
		const c = parse(
			lines(
				"# a comment line",
				"tests:",
				"  allowed_commands:   # trailing comment",
				"    - bun test",
				"    # a comment between items",
				"    - make check",
				"  env_allowlist: [PATH, HOME] # flow list",
			),
		);
		expect(c.tests.allowed_commands).toEqual(["bun test", "make check"]);
		expect(c.tests.env_allowlist).toEqual(["PATH", "HOME"]);
	});

	test("flow maps", () => {
		const c = parse("agents:\n  tester: { role: QA, adapter: claude, model: opus }\nstorage: {wal: false}\n");
		expect(c.agents.tester).toEqual({ role: "QA", adapter: "claude", model: "opus" });
		expect(c.storage).toEqual({ sqlite_path: ".roundtable/roundtable.db", wal: false });
	});

	test("anchors and aliases", () => {
		const c = parse(
			lines(
				"agents:",
				"  implementers: &pool { count: 3, adapter: claude, model: big }",
				"  reviewers: *pool",
				"tests:",
				"  env_allowlist: &envs [PATH, TERM]",
			),
		);
		expect(c.agents.implementers).toEqual({ count: 3, adapter: "claude", model: "big" });
		expect(c.agents.reviewers).toEqual({ count: 3, adapter: "claude", model: "big" });
		expect(c.tests.env_allowlist).toEqual(["PATH", "TERM"]);
	});

	test("<< merge keys", () => {
		const c = parse(
			lines(
				"adapters:",
				"  codex: &base",
				"    command: codex",
				"    supports_resume: false",
				"    resume_pattern: ''",
				"  mycodex:",
				"    <<: *base",
				"    command: /opt/bin/mycodex",
				"agents:",
				"  tester: { adapter: mycodex }",
			),
		);
		expect(c.adapters.mycodex).toEqual({
			command: "/opt/bin/mycodex",
			headless: "",
			headless_resume: "",
			supports_resume: false,
			resume_pattern: "",
			// not set by the file or the merged anchor: blank, as for any new adapter
			supports_mcp: false,
			supports_readonly_workspace: false,
			captures_session_id: false,
			env: [],
			egress: [],
		});
		expect(c.agents.tester.adapter).toBe("mycodex");
	});

	test("an unknown key brought in by a << merge is still an error", () => {
		const e = configError(
			lines(
				"adapters:",
				"  codex: &base",
				"    command: codex",
				"    comand: typo",
				"  custom:",
				"    <<: *base",
			),
		);
		expect(e.message).toStartWith("config.yaml:4: unknown key 'adapters.codex.comand'");
	});

	test("YAML 1.2 semantics: 'yes' is a string, not a boolean", () => {
		expect(configError("storage:\n  wal: yes\n").message).toBe(
			`config.yaml:2: 'storage.wal' must be boolean (was "yes")`,
		);
	});
});

describe("merging over the defaults", () => {
	test("user values override deeply; untouched defaults remain", () => {
		const c = parse(
			lines(
				"project_name: Demo",
				"mcp:",
				"  http_address: 127.0.0.1:9000",
				"agents:",
				"  tester:",
				"    model: gpt-x",
				"  implementers:",
				"    count: 5",
				"adapters:",
				"  codex:",
				"    command: /usr/local/bin/codex",
				"limits:",
				"  max_connections: 10",
			),
		);
		const want = defaultConfig();
		want.project_name = "Demo";
		want.mcp.http_address = "127.0.0.1:9000";
		want.agents.tester.model = "gpt-x";
		want.agents.implementers.count = 5;
		const codex = want.adapters.codex;
		if (!codex) throw new Error("no default codex adapter");
		codex.command = "/usr/local/bin/codex";
		want.limits.max_connections = 10;
		expect(c).toEqual(want);
		// spot checks a reader would make
		expect(c.agents.tester).toEqual({ role: "Tester", adapter: "codex", model: "gpt-x" });
		expect(c.adapters.codex?.resume_pattern).toBe("codex resume {{external_session_id}}");
		expect(c.mcp.socket_path).toBe(".roundtable/mcp/roundtable.sock");
	});

	test("a list in the file replaces the default list rather than appending to it", () => {
		const c = parse("tests:\n  allowed_commands: [bun test]\n");
		expect(c.tests.allowed_commands).toEqual(["bun test"]);
		expect(c.tests.env_allowlist).toEqual(defaultConfig().tests.env_allowlist);
	});

	test("a new adapter name is allowed and starts from blank values merged with the file", () => {
		const c = parse(
			lines(
				"adapters:",
				"  aider:",
				"    command: aider --yes",
				"    supports_mcp: true",
				"agents:",
				"  reviewers: { adapter: aider }",
			),
		);
		expect(c.adapters.aider).toEqual({
			command: "aider --yes",
			headless: "",
			headless_resume: "",
			supports_resume: false,
			resume_pattern: "",
			supports_mcp: true,
			supports_readonly_workspace: false,
			captures_session_id: false,
			env: [],
			egress: [],
		});
		expect(c.agents.reviewers).toEqual({ count: 1, adapter: "aider", model: "default" });
		// the built-in adapters are still there
		expect(Object.keys(c.adapters).sort()).toEqual(
			["aider", "claude", "codex", "gemini", "generic", "opencode"].sort(),
		);
	});

	test("a new adapter that no role uses may leave its command empty", () => {
		const c = parse("adapters:\n  later: { supports_mcp: true }\n");
		expect(c.adapters.later?.command).toBe("");
	});

	test("parsing does not leak one file's values into the next parse", () => {
		parse("agents:\n  implementers: { count: 7 }\n");
		expect(parse("")).toEqual(defaultConfig());
	});
});

describe("errors name the file, the line and the key", () => {
	test("unknown key with did-you-mean, on the right line", () => {
		const e = configError(
			lines(
				"# Roundtable configuration", // 1
				"version: 1", // 2
				"project_name: Demo", // 3
				"", // 4
				"storage:", // 5
				"  wal: true", // 6
				"  sqlite_pth: .roundtable/x.db", // 7
			),
		);
		expect(e.message).toBe(
			"config.yaml:7: unknown key 'storage.sqlite_pth' (did you mean 'storage.sqlite_path'?)",
		);
		expect(e.file).toBe("config.yaml");
		expect(e.line).toBe(7);
		expect(e.key).toBe("storage.sqlite_pth");
	});

	test("the file name given to parseConfig is the one in the message", () => {
		expect(parseConfigError("storage:\n  wol: true\n", "custom.yml").message).toBe(
			"custom.yml:2: unknown key 'storage.wol' (did you mean 'storage.wal'?)",
		);
	});

	test("unknown top-level key, with and without a near match", () => {
		expect(configError("version: 1\nprojct_name: x\n").message).toBe(
			"config.yaml:2: unknown key 'projct_name' (did you mean 'project_name'?)",
		);
		expect(configError("version: 1\n\nwidgets: 3\n").message).toBe("config.yaml:3: unknown key 'widgets'");
	});

	test("sandbox.expose takes absolute folders (or ~/…), never / or a .roundtable/, and names the entry", () => {
		expect(parse("sandbox:\n  expose: [~/.pyenv, /opt/go/]\n").sandbox.expose).toEqual([
			`${homedir()}/.pyenv`,
			"/opt/go/",
		]);
		for (const [entry, line] of [
			["relative/dir", 3],
			["/", 3],
			["/srv/p/.roundtable", 3],
		] as const) {
			const e = configError(lines("sandbox:", "  expose:", `    - ${entry}`));
			expect(e.message).toBe(
				`config.yaml:${line}: 'sandbox.expose[0]' must be an absolute folder (or ~/…) other than / and outside any .roundtable/ (was '${entry}')`,
			);
		}
	});

	test("unknown field of a built-in adapter", () => {
		expect(configError(lines("adapters:", "  codex:", "    comand: codex")).message).toBe(
			"config.yaml:3: unknown key 'adapters.codex.comand' (did you mean 'adapters.codex.command'?)",
		);
	});

	test("unknown field of a new adapter", () => {
		expect(
			configError(lines("adapters:", "  aider:", "    command: aider", "    supports_resum: true")).message,
		).toBe(
			"config.yaml:4: unknown key 'adapters.aider.supports_resum' (did you mean 'adapters.aider.supports_resume'?)",
		);
	});

	test("unknown key inside a flow map", () => {
		expect(configError("version: 1\nagents:\n  tester: { role: QA, modl: x }\n").message).toBe(
			"config.yaml:3: unknown key 'agents.tester.modl' (did you mean 'agents.tester.model'?)",
		);
	});

	test("wrong type", () => {
		const e = configError(lines("version: 1", "storage:", "  wal: 1"));
		expect(e.message).toBe("config.yaml:3: 'storage.wal' must be boolean (was 1)");
		expect(e.key).toBe("storage.wal");
		expect(configError("tests:\n  allowed_commands: npm test\n").message).toBe(
			"config.yaml:2: 'tests.allowed_commands' must be an array (was string)",
		);
		expect(configError("storage: 5\n").message).toBe(
			"config.yaml:1: 'storage' must be an object (was a number)",
		);
		expect(configError("project_name: ''\n").message).toBe(
			`config.yaml:1: 'project_name' must be a non-empty string (was "")`,
		);
		expect(configError("version: 2\n").message).toBe("config.yaml:1: 'version' must be 1 (was 2)");
	});

	test("out-of-range and non-integer numbers", () => {
		expect(configError(lines("agents:", "  reviewers:", "    count: -1")).message).toBe(
			"config.yaml:3: 'agents.reviewers.count' must be an integer from 0 to 256 (was -1)",
		);
		expect(configError("agents:\n  implementers: { count: 257 }\n").message).toBe(
			"config.yaml:2: 'agents.implementers.count' must be an integer from 0 to 256 (was 257)",
		);
		expect(configError("turns:\n  lease_seconds: 1.5\n").message).toBe(
			"config.yaml:2: 'turns.lease_seconds' must be a positive integer (was 1.5)",
		);
		expect(configError("turns:\n  lease_seconds: 0\n").message).toBe(
			"config.yaml:2: 'turns.lease_seconds' must be a positive integer (was 0)",
		);
		expect(configError("idempotency:\n  ttl_hours: -1\n").message).toBe(
			"config.yaml:2: 'idempotency.ttl_hours' must be an integer of zero or more (was -1)",
		);
	});

	test("zero is a valid pool size", () => {
		expect(parse("agents:\n  reviewers: { count: 0 }\n").agents.reviewers.count).toBe(0);
	});

	test("a role naming an unknown adapter, with did-you-mean", () => {
		const e = configError(lines("version: 1", "agents:", "  tester:", "    adapter: codx"));
		expect(e.message).toBe(
			"config.yaml:4: 'agents.tester.adapter' names unknown adapter 'codx' (did you mean 'codex'?)",
		);
		expect(e.key).toBe("agents.tester.adapter");
		expect(configError("agents:\n  reviewers: { adapter: nothing-like-it }\n").message).toBe(
			"config.yaml:2: 'agents.reviewers.adapter' names unknown adapter 'nothing-like-it'",
		);
	});

	test("an adapter used by a role must have a command", () => {
		expect(
			configError(lines("adapters:", "  codex:", "    supports_mcp: true", '    command: "  "')).message,
		).toBe("config.yaml:4: adapter 'codex' is used by 'agents.tester' but has no command");
		// a new adapter starts blank, so using it without a command is the same error
		expect(
			configError(
				lines("agents:", "  chair: { adapter: aider }", "adapters:", "  aider:", "    supports_mcp: true"),
			).message,
		).toBe("config.yaml:4: adapter 'aider' is used by 'agents.chair' but has no command");
	});

	test("TLS cert and key must be set together", () => {
		expect(
			configError(lines("mcp:", "  http_address: 127.0.0.1:7117", "  tls_cert_file: cert.pem")).message,
		).toBe("config.yaml:3: 'mcp.tls_cert_file' and 'mcp.tls_key_file' must be set together");
		expect(configError("mcp:\n  tls_key_file: key.pem\n").message).toBe(
			"config.yaml:2: 'mcp.tls_cert_file' and 'mcp.tls_key_file' must be set together",
		);
		const c = parse("mcp:\n  tls_cert_file: cert.pem\n  tls_key_file: key.pem\n");
		expect(c.mcp.tls_cert_file).toBe("cert.pem");
	});

	test("http_address must be host:port", () => {
		for (const bad of ["localhost", "127.0.0.1", "127.0.0.1:70000", "http://127.0.0.1:7117", "host:port"]) {
			expect(configError(`mcp:\n  http_address: "${bad}"\n`).message).toBe(
				`config.yaml:2: 'mcp.http_address' must be host:port (was '${bad}')`,
			);
		}
		for (const good of ["0.0.0.0:80", "localhost:7117", "[::1]:7117", "example.com:65535"]) {
			expect(parse(`mcp:\n  http_address: "${good}"\n`).mcp.http_address).toBe(good);
		}
	});

	test("an interpreter alone, or with an eval flag, in tests.allowed_commands is refused, naming the entry", () => {
		const e = configError(lines("tests:", "  allowed_commands:", "    - npm test", "    - python"));
		expect(e.message).toBe(
			"config.yaml:4: 'tests.allowed_commands[1]' lets any program run ('python'): name a test entry point, e.g. 'npm test' or 'python -m pytest'",
		);
		expect(e.key).toBe("tests.allowed_commands[1]");
		for (const bare of [
			"sh",
			"bash",
			"node",
			"bun",
			"npx",
			"env",
			"sh -c",
			"node -e",
			"python3 -c",
			"bun --eval",
		]) {
			expect(configError(`tests:\n  allowed_commands: [${bare}]\n`).message).toContain(
				"lets any program run",
			);
		}
		expect(
			parse("tests:\n  allowed_commands: [python -m pytest, bun test]\n").tests.allowed_commands,
		).toEqual(["python -m pytest", "bun test"]);
	});

	test("invalid YAML syntax is reported on the line where it is", () => {
		const e = configError(
			lines(
				"version: 1", // 1
				"project_name: x", // 2
				"storage:", // 3
				"  wal: true: false", // 4
				"mcp:", // 5
				"  transport: unix", // 6
			),
		);
		expect(e.message).toStartWith("config.yaml:4: invalid YAML: ");
		expect(e.line).toBe(4);
	});

	test("tab indentation is a YAML error on its line", () => {
		const e = configError("version: 1\nproject_name: x\nstorage:\n\twal: true\n");
		expect(e.message).toStartWith("config.yaml:4: invalid YAML: Tabs are not allowed as indentation");
	});

	test("a duplicate key is an error on the line of the second one", () => {
		const e = configError(
			lines(
				"version: 1", // 1
				"project_name: x", // 2
				"", // 3
				"storage:", // 4
				"  wal: true", // 5
				"  wal: false", // 6
			),
		);
		expect(e.message).toStartWith("config.yaml:6: invalid YAML: Map keys must be unique");
	});

	test("an alias to an undefined anchor is a ConfigError on its line", () => {
		const e = configError(lines("version: 1", "agents:", "  tester: *nope"));
		expect(e.message).toStartWith("config.yaml:3: ");
		expect(e.message).toContain("nope");
	});

	test("a top level that is not a mapping", () => {
		expect(configError("- a\n- b\n").message).toBe(
			"config.yaml:1: the config must be a mapping of keys to values",
		);
		expect(configError("just a string\n").message).toBe(
			"config.yaml:1: the config must be a mapping of keys to values",
		);
	});
});

/** What `fn` throws; fails when it returns. */
function thrownBy(fn: () => unknown): unknown {
	try {
		fn();
	} catch (err) {
		return err;
	}
	throw new Error("expected an error, but the call returned");
}

/** parseConfig with another file name; returns the ConfigError. */
function parseConfigError(text: string, file: string): ConfigError {
	try {
		parseConfig(text, file);
	} catch (err) {
		if (err instanceof ConfigError) return err;
		throw err;
	}
	throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
	test("reads .roundtable/config.yaml under the root", () => {
		const root = projectWithConfig("project_name: Loaded\nagents:\n  implementers: { count: 4 }\n");
		const c = loadConfig(root);
		expect(c.project_name).toBe("Loaded");
		expect(c.agents.implementers.count).toBe(4);
		expect(c.storage).toEqual(defaultConfig().storage);
	});

	test("errors name the project-relative config path and the line", () => {
		const root = projectWithConfig("version: 1\nstorage:\n  sqlite_pth: x.db\n");
		const err = thrownBy(() => loadConfig(root));
		expect(err).toBeInstanceOf(ConfigError);
		expect((err as ConfigError).message).toBe(
			".roundtable/config.yaml:3: unknown key 'storage.sqlite_pth' (did you mean 'storage.sqlite_path'?)",
		);
		expect((err as ConfigError).file).toBe(".roundtable/config.yaml");
	});

	test("a missing config file says to run `roundtable init`", () => {
		const err = thrownBy(() => loadConfig(tempDir()));
		expect(err).toBeInstanceOf(ConfigError);
		const message = (err as ConfigError).message;
		expect(message).toStartWith(".roundtable/config.yaml");
		expect(message).toContain("not found");
		expect(message).toContain("run `roundtable init`");
	});

	test("an empty config file loads the defaults", () => {
		expect(loadConfig(projectWithConfig(""))).toEqual(defaultConfig());
	});
});
