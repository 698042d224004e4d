// A launched session: `roundtable sessions launch`, and each headless session the owner runs. It
// mints a session with a capability and a private socket the owner serves, sets up the session's
// folder, its workspace and its agent's home, runs the agent (src/launch/attempt.ts) — in bubblewrap
// where it works (src/sandbox/: nothing of the host but the system, its tools and this program; its
// workspace; a private $HOME, the CLI's state kept per agent and binding, with a copy of its login;
// the network only through an egress proxy to its adapter's hosts) — once, or again after a failure
// (the owner's supervisor), and then closes the session: capability revoked, socket gone, claims by
// their resume_policy, unproposed changes kept as a draft.

import { existsSync, lstatSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { AdapterConfig } from "../config/defaults.ts";
import { type CallContext, operatorContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { LAYOUT } from "../layout.ts";
import { ownerOf } from "../owner/background.ts";
import { compiled, programDir } from "../owner/self.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import { type SandboxChoice, sandboxHere } from "../sandbox/index.ts";
import { capabilityHash, newCapability } from "../sessions/capability.ts";
import { privateDir, sessionDir } from "../sessions/paths.ts";
import type { SessionRow } from "../store/sessions.ts";
import { createWorkspace, hasWorkspace, openWorkspace, type Workspace } from "../workspaces/create.ts";
import { draftOf } from "../workspaces/propose.ts";
import { Stopper } from "./stopper.ts";

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
	supervised?: {
		signal: AbortSignal;
		onSession: (id: string) => void;
		/** Serves the new session's socket at once (the owner's endpoints), instead of on their next pass. */
		serve?: () => Promise<void>;
	};
	log: (line: string) => void;
}

export class LaunchError extends Error {
	override name = "LaunchError";
}

/** Of the operator's environment, what every agent gets; its adapter's `env` names the rest. */
export const BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TERM", "CI"];

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
export function bridgeFolders(): string[] {
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

/** A launched session, open: what every attempt of its agent shares. */
export interface Opened {
	rt: Runtime;
	o: LaunchOptions;
	session: SessionRow;
	/** The capability its agent holds (its hash is the session's). */
	capability: string;
	ctx: CallContext;
	dir: string;
	socket: string;
	choice: SandboxChoice;
	sandboxed: boolean;
	adapterName: string;
	adapter: AdapterConfig;
	ws: Workspace | undefined;
	/** Where its agent works: the workspace, or an empty folder. */
	workspace: string;
	/** The agent's own $HOME in its sandbox: the CLI's state, kept per agent and binding. */
	home: string;
	/** At a terminal the CLI keeps it; anything else (a script, the owner) runs the headless form. */
	atTerminal: boolean;
	stopper: Stopper;
	/** Stop signals of this process it listens to while open (none for the owner's sessions). */
	handlers: (readonly [NodeJS.Signals, () => void])[];
}

/**
 * The folder kept for an agent's CLI state in one binding (its task, else its proposal, run or
 * session): a retry, and a later session of the same agent on the same task, find its conversation.
 */
export function agentStateDir(
	root: string,
	s: Pick<SessionRow, "id" | "agent_id" | "task_id" | "proposal_id" | "run_id">,
): string {
	const binding = s.task_id
		? `task-${s.task_id}`
		: s.proposal_id
			? `proposal-${s.proposal_id}`
			: s.run_id
				? `run-${s.run_id}`
				: `session-${s.id}`;
	return join(root, LAYOUT.agentState, `${s.agent_id}@${binding}`);
}

/** Checks what a launch needs, mints its session and sets up its folder, workspace and home. */
export async function openSession(rt: Runtime, o: LaunchOptions): Promise<Opened> {
	const { root, config } = rt;
	if (config.mcp.loopback_auth === "none")
		throw new LaunchError(
			"mcp.loopback_auth is none: an agent could reach the HTTP endpoint as the operator; set it to token to launch agents",
		);
	const agent = await rt.store.withTransaction("read", (tx) => tx.agents.get(o.agent));
	const adapterName = o.adapter ?? agent?.adapter ?? "generic";
	if (!config.adapters[adapterName])
		throw new LaunchError(
			`unknown adapter ${adapterName}; the configured adapters are ${Object.keys(config.adapters).sort().join(", ")}`,
		);
	if (!o.command && adapterName === "generic")
		throw new LaunchError(
			"the generic adapter runs what follows --: sessions launch --agent ID -- CMD ARGS…",
		);
	const choice = sandboxChoice(rt);
	if (choice.kind === "none" && config.sessions.sandbox === "required")
		throw new LaunchError(`sessions.sandbox is required, but there is no sandbox here: ${choice.reason}`);
	await ownerOf(root, o.log);
	// From before the session exists: a stop signal while it is minted or set up is remembered (no
	// agent starts), never this process's death, which would leave the session open.
	const stops = listen(o);
	try {
		const capability = newCapability();
		const ctx = operatorContext("cli");
		const { session } = await call(
			rt,
			"session.mint",
			{
				agent_id: o.agent,
				capability_sha256: capabilityHash(capability),
				endpoint: true,
				adapter: adapterName,
				...o.binding,
			},
			ctx,
		);
		o.supervised?.onSession(session.id);
		return await prepare(rt, o, session, capability, ctx, choice, stops);
	} catch (err) {
		for (const [sig, h] of stops.handlers) process.off(sig, h);
		throw err;
	}
}

/** The stop of a launch: this process's stop signals, or for the owner's sessions its abort signal. */
function listen(o: LaunchOptions): Pick<Opened, "stopper" | "handlers" | "atTerminal"> {
	const atTerminal = Boolean(process.stdin.isTTY) && !o.supervised;
	const stopper = new Stopper();
	const stopSignals = ["SIGTERM", "SIGHUP", ...(atTerminal ? [] : ["SIGINT"])] as NodeJS.Signals[];
	const handlers = o.supervised ? [] : stopSignals.map((sig) => [sig, () => stopper.signal(sig)] as const);
	for (const [sig, h] of handlers) process.on(sig, h);
	o.supervised?.signal.addEventListener("abort", () => stopper.end("stop"), { once: true });
	return { stopper, handlers, atTerminal };
}

const sandboxChoice = (rt: Runtime): SandboxChoice =>
	rt.config.sessions.sandbox === "off" ? { kind: "none", reason: "sessions.sandbox is off" } : sandboxHere();

/**
 * Opens again a supervised session the owner was running when it died: a new capability (the old
 * one was only ever in the dead agent's environment), the same folder, workspace and home.
 */
export async function reopenSession(rt: Runtime, session: SessionRow, o: LaunchOptions): Promise<Opened> {
	const choice = sandboxChoice(rt);
	if (choice.kind === "none" && rt.config.sessions.sandbox === "required")
		throw new LaunchError(`sessions.sandbox is required, but there is no sandbox here: ${choice.reason}`);
	return prepare(
		rt,
		{ ...o, adapter: session.adapter },
		session,
		newCapability(),
		operatorContext("cli"),
		choice,
		listen(o),
	);
}

async function prepare(
	rt: Runtime,
	o: LaunchOptions,
	session: SessionRow,
	capability: string,
	ctx: CallContext,
	choice: SandboxChoice,
	stops: Pick<Opened, "stopper" | "handlers" | "atTerminal">,
): Promise<Opened> {
	const { root, config } = rt;
	const adapterName = session.adapter;
	const adapter = config.adapters[adapterName];
	if (!adapter) {
		for (const [sig, h] of stops.handlers) process.off(sig, h);
		throw new LaunchError(`session ${session.id}'s adapter ${adapterName} is no longer configured`);
	}
	const opened: Opened = {
		rt,
		o,
		session,
		capability,
		ctx,
		dir: sessionDir(root, session.id),
		socket: session.mcp_socket as string,
		choice,
		sandboxed: choice.kind === "bwrap",
		adapterName,
		adapter,
		ws: undefined,
		workspace: "",
		home: agentStateDir(root, session),
		...stops,
	};
	try {
		privateDir(opened.dir);
		await o.supervised?.serve?.();
		if (!(await waitForSocket(opened.socket, 15_000)))
			throw new LaunchError(
				`the owner did not open the session's socket ${opened.socket}; see ${LAYOUT.ownerLog}`,
			);
		privateDir(opened.home);
		// A session bound to a task works in a copy of what the task may read; any other in an empty folder.
		if (opened.sandboxed && session.task_id !== null) {
			if (hasWorkspace(root, session.id)) opened.ws = openWorkspace(root, session.id);
			else {
				const task = await rt.store.withTransaction("read", (tx) => tx.tasks.get(session.task_id as string));
				opened.ws = await createWorkspace(root, session.id, task?.readable_paths ?? []);
			}
		}
		opened.workspace = opened.ws?.work ?? join(opened.dir, "workspace");
		privateDir(opened.workspace);
		if (choice.kind === "none")
			o.log(
				`roundtable: WARNING: no sandbox (${choice.reason}): the agent runs as you and can read .roundtable/ (the database, the operator's token), use the operator's socket and write the project`,
			);
		o.log(
			`roundtable: session ${session.id} for ${session.agent_id} (${session.role}); socket ${opened.socket}`,
		);
		return opened;
	} catch (err) {
		await closeSession(opened, "the launch failed");
		throw err;
	}
}

/** Closes a session an earlier owner left open without starting its agent again: the same close. */
export async function closeLeftover(
	rt: Runtime,
	session: SessionRow,
	reason: string,
	log: (line: string) => void,
): Promise<void> {
	const closing = {
		rt,
		o: { agent: session.agent_id, log },
		session,
		ctx: operatorContext("cli"),
		dir: sessionDir(rt.root, session.id),
		socket: session.mcp_socket ?? sessionDir(rt.root, session.id),
		ws: hasWorkspace(rt.root, session.id) ? openWorkspace(rt.root, session.id) : undefined,
		handlers: [],
	};
	await closeSession(closing, reason);
}

/**
 * Closes the session: what its workspace holds that no proposal carries kept as a draft (or the
 * folder itself, when it cannot be), its capability revoked, its claims by their resume_policy, its
 * folders gone.
 */
export async function closeSession(
	s: Pick<Opened, "rt" | "o" | "session" | "ctx" | "dir" | "socket" | "ws" | "handlers">,
	reason: string,
): Promise<void> {
	const { rt, o, session, ws } = s;
	for (const [sig, h] of s.handlers) process.off(sig, h);
	let keepFolder = rt.config.workspaces.keep === "always";
	const draft =
		ws &&
		(await draftOf({ rt, ctx: s.ctx, now: "" }, session.id).catch((err) => {
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
	await call(rt, "session.close", { session_id: session.id, reason, ...(draft && { draft }) }, s.ctx).catch(
		(err) => o.log(`roundtable: could not close session ${session.id}: ${(err as Error).message}`),
	);
	rmSync(s.dir, { recursive: true, force: true });
	if (!keepFolder) ws?.remove();
	else if (ws) o.log(`roundtable: session ${session.id}'s workspace is kept at ${ws.work}`);
	// A socket of its own folder under the runtime folder (a long project path): that folder too.
	if (!s.socket.startsWith(s.dir + sep)) rmSync(dirname(s.socket), { recursive: true, force: true });
}
