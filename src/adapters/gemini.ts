// Gemini CLI. Its settings for this launch are a system settings file (the highest precedence, so
// the operator's own cannot add servers or turn telemetry back on): the Roundtable server, trusted
// (its tools run without confirmation), usage statistics, telemetry and the updater off. In
// Roundtable's sandbox every tool runs unconfirmed (--approval-mode yolo).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Adapter, type ClientCommand, type ClientLaunch, idOf, SERVER_NAME } from "./adapter.ts";

function client(base: string[], l: ClientLaunch): ClientCommand {
	const file = "gemini-settings.json";
	const env = Object.fromEntries(l.variables.map((v) => [v, `$${v}`]));
	const settings = {
		mcpServers: { [SERVER_NAME]: { command: l.bridge.command, args: l.bridge.args, env, trust: true } },
		privacy: { usageStatisticsEnabled: false },
		telemetry: { enabled: false },
		general: { disableAutoUpdate: true, disableUpdateNag: true },
	};
	writeFileSync(join(l.dir, file), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
	return {
		argv: [
			...base,
			...(l.sandboxed ? ["--approval-mode", "yolo"] : []),
			// At a terminal a bare prompt would make Gemini answer once and exit; --prompt-interactive
			// keeps the session. Headless, answering once and exiting is the point.
			...(l.prompt === undefined ? [] : [l.headless ? "--prompt" : "--prompt-interactive", l.prompt]),
		],
		env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(l.dirInside, file) },
		files: [file],
	};
}

/** stream-json opens with {"type":"init","session_id":…}. */
export const gemini: Adapter = { client, sessionId: idOf("init", "session_id") };
