// The supervisor: `roundtable sessions launch`. It mints a session with a capability and a private
// socket the owner serves, writes the agent CLI's per-launch MCP configuration into the session's
// folder, runs the agent — in bubblewrap where it works (src/sandbox/: nothing of the host but the
// system, its tools and this program; an empty private workspace, since it reads the project
// through the repository tools; a private $HOME holding a copy of its login; the network only
// through an egress proxy to its adapter's hosts) — waits for it, and then closes the session:
// capability revoked, socket gone, claims by their resume_policy, changed credentials written back.

import { existsSync, lstatSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { constants, homedir } from "node:os";
import { dirname, join, sep } from "node:path";
import { clientCommand, defaultPrompt } from "../adapters/index.ts";
import { operatorTokens } from "../config/operator-token.ts";
import { operatorContext, systemContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { LAYOUT } from "../layout.ts";
import { ownerOf } from "../owner/background.ts";
import { compiled, launchCommand, programDir, stdioCommand } from "../owner/self.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import { FORWARD_PORT, SANDBOX_FORWARD } from "../sandbox/forward.ts";
import { homeInside, sandboxArgv, sandboxHere, toolFolders } from "../sandbox/index.ts";
import { type EgressProxy, serveEgressProxy } from "../sandbox/proxy.ts";
import { capabilityHash, newCapability } from "../sessions/capability.ts";
import { privateDir, sessionDir } from "../sessions/paths.ts";
import { createWorkspace, type Workspace } from "../workspaces/create.ts";
import { draftOf } from "../workspaces/propose.ts";
import { type CopiedLogin, copyLogin, LoginBusy } from "./login.ts";
import { keepOutput, Transcript, transcriptPath } from "./transcript.ts";

/** How long a stopped agent has to finish before it is killed. */
const STOP_GRACE_MS = 10_000;

/** What a launched agent's environment gets of Roundtable: these, and nothing else. */
export const SESSION_VARIABLES = [
	"ROUNDTABLE_SESSION_SOCKET",
	"ROUNDTABLE_CAPABILITY",
	"ROUNDTABLE_SESSION_ID",
	"ROUNDTABLE_ROOT",
] as const;

/** What session.mint binds the session to, and for how long. */
export type Binding = Pick<Args<"session.mint">, "task_id" | "proposal_id" | "run_id" | "ttl_seconds">;

export interface LaunchOptions {
	agent: string;
	binding?: Binding;
	/** An adapter of the config (default: the agent's own). */
	adapter?: string;
	/** What to run instead of the adapter's command (after `--`). */
	command?: string[];
	/** The agent's first message, given to its CLI as its initial prompt. */
	prompt?: string;
	/**
	 * Run by the owner (session.start): stopped by this signal instead of this process's own stop
	 * signals, told the session's id as soon as it exists, and its output kept in the transcript only.
	 */
	supervised?: { signal: AbortSignal; onSession: (id: string) => void };
	log: (line: string) => void;
}

export class LaunchError extends Error {
	override name = "LaunchError";
}

/** Of the operator's environment, what every agent gets; its adapter's `env` names the rest. */
const BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TERM", "CI"];

/**
 * The agent's environment: an allowlist of the operator's (BASE_ENV, tests.env_allowlist, the
 * adapter's `env`; a trailing `*` matches a prefix), never a variable of Roundtable's own, then what
 * the launch sets.
 */
export function agentEnv(names: readonly string[], set: Record<string, string>): Record<string, string> {
	const env: Record<string, string> = {};
	const wanted = (k: string) => names.some((n) => (n.endsWith("*") ? k.startsWith(n.slice(0, -1)) : k === n));
	for (const [k, v] of Object.entries(process.env))
		if (v !== undefined && !k.startsWith("ROUNDTABLE_") && wanted(k)) env[k] = v;
	return { ...env, ...set };
}

/** What the agent's client needs to run this program as its MCP bridge, read-only. */
function bridgeFolders(): string[] {
	if (compiled()) return [process.execPath];
	const pkg = programDir();
	// An installed package: the node_modules it sits in holds its hoisted dependencies and Bun.
	const cut = pkg.lastIndexOf(`${sep}node_modules${sep}`);
	if (cut !== -1) return [pkg.slice(0, cut + "/node_modules".length)];
	const runtime = realpathSync(process.execPath);
	return [
		...["bin", "src", "node_modules", "package.json"].map((p) => join(pkg, p)).filter((p) => existsSync(p)),
		...(runtime.startsWith(pkg + sep) ? [] : [dirname(runtime)]),
	];
}

/** Inside an agent's sandbox: its working folder, and where the session's files are shown. */
export const WORKSPACE_INSIDE = "/workspace";
export const SESSION_INSIDE = "/session";

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

	await ownerOf(root, o.log);

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
	o.supervised?.onSession(session.id);
	// At a terminal the CLI keeps it; anything else (a script, the owner) runs the headless form.
	const atTerminal = process.stdin.isTTY && !o.supervised;
	// Stop signals are listened for from here on, so one that comes while the session is set up is
	// never this process's death (which would leave the session open and its workspace behind):
	// before the agent starts it means do not start it; after, it goes to the agent itself
	// (bubblewrap passes no signal on; the forwarder inside relays it), or to bubblewrap while the
	// agent cannot be told apart yet. SIGINT from a terminal already reached the agent, which shares
	// the terminal's group.
	let child: { kill(signal: NodeJS.Signals): void } | undefined;
	let agentOf: () => number | undefined = () => undefined;
	let stopped: NodeJS.Signals | undefined;
	const forward = (signal: NodeJS.Signals) => {
		if (!child) {
			stopped ??= signal;
			return;
		}
		const agent = agentOf();
		if (agent !== undefined) process.kill(agent, signal);
		else child.kill(signal);
	};
	const stopSignals = ["SIGTERM", "SIGHUP", ...(atTerminal ? [] : ["SIGINT"])] as NodeJS.Signals[];
	const handlers = o.supervised ? [] : stopSignals.map((s) => [s, () => forward(s)] as const);
	for (const [s, h] of handlers) process.on(s, h);
	// Roundtable's own stop (session.stop, or the wall time of a session with nobody at it): SIGTERM to
	// the agent itself, which may finish, and SIGKILL to its sandbox 10 s later.
	let stoppedBy: "stop" | "wall time" | undefined;
	let killLater: ReturnType<typeof setTimeout> | undefined;
	const stopAgent = (why: "stop" | "wall time") => {
		if (stoppedBy) return;
		stoppedBy = why;
		forward("SIGTERM");
		killLater = setTimeout(() => child?.kill("SIGKILL"), STOP_GRACE_MS);
	};
	const onAbort = () => stopAgent("stop");
	o.supervised?.signal.addEventListener("abort", onAbort, { once: true });
	let code = 1;
	let reason = "the launch failed";
	let proxy: EgressProxy | undefined;
	let login: CopiedLogin | undefined;
	let ws: Workspace | undefined;
	try {
		privateDir(dir);
		if (!(await waitForSocket(socket, 15_000)))
			throw new LaunchError(`the owner did not open the session's socket ${socket}; see ${LAYOUT.ownerLog}`);
		const sandboxed = choice.kind === "bwrap";
		const home = join(dir, "home");
		privateDir(home);
		// A session bound to a task works in a copy of what the task may read; any other in an empty folder.
		if (sandboxed && session.task_id !== null) {
			const task = await rt.store.withTransaction("read", (tx) => tx.tasks.get(session.task_id as string));
			ws = await createWorkspace(root, session.id, task?.readable_paths ?? []);
		}
		const workspace = ws?.work ?? join(dir, "workspace");
		privateDir(workspace);
		const cwd = sandboxed ? WORKSPACE_INSIDE : root;
		// Without a terminal the CLI runs its one-shot form, which needs a first message.
		const headless = !atTerminal && adapter.headless.trim() !== "";
		const prompt = o.prompt ?? (headless ? defaultPrompt(session.agent_id, session.task_id) : undefined);
		const client = clientCommand(adapterName, headless ? adapter.headless : adapter.command, {
			dir,
			dirInside: sandboxed ? SESSION_INSIDE : dir,
			bridge: stdioCommand(cwd),
			variables: SESSION_VARIABLES,
			sandboxed,
			headless,
			...(prompt !== undefined && { prompt }),
		});
		const argv = o.command ?? client.argv;
		const homeIn = sandboxed ? homeInside() : homedir();
		try {
			login = sandboxed ? copyLogin(adapterName, process.env, homedir(), home, homeIn) : undefined;
		} catch (err) {
			throw err instanceof LoginBusy ? new LaunchError(err.message) : err;
		}
		const proxySocket = join(dirname(socket), "proxy.sock");
		if (sandboxed)
			proxy = await serveEgressProxy({
				path: proxySocket,
				allowed: adapter.egress,
				onRefused: (host, port, why) =>
					void call(
						rt,
						"session.egress_refused",
						{ session_id: session.id, host, port, reason: why },
						systemContext(),
					).catch((err) =>
						o.log(`roundtable: could not record a refused connection: ${(err as Error).message}`),
					),
			});
		const proxyUrl = `http://127.0.0.1:${FORWARD_PORT}`;
		const env = agentEnv([...BASE_ENV, ...config.tests.env_allowlist, ...adapter.env], {
			...(o.command ? {} : client.env),
			...login?.env,
			...(sandboxed && {
				HOME: homeIn,
				TMPDIR: "/tmp",
				HTTPS_PROXY: proxyUrl,
				https_proxy: proxyUrl,
				HTTP_PROXY: proxyUrl,
				http_proxy: proxyUrl,
				ALL_PROXY: proxyUrl,
				NO_PROXY: "",
			}),
			ROUNDTABLE_SESSION_SOCKET: sandboxed ? join(SESSION_INSIDE, "mcp.sock") : socket,
			ROUNDTABLE_CAPABILITY: capability,
			ROUNDTABLE_SESSION_ID: session.id,
			ROUNDTABLE_ROOT: cwd,
		});
		const statusFile = join(dir, "bwrap-status.json");
		const wrapped =
			choice.kind === "bwrap"
				? sandboxArgv(choice.bwrap, {
						// First the loopback forwarder to the proxy, which then runs the agent.
						argv: [...launchCommand(), SANDBOX_FORWARD, join(SESSION_INSIDE, "proxy.sock"), "--", ...argv],
						dir: workspace,
						dirInside: WORKSPACE_INSIDE,
						tools: [
							...toolFolders([argv[0] as string], { path: env.PATH ?? "", home: homedir(), never: [root] }),
							...bridgeFolders(),
							...config.sandbox.expose,
						],
						files: [
							{ host: socket, inside: join(SESSION_INSIDE, "mcp.sock") },
							{ host: proxySocket, inside: join(SESSION_INSIDE, "proxy.sock") },
							...client.files.map((f) => ({ host: join(dir, f), inside: join(SESSION_INSIDE, f) })),
						],
						home: { inside: homeIn, host: home },
						network: false,
						// At a terminal the CLI keeps it (TIOCSTI refused); headless, a session of its own.
						terminal: atTerminal ? "shared" : "new",
						statusFile,
					})
				: { argv, fds: [], close: () => {} };
		if (choice.kind === "none")
			o.log(
				`roundtable: WARNING: no sandbox (${choice.reason}): the agent runs as you and can read .roundtable/ (the database, the operator's token), use the operator's socket and write the project`,
			);
		o.log(`roundtable: session ${session.id} for ${session.agent_id} (${session.role}); socket ${socket}`);
		if (stopped) {
			wrapped.close();
			reason = `stopped by ${stopped} before the agent started`;
			code = 128 + (signalNumber(stopped) ?? 0);
			return code;
		}
		// Without a terminal what the agent writes is also kept, redacted, as the session's transcript.
		const transcript = atTerminal
			? undefined
			: new Transcript(transcriptPath(root, session.id), config.sessions.log_bytes, [
					capability,
					...operatorTokens(root),
				]);
		const agentProcess = Bun.spawn(wrapped.argv, {
			cwd: sandboxed ? workspace : root,
			env,
			stdio: transcript
				? [o.supervised ? "ignore" : "inherit", "pipe", "pipe", ...wrapped.fds]
				: ["inherit", "inherit", "inherit", ...wrapped.fds],
		});
		child = agentProcess;
		agentOf = () => (sandboxed ? agentPid(statusFile) : agentProcess.pid);
		wrapped.close();
		// The owner's sessions keep their output to the transcript; a script's also gets it.
		const kept = transcript
			? [
					keepOutput(
						agentProcess.stdout as ReadableStream<Uint8Array>,
						o.supervised ? undefined : process.stdout,
						transcript,
					),
					keepOutput(
						agentProcess.stderr as ReadableStream<Uint8Array>,
						o.supervised ? undefined : process.stderr,
						transcript,
					),
				]
			: [];
		// With nobody at a terminal to stop it, a session ends at sessions.max_wall_seconds at most.
		const wallSeconds = config.sessions.max_wall_seconds;
		const wall = transcript
			? setTimeout(() => {
					o.log(
						`roundtable: session ${session.id} reached sessions.max_wall_seconds (${wallSeconds} s): stopping it`,
					);
					stopAgent("wall time");
				}, wallSeconds * 1000)
			: undefined;
		try {
			await agentProcess.exited;
		} finally {
			clearTimeout(wall);
		}
		await Promise.all(kept);
		transcript?.close();
		code =
			stoppedBy === "wall time"
				? 124
				: (agentProcess.exitCode ?? 128 + (signalNumber(String(agentProcess.signalCode)) ?? 0));
		reason =
			stoppedBy === "wall time"
				? `stopped at sessions.max_wall_seconds (${wallSeconds} s)`
				: stoppedBy === "stop"
					? "stopped"
					: agentProcess.signalCode
						? `killed by ${agentProcess.signalCode}`
						: `exit ${agentProcess.exitCode}`;
		return code;
	} finally {
		for (const [s, h] of handlers) process.off(s, h);
		o.supervised?.signal.removeEventListener("abort", onAbort);
		clearTimeout(killLater);
		proxy?.close();
		login?.finish();
		// What the workspace holds that no proposal carries is kept with the session, never lost silently.
		// If they cannot be kept as a draft (a patch over the limit), the folder itself is kept.
		let keepFolder = config.workspaces.keep === "always";
		const draft =
			ws &&
			(await draftOf({ rt, ctx, now: "" }, session.id).catch((err) => {
				o.log(
					`roundtable: could not keep session ${session.id}'s workspace changes as a draft: ${(err as Error).message}`,
				);
				keepFolder = true;
				return undefined;
			}));
		if (draft)
			o.log(
				`roundtable: session ${session.id} left unproposed changes to ${draft.files.length} file(s), kept as a draft (workspace.diff {"session_id":"${session.id}"})`,
			);
		await call(rt, "session.close", { session_id: session.id, reason, ...(draft && { draft }) }, ctx).catch(
			(err) => o.log(`roundtable: could not close session ${session.id}: ${(err as Error).message}`),
		);
		rmSync(dir, { recursive: true, force: true });
		if (!keepFolder) ws?.remove();
		else if (ws) o.log(`roundtable: session ${session.id}'s workspace is kept at ${ws.work}`);
		// A socket of its own folder under the runtime folder (a long project path): that folder too.
		if (!socket.startsWith(dir + sep)) rmSync(dirname(socket), { recursive: true, force: true });
	}
}

/** The agent's pid on the host: the child of the namespace's init that bwrap reported, or undefined. */
function agentPid(statusFile: string): number | undefined {
	try {
		const init = JSON.parse(readFileSync(statusFile, "utf8").split("\n")[0] as string)["child-pid"] as number;
		const first = readFileSync(`/proc/${init}/task/${init}/children`, "utf8").trim().split(" ")[0];
		return first ? Number(first) : init;
	} catch {
		return undefined;
	}
}

const signalNumber = (name: string): number | undefined => constants.signals[name as NodeJS.Signals];
