// Codex CLI (checked with 0.171.0). Everything is `-c` overrides, so nothing is written to its
// CODEX_HOME: the Roundtable server with its tools approved in advance (without that every MCP call
// of `codex exec` fails, "requires approval, but approval policy is never") and `required` (else
// Codex sends its first model request before a slow server is up, and the tools are missing);
// plugins and analytics off, which otherwise reach GitHub and ChatGPT hosts.
import { type Adapter, type ClientCommand, type ClientLaunch, idOf, SERVER_NAME } from "./adapter.ts";

const toml = (value: unknown) => JSON.stringify(value);

function client(base: string[], l: ClientLaunch): ClientCommand {
	const server = `mcp_servers.${SERVER_NAME}`;
	const settings: [string, unknown][] = [
		[`${server}.command`, l.bridge.command],
		[`${server}.args`, l.bridge.args],
		[`${server}.env_vars`, l.variables],
		[`${server}.default_tools_approval_mode`, "approve"],
		[`${server}.required`, true],
		["features.plugins", false],
		["analytics.enabled", false],
		["check_for_update_on_startup", false],
		// Inside Roundtable's sandbox Codex's own (bubblewrap again, approvals) is off: the workspace
		// is the agent's to edit, and nothing else is there to protect. As settings, not the
		// --dangerously-bypass-approvals-and-sandbox flag, which only some subcommands take.
		...(l.sandboxed
			? ([
					["approval_policy", "never"],
					["sandbox_mode", "danger-full-access"],
				] as [string, unknown][])
			: []),
	];
	return {
		argv: [
			...base,
			...settings.flatMap(([key, value]) => ["-c", `${key}=${toml(value)}`]),
			...(l.prompt === undefined ? [] : [l.prompt]),
		],
		env: {},
		files: [],
	};
}

/** `exec --json` opens with {"type":"thread.started","thread_id":…}, what `exec resume` takes. */
export const codex: Adapter = { client, sessionId: idOf("thread.started", "thread_id") };
