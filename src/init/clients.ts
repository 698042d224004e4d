// Project-local MCP client entries: `.codex/config.toml` for Codex, `.mcp.json` for Claude Code.
// Only Roundtable's own entry is written; the rest of each file is kept as it was, and global
// configuration is never touched.
import { stdioCommand } from "../owner/self.ts";

export const CLIENTS = ["codex", "claude"] as const;
export type Client = (typeof CLIENTS)[number];

export const CLIENT_FILES: Record<Client, string> = { codex: ".codex/config.toml", claude: ".mcp.json" };

// TOML basic strings accept JSON's escapes for everything a path or argument holds.
const tomlString = (s: string) => JSON.stringify(s);

/** `.codex/config.toml` with [mcp_servers.roundtable] set, other tables left as they were. */
function codexConfig(existing: string | undefined, root: string): string {
	const { command, args } = stdioCommand(root);
	const table = [
		"[mcp_servers.roundtable]",
		`command = ${tomlString(command)}`,
		`args = [${args.map(tomlString).join(", ")}]`,
	].join("\n");
	const lines = (existing ?? "").split("\n");
	const kept: string[] = [];
	let inOurs = false;
	for (const line of lines) {
		const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line)?.[1];
		if (header !== undefined)
			inOurs = header === "mcp_servers.roundtable" || header.startsWith("mcp_servers.roundtable.");
		if (!inOurs) kept.push(line);
	}
	const rest = kept.join("\n").trim();
	const result = `${rest === "" ? "" : `${rest}\n\n`}${table}\n`;
	// An older entry spelled another way (quoted, inline, dotted keys) would now be defined twice.
	let parsed: { mcp_servers?: { roundtable?: { command?: unknown } } };
	try {
		parsed = Bun.TOML.parse(result) as typeof parsed;
	} catch {
		parsed = {};
	}
	if (parsed.mcp_servers?.roundtable?.command !== command) {
		throw new Error(
			`${CLIENT_FILES.codex} defines mcp_servers.roundtable in a form init cannot replace; remove that entry and run init again (the file was left as it was)`,
		);
	}
	return result;
}

/** `.mcp.json` with mcpServers.roundtable set, other servers left as they were. */
function claudeConfig(existing: string | undefined, root: string): string {
	let doc: { mcpServers?: Record<string, unknown> } = {};
	if (existing !== undefined && existing.trim() !== "") {
		try {
			doc = JSON.parse(existing);
		} catch (err) {
			throw new Error(`.mcp.json is not valid JSON, so it was left alone: ${(err as Error).message}`);
		}
		if (typeof doc !== "object" || doc === null || Array.isArray(doc))
			throw new Error(".mcp.json is not a JSON object");
	}
	const { command, args } = stdioCommand(root);
	doc.mcpServers = { ...doc.mcpServers, roundtable: { type: "stdio", command, args } };
	return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The client file's new content, from what it holds now (undefined: no file yet). */
export function clientConfig(client: Client, existing: string | undefined, root: string): string {
	return client === "codex" ? codexConfig(existing, root) : claudeConfig(existing, root);
}

/** The block init adds to the project's .gitignore for the client files it wrote. */
const IGNORE_HEADER =
	"# Roundtable's MCP client entries: absolute paths of this machine (roundtable init --client)";

/**
 * `.gitignore` with each of `rels` listed (anchored at the top), added under one header; the file as
 * it was when every one is listed already.
 */
export function gitignoreWith(existing: string | undefined, rels: readonly string[]): string {
	const text = existing ?? "";
	const lines = new Set(text.split("\n").map((l) => l.trim()));
	const missing = rels.filter((rel) => !lines.has(`/${rel}`) && !lines.has(rel));
	if (missing.length === 0) return text;
	const head = text === "" || text.endsWith("\n") ? text : `${text}\n`;
	const header = lines.has(IGNORE_HEADER) ? "" : `${head === "" ? "" : "\n"}${IGNORE_HEADER}\n`;
	return `${head}${header}${missing.map((rel) => `/${rel}`).join("\n")}\n`;
}
