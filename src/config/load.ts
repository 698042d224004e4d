// Reads .roundtable/config.yaml: real YAML, validated, merged over the defaults. Every error names
// the file, the line and the dotted key, and suggests the nearest valid key for an unknown one.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, normalize } from "node:path";
import { problemText } from "../domain/scalars.ts";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { dotted, isPlainObject, type KeyPath as Path, readYaml } from "../domain/yaml-source.ts";
import { type } from "../vocabulary/arktype.ts";
import { type AdapterConfig, type Config, defaultConfig, FIXED_ROLES } from "./defaults.ts";
import { CONFIG_PATH } from "./paths.ts";
import { configFileSchema } from "./schema.ts";

export { CONFIG_PATH };

export class ConfigError extends Error {
	constructor(
		readonly file: string,
		readonly line: number,
		readonly key: string,
		detail: string,
	) {
		super(`${file}:${line}: ${detail}`);
		this.name = "ConfigError";
	}
}

/** Loads and validates the project's config; throws ConfigError. */
export function loadConfig(root: string): Config {
	const file = join(root, CONFIG_PATH);
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (err) {
		const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
		throw new ConfigError(
			CONFIG_PATH,
			0,
			"",
			missing
				? "not found: this directory is not a Roundtable project (run `roundtable init`)"
				: `cannot read: ${(err as Error).message}`,
		);
	}
	return parseConfig(text, CONFIG_PATH);
}

/** Parses config text; `file` is the name used in error messages. */
export function parseConfig(text: string, file = CONFIG_PATH): Config {
	const { data: parsed, lineOf } = readYaml(text, 0, (line, detail) => {
		throw new ConfigError(file, line, "", detail);
	});
	const fail = (path: Path, detail: string): never => {
		throw new ConfigError(file, lineOf(path), dotted(path), detail);
	};

	const data = parsed ?? {};
	if (!isPlainObject(data)) return fail([], "the config must be a mapping of keys to values");

	rejectUnknownKeys(data, defaultConfig(), [], fail);

	const checked = configFileSchema(data);
	if (checked instanceof type.errors) {
		const problem = checked[0];
		const path = (problem?.path ?? []) as Path;
		fail(path, `'${dotted(path)}' ${problem ? problemText(problem) : "is invalid"}`);
	}

	const config = merge(defaultConfig(), data) as Config;
	for (const name of Object.keys((data.adapters as object | undefined) ?? {})) {
		const defaults = defaultConfig().adapters[name] ?? blankAdapter();
		config.adapters[name] = { ...defaults, ...(data.adapters as Record<string, object>)[name] };
	}
	checkCrossReferences(config, fail);
	return config;
}

const blankAdapter = (): AdapterConfig => ({
	command: "",
	headless: "",
	headless_resume: "",
	supports_resume: false,
	resume_pattern: "",
	supports_mcp: false,
	supports_readonly_workspace: false,
	captures_session_id: false,
	env: [],
	egress: [],
});

function rejectUnknownKeys(
	value: Record<string, unknown>,
	shape: object,
	path: Path,
	fail: (path: Path, detail: string) => never,
): void {
	const known = Object.keys(shape);
	for (const [key, child] of Object.entries(value)) {
		const here = [...path, key];
		const isAdapterName = path.length === 1 && path[0] === "adapters";
		if (!isAdapterName && !known.includes(key)) {
			const near = didYouMean(key, known);
			fail(
				here,
				`unknown key ${quoted(dotted(here))}${suggestion(near === undefined ? near : dotted([...path, near]))}`,
			);
		}
		const childShape = isAdapterName ? blankAdapter() : (shape as Record<string, unknown>)[key];
		if (isPlainObject(child) && isPlainObject(childShape)) rejectUnknownKeys(child, childShape, here, fail);
	}
}

function merge(base: unknown, over: unknown): unknown {
	if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
	const out: Record<string, unknown> = { ...base };
	for (const [key, value] of Object.entries(over)) out[key] = merge(base[key], value);
	return out;
}

const INTERPRETERS = new Set([
	"sh",
	"bash",
	"zsh",
	"dash",
	"node",
	"bun",
	"deno",
	"python",
	"python3",
	"ruby",
	"perl",
	"php",
	"npx",
	"bunx",
	"env",
]);
/** After an interpreter, these make the rest of the command line a program of the caller's choosing. */
const EVAL_FLAGS = new Set(["-c", "-e", "--eval", "-p", "--print", "-i", "-"]);

function checkCrossReferences(config: Config, fail: (path: Path, detail: string) => never): void {
	const adapterNames = Object.keys(config.adapters);
	for (const key of [...FIXED_ROLES, "implementers", "reviewers"] as const) {
		const name = config.agents[key].adapter;
		const adapter = config.adapters[name];
		if (!adapter) {
			fail(
				["agents", key, "adapter"],
				`'agents.${key}.adapter' names unknown adapter ${quoted(name)}${suggestion(didYouMean(name, adapterNames))}`,
			);
		} else if (adapter.command.trim() === "") {
			fail(["adapters", name, "command"], `adapter '${name}' is used by 'agents.${key}' but has no command`);
		}
	}
	const { tls_cert_file: cert, tls_key_file: key } = config.mcp;
	if ((cert === "") !== (key === "")) {
		fail(
			["mcp", cert === "" ? "tls_key_file" : "tls_cert_file"],
			"'mcp.tls_cert_file' and 'mcp.tls_key_file' must be set together",
		);
	}
	if (
		!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.test(config.mcp.http_address) ||
		Number(config.mcp.http_address.split(":").pop()) > 65535
	) {
		fail(["mcp", "http_address"], `'mcp.http_address' must be host:port (was '${config.mcp.http_address}')`);
	}
	config.sandbox.expose = config.sandbox.expose.map((entry, i) => {
		const path = entry === "~" || entry.startsWith("~/") ? homedir() + entry.slice(1) : entry;
		if (!isAbsolute(path) || normalize(path) === "/" || path.split("/").includes(".roundtable"))
			fail(
				["sandbox", "expose", i],
				`'sandbox.expose[${i}]' must be an absolute folder (or ~/…) other than / and outside any .roundtable/ (was '${entry}')`,
			);
		return normalize(path);
	});
	config.tests.allowed_commands.forEach((entry, i) => {
		const words = entry.trim().split(/\s+/);
		if (INTERPRETERS.has(words[0] ?? "") && (words.length === 1 || EVAL_FLAGS.has(words[1] ?? ""))) {
			fail(
				["tests", "allowed_commands", i],
				`'tests.allowed_commands[${i}]' lets any program run ('${entry}'): name a test entry point, e.g. 'npm test' or 'python -m pytest'`,
			);
		}
	});
}
