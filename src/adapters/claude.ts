// Claude Code (checked with 2.1.332). Its MCP configuration is a file of this launch only, with
// --strict-mcp-config so no other server of the operator's is started. In Roundtable's sandbox it
// runs with its permission prompts off (as root that needs IS_SANDBOX=1, which is then true);
// outside it, only Roundtable's tools are allowed without asking. Its background traffic (telemetry,
// error reports, the updater) is off: without these it reaches its vendor even with a base URL set.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Adapter, type ClientCommand, type ClientLaunch, idOf, SERVER_NAME } from "./adapter.ts";

export const QUIET = {
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
	DISABLE_TELEMETRY: "1",
	DISABLE_ERROR_REPORTING: "1",
	DISABLE_AUTOUPDATER: "1",
};

function client(base: string[], l: ClientLaunch): ClientCommand {
	const file = "claude-mcp.json";
	const env = Object.fromEntries(l.variables.map((v) => [v, `\${${v}}`]));
	const server = { type: "stdio", command: l.bridge.command, args: l.bridge.args, env };
	writeFileSync(
		join(l.dir, file),
		`${JSON.stringify({ mcpServers: { [SERVER_NAME]: server } }, null, 2)}\n`,
		{
			mode: 0o600,
		},
	);
	return {
		// --mcp-config and --allowedTools take several values: a boolean flag ends them before the prompt.
		argv: [
			...base,
			"--mcp-config",
			join(l.dirInside, file),
			...(l.sandboxed
				? ["--permission-mode", "bypassPermissions"]
				: ["--allowedTools", `mcp__${SERVER_NAME}`]),
			"--strict-mcp-config",
			...(l.prompt === undefined ? [] : [l.prompt]),
		],
		env: { ...QUIET, ...(l.sandboxed && { IS_SANDBOX: "1" }) },
		files: [file],
	};
}

/** stream-json opens with {"type":"system","subtype":"init","session_id":…}, what --resume takes. */
export const claude: Adapter = { client, sessionId: idOf("system", "session_id", "init") };
