// `roundtable init`: the .roundtable/ folder, the starter files, the generated MCP assets, the
// database and the configured agents. Idempotent: a second run changes nothing and says so. A file
// is overwritten only if init wrote it and nobody edited it since (or with --force).

import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config/defaults.ts";
import { CONFIG_PATH, loadConfig } from "../config/load.ts";
import { ensureOperatorToken } from "../config/operator-token.ts";
import { systemContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { sha256 } from "../domain/canonical.ts";
import { writeFileAtomic } from "../fsutil.ts";
import { DOT, LAYOUT } from "../layout.ts";
import { findOwner } from "../owner/presence.ts";
import { policyMarkdown } from "../policy/defaults.ts";
import type { Result } from "../registry/index.ts";
import { openRuntime } from "../runtime.ts";
import { CLIENT_FILES, type Client, clientConfig, gitignoreWith } from "./clients.ts";
import { CONFIG_TEMPLATE } from "./config-template.ts";
import {
	agentManifest,
	MANIFEST_PATH,
	SERVER_JSON_PATH,
	serverJson,
	TOOLS_SCHEMA_PATH,
	toolsSchemaJson,
} from "./mcp-assets.ts";
import { AGENTS_MD, PROJECT_MD, ROUNDTABLE_GITIGNORE, TASKS_README } from "./starter-files.ts";

const RUNTIME_DIRS = [DOT, LAYOUT.mcp, LAYOUT.patches, LAYOUT.journal, LAYOUT.testlogs, LAYOUT.logs];
/** Hashes of what init last wrote, to tell our own files from files a user edited. */
const STATE_PATH = LAYOUT.initState;

export type FileAction = "created" | "updated" | "unchanged" | "kept" | "overwritten";

export interface InitReport {
	root: string;
	files: { path: string; action: FileAction }[];
	agents: Result<"config.sync_agents">;
	/** False when the project was already initialized exactly like this. */
	changed: boolean;
	/** Client files init wrote that git tracks: not ignored, so the report says not to commit them. */
	trackedClientFiles: string[];
}

/** Whether git tracks `rel` in the repository at `root` (false where there is no git or no repository). */
function gitTracks(root: string, rel: string): boolean {
	const r = Bun.spawnSync(["git", "ls-files", "--error-unmatch", "--", rel], {
		cwd: root,
		stdout: "ignore",
		stderr: "ignore",
	});
	return r.exitCode === 0;
}

function readState(root: string): Record<string, string> {
	try {
		const parsed = JSON.parse(readFileSync(join(root, STATE_PATH), "utf8"));
		return typeof parsed?.files === "object" && parsed.files !== null ? parsed.files : {};
	} catch {
		return {};
	}
}

function writeState(root: string, files: Record<string, string>): void {
	writeFileAtomic(join(root, STATE_PATH), `${JSON.stringify({ files }, null, 2)}\n`, 0o600);
}

/** A file we merge our part into (a client's config): always written, never "kept". */
function writeMerged(root: string, rel: string, merge: (before: string | undefined) => string): FileAction {
	const path = join(root, rel);
	let before: string | undefined;
	try {
		before = readFileSync(path, "utf8");
	} catch {
		before = undefined;
	}
	const content = merge(before);
	if (before === content) return "unchanged";
	mkdirSync(dirname(path), { recursive: true });
	writeFileAtomic(path, content);
	return before === undefined ? "created" : "updated";
}

/** Decides what to do with one file and does it. */
function place(
	root: string,
	rel: string,
	content: string,
	written: Record<string, string>,
	force: boolean,
): FileAction {
	const path = join(root, rel);
	const wanted = sha256(content);
	let current: string | undefined;
	try {
		current = sha256(readFileSync(path, "utf8"));
	} catch {
		current = undefined;
	}
	if (current === wanted) {
		written[rel] = wanted;
		return "unchanged";
	}
	const ours = current !== undefined && written[rel] === current;
	if (current !== undefined && !ours && !force) return "kept";
	mkdirSync(dirname(path), { recursive: true });
	writeFileAtomic(path, content);
	written[rel] = wanted;
	return current === undefined ? "created" : ours ? "updated" : "overwritten";
}

/** The generated MCP assets. Beside a live owner they name the address it bound (port 0 resolved). */
function mcpAssets(root: string, configured: Config): [path: string, content: string][] {
	const live = findOwner(root)?.http_url;
	const config = live
		? { ...configured, mcp: { ...configured.mcp, http_address: new URL(live).host } }
		: configured;
	return [
		[TOOLS_SCHEMA_PATH, toolsSchemaJson()],
		[SERVER_JSON_PATH, serverJson(root, config)],
		[MANIFEST_PATH, agentManifest(root, config)],
	];
}

/**
 * Writes the MCP assets over whatever is there (`mcp inspect --write`, `run`, `start` with the URL it
 * bound); the paths written. Their hashes are recorded as init's own, so a later `init` updates them
 * instead of keeping them as if a user had edited them.
 */
export function writeMcpAssets(root: string, config: Config): string[] {
	const written = readState(root);
	const paths = mcpAssets(root, config).map(([rel, content]) => {
		mkdirSync(dirname(join(root, rel)), { recursive: true, mode: 0o700 });
		writeFileAtomic(join(root, rel), content);
		written[rel] = sha256(content);
		return rel;
	});
	writeState(root, written);
	return paths;
}

/** Initializes a directory that exists but is not a project yet (`start`, `run`); else undefined. */
export async function initIfNeeded(rootDir: string): Promise<InitReport | undefined> {
	return existsSync(rootDir) && !existsSync(join(rootDir, CONFIG_PATH)) ? initProject(rootDir) : undefined;
}

export async function initProject(
	rootDir: string,
	options: { force?: boolean; clients?: Client[] } = {},
): Promise<InitReport> {
	const force = options.force ?? false;
	if (!existsSync(rootDir) || !statSync(rootDir).isDirectory()) {
		throw new Error(`${rootDir} is not a directory`);
	}
	const root = realpathSync(rootDir);
	// An existing config is validated before anything is written, so a broken one changes nothing.
	if (existsSync(join(root, CONFIG_PATH))) loadConfig(root);

	for (const dir of RUNTIME_DIRS) {
		mkdirSync(join(root, dir), { recursive: true, mode: 0o700 });
		chmodSync(join(root, dir), 0o700);
	}
	const stateBefore = readState(root);
	const written = { ...stateBefore };
	const report: InitReport["files"] = [];
	const put = (rel: string, content: string) =>
		report.push({ path: rel, action: place(root, rel, content, written, force) });

	put(CONFIG_PATH, CONFIG_TEMPLATE);
	// Whatever config.yaml now holds (the template, or the user's kept edit) governs the rest.
	const config = loadConfig(root);
	put(LAYOUT.gitignore, ROUNDTABLE_GITIGNORE);
	put("POLICIES.ROUNDTABLE.md", policyMarkdown());
	put("AGENTS.ROUNDTABLE.md", AGENTS_MD);
	put("PROJECT.ROUNDTABLE.md", PROJECT_MD);
	put("TASKS.ROUNDTABLE/README.md", TASKS_README);
	for (const [rel, content] of mcpAssets(root, config)) put(rel, content);
	for (const client of options.clients ?? []) {
		const rel = CLIENT_FILES[client];
		report.push({
			path: rel,
			action: writeMerged(root, rel, (before) => clientConfig(client, before, root)),
		});
	}
	// The client files hold this machine's paths: kept out of git, unless git already tracks one
	// (a team's shared .mcp.json), which the report names instead.
	const clientFiles = (options.clients ?? []).map((c) => CLIENT_FILES[c]);
	const tracked = clientFiles.filter((rel) => gitTracks(root, rel));
	const untracked = clientFiles.filter((rel) => !tracked.includes(rel));
	if (untracked.length > 0)
		report.push({
			path: ".gitignore",
			action: writeMerged(root, ".gitignore", (b) => gitignoreWith(b, untracked)),
		});
	if (JSON.stringify(written) !== JSON.stringify(stateBefore)) writeState(root, written);
	// The operator's HTTP token (a secret, so no starter file): made once, kept across inits.
	ensureOperatorToken(root);

	const rt = openRuntime(root);
	let agents: Result<"config.sync_agents">;
	try {
		agents = await call(rt, "config.sync_agents", {}, systemContext());
	} finally {
		rt.close();
	}
	const changed =
		report.some((f) => f.action !== "unchanged" && f.action !== "kept") ||
		Object.values(agents).some((ids) => ids.length > 0);
	return { root, files: report, agents, changed, trackedClientFiles: tracked };
}
