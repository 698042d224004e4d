// The supervisor: `roundtable sessions launch`. It mints a session with a capability and a private
// socket the owner serves, writes the agent CLI's per-launch MCP configuration into the session's
// folder, runs the agent (in bubblewrap where it works: the project read-only, .roundtable/ hidden
// but for that folder, its own $HOME with only the CLI's login folder, the network on), waits for
// it, and then closes the session: capability revoked, socket gone, claims by their resume_policy.

import { existsSync, lstatSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { constants, homedir } from "node:os";
import { dirname, join } from "node:path";
import { endpointsOf } from "../config/peek.ts";
import { operatorContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { DOT, LAYOUT } from "../layout.ts";
import { startOwnerInBackground } from "../owner/background.ts";
import { findOwner } from "../owner/presence.ts";
import { programDir, stdioCommand } from "../owner/self.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import { bwrapArgv, sandboxHere } from "../sandbox/index.ts";
import { capabilityHash, newCapability } from "../sessions/capability.ts";
import { privateDir, sessionDir } from "../sessions/paths.ts";

/** What a launched agent's environment gets of Roundtable: these, and nothing else. */
export const SESSION_VARIABLES = [
	"ROUNDTABLE_SESSION_SOCKET",
	"ROUNDTABLE_CAPABILITY",
	"ROUNDTABLE_SESSION_ID",
	"ROUNDTABLE_ROOT",
] as const;

/** Where each agent CLI keeps its login and state (what the sandbox lets it write), honoring its own variable. */
function loginPaths(adapter: string, env: Record<string, string | undefined>, home: string): string[] {
	const under = (...names: string[]) => names.map((n) => join(home, n));
	switch (adapter) {
		case "codex":
			return env.CODEX_HOME ? [env.CODEX_HOME] : under(".codex");
		case "claude":
			return env.CLAUDE_CONFIG_DIR ? [env.CLAUDE_CONFIG_DIR] : under(".claude", ".claude.json");
		case "gemini":
			return env.GEMINI_CLI_HOME ? [env.GEMINI_CLI_HOME] : under(".gemini");
		default:
			return [];
	}
}

/**
 * What must stay visible for a program to run when $HOME or /tmp is emptied: the install it lives
 * in (the folder holding its node_modules, for an npm-installed CLI), else its own folder.
 */
function installOf(program: string | undefined, path: string | undefined): string | undefined {
	const found = program && Bun.which(program, { PATH: path ?? "" });
	if (!found) return undefined;
	const resolved = realpathSync(found);
	const cut = resolved.indexOf("/node_modules/");
	return cut === -1 ? dirname(resolved) : resolved.slice(0, cut);
}

/** What session.mint binds the session to, and for how long. */
export type Binding = Pick<Args<"session.mint">, "task_id" | "proposal_id" | "run_id" | "ttl_seconds">;

export interface LaunchOptions {
	agent: string;
	binding?: Binding;
	/** An adapter of the config (default: the agent's own). */
	adapter?: string;
	/** What to run instead of the adapter's command (after `--`). */
	command?: string[];
	log: (line: string) => void;
}

export class LaunchError extends Error {
	override name = "LaunchError";
}

/** Writes a client's `{ mcpServers: { roundtable } }` file, 0600 like everything in the session's folder. */
function mcpServersFile(file: string, server: object): string {
	writeFileSync(file, `${JSON.stringify({ mcpServers: { roundtable: server } }, null, 2)}\n`, {
		mode: 0o600,
	});
	return file;
}

/** The agent CLI's argv with this session's MCP server configured for this launch only. */
function clientArgv(
	adapter: string,
	command: string,
	dir: string,
	root: string,
): { argv: string[]; env: Record<string, string> } {
	const { command: bridge, args } = stdioCommand(root);
	const base = command.trim().split(/\s+/).filter(Boolean);
	const forwarded = Object.fromEntries(SESSION_VARIABLES.map((v) => [v, `\${${v}}`]));
	switch (adapter) {
		case "codex":
			return {
				argv: [
					...base,
					"-c",
					`mcp_servers.roundtable.command=${JSON.stringify(bridge)}`,
					"-c",
					`mcp_servers.roundtable.args=${JSON.stringify(args)}`,
					"-c",
					`mcp_servers.roundtable.env_vars=${JSON.stringify(SESSION_VARIABLES)}`,
				],
				env: {},
			};
		case "claude": {
			const file = mcpServersFile(join(dir, "claude-mcp.json"), {
				type: "stdio",
				command: bridge,
				args,
				env: forwarded,
			});
			return { argv: [...base, "--mcp-config", file, "--strict-mcp-config"], env: {} };
		}
		case "gemini": {
			const file = mcpServersFile(join(dir, "gemini-settings.json"), {
				command: bridge,
				args,
				env: forwarded,
			});
			return { argv: base, env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: file } };
		}
		default:
			// Generic: the environment alone tells `roundtable mcp stdio` where the session is.
			return { argv: base, env: {} };
	}
}

/** The environment of the child: the operator's, less anything of Roundtable's, plus the session's. */
function childEnv(
	session: Record<(typeof SESSION_VARIABLES)[number], string>,
	extra: Record<string, string>,
): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [k, v] of Object.entries(process.env))
		if (v !== undefined && !k.startsWith("ROUNDTABLE_")) env[k] = v;
	return { ...env, ...extra, ...session };
}

async function waitForSocket(path: string, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		try {
			if (lstatSync(path).isSocket()) return true;
		} catch {
			// not yet
		}
		await Bun.sleep(20);
	}
	return false;
}

/** Runs one agent for one session; resolves with its exit status once the session is closed. */
export async function launch(rt: Runtime, o: LaunchOptions): Promise<number> {
	const { root, config } = rt;
	if (config.mcp.loopback_auth === "none")
		throw new LaunchError(
			"mcp.loopback_auth is none: an agent could reach the HTTP endpoint as the operator; set it to token to launch agents",
		);
	const agent = await rt.store.withTransaction("read", (tx) => tx.agents.get(o.agent));
	const adapterName = o.adapter ?? agent?.adapter ?? "generic";
	const adapter = config.adapters[adapterName];
	if (!adapter)
		throw new LaunchError(
			`unknown adapter ${adapterName}; the configured adapters are ${Object.keys(config.adapters).sort().join(", ")}`,
		);
	if (!o.command && adapterName === "generic")
		throw new LaunchError(
			"the generic adapter runs what follows --: sessions launch --agent ID -- CMD ARGS…",
		);

	const choice =
		config.sessions.sandbox === "off"
			? { kind: "none" as const, reason: "sessions.sandbox is off" }
			: sandboxHere();
	if (choice.kind === "none" && config.sessions.sandbox === "required")
		throw new LaunchError(`sessions.sandbox is required, but there is no sandbox here: ${choice.reason}`);

	if (!findOwner(root)) {
		o.log("roundtable: no owner runs here; starting one in the background");
		await startOwnerInBackground(root);
	}

	const capability = newCapability();
	const ctx = operatorContext("cli");
	const { session } = await call(
		rt,
		"session.mint",
		{
			agent_id: o.agent,
			capability_sha256: capabilityHash(capability),
			endpoint: true,
			...o.binding,
		},
		ctx,
	);
	const socket = session.mcp_socket as string;
	const dir = sessionDir(root, session.id);
	let code = 1;
	let reason = "the launch failed";
	try {
		privateDir(dir);
		if (!(await waitForSocket(socket, 15_000)))
			throw new LaunchError(`the owner did not open the session's socket ${socket}; see ${LAYOUT.ownerLog}`);
		const client = clientArgv(adapterName, adapter.command, dir, root);
		const argv = o.command ?? client.argv;
		const env = childEnv(
			{
				ROUNDTABLE_SESSION_SOCKET: socket,
				ROUNDTABLE_CAPABILITY: capability,
				ROUNDTABLE_SESSION_ID: session.id,
				ROUNDTABLE_ROOT: root,
			},
			o.command ? {} : client.env,
		);
		const home = homedir();
		const legacy = endpointsOf(root, config.mcp).socketPath;
		const spawned =
			choice.kind === "bwrap"
				? bwrapArgv(choice.bwrap, {
						argv,
						writable: dir,
						cwd: root,
						// The project, this program (the bridge the agent's client runs) and the agent's CLI, read-only.
						visible: [root, dirname(process.execPath), programDir(), installOf(argv[0], env.PATH)].filter(
							(p): p is string => p !== undefined,
						),
						hide: [join(root, DOT), legacy],
						alsoWritable: [
							...loginPaths(adapterName, env, home).filter((p) => existsSync(p)),
							...(socket.startsWith(dir) ? [] : [socket]),
						],
						network: true,
						home,
						path: env.PATH,
					})
				: argv;
		if (choice.kind === "none")
			o.log(
				`roundtable: WARNING: no sandbox (${choice.reason}): the agent runs as you and can read .roundtable/ (the database, the operator's token), use the operator's socket and write the project`,
			);
		o.log(`roundtable: session ${session.id} for ${session.agent_id} (${session.role}); socket ${socket}`);
		const child = Bun.spawn(spawned, {
			cwd: root,
			env,
			stdin: "inherit",
			stdout: "inherit",
			stderr: "inherit",
		});
		const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
		const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((s) => [s, forward(s)] as const);
		for (const [s, h] of handlers) process.on(s, h);
		try {
			await child.exited;
		} finally {
			for (const [s, h] of handlers) process.off(s, h);
		}
		code = child.exitCode ?? 128 + (signalNumber(String(child.signalCode)) ?? 0);
		reason = child.signalCode ? `killed by ${child.signalCode}` : `exit ${child.exitCode}`;
		return code;
	} finally {
		await call(rt, "session.close", { session_id: session.id, reason }, ctx).catch((err) =>
			o.log(`roundtable: could not close session ${session.id}: ${(err as Error).message}`),
		);
		rmSync(dir, { recursive: true, force: true });
	}
}

const signalNumber = (name: string): number | undefined => constants.signals[name as NodeJS.Signals];
