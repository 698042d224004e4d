// One start of a launched session's agent: its CLI's command line for this attempt (the first, a
// resumed conversation, or a fresh start), its login, its egress proxy, the sandbox around it, its
// output kept as the transcript, its wall time, and what it exited with. The session it runs in,
// with its capability, socket and workspace, outlives it (src/launch/launch.ts opens and closes it).

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants, homedir } from "node:os";
import { dirname, join } from "node:path";
import { clientCommand, externalSessionId, resumePrompt } from "../adapters/index.ts";
import { operatorTokens } from "../config/operator-token.ts";
import { systemContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { cannotStart, startTime } from "../os/process.ts";
import { launchCommand, stdioCommand } from "../owner/self.ts";
import { FORWARD_PORT, SANDBOX_FORWARD } from "../sandbox/forward.ts";
import { homeInside, sandboxArgv, toolFolders } from "../sandbox/index.ts";
import { type EgressProxy, serveEgressProxy } from "../sandbox/proxy.ts";
import { transcriptPath } from "../sessions/paths.ts";
import { CALLER_ID_PATTERN } from "../vocabulary/ids.ts";
import { type CopiedLogin, copyLogin, LoginBusy } from "./login.ts";
import { headlessPrompt } from "./prompt.ts";
import {
	agentEnv,
	BASE_ENV,
	bridgeFolders,
	LaunchError,
	type Opened,
	SESSION_INSIDE,
	SESSION_VARIABLES,
	WORKSPACE_INSIDE,
} from "./session.ts";
import { keepOutput, Transcript } from "./transcript.ts";

export interface Attempt {
	/** 1 for the first start of the session's agent. */
	number: number;
	/** The CLI's conversation to resume (headless_resume), if any. */
	resume?: string | undefined;
	/** Why the one before ended, told to a resumed conversation. */
	after?: string | undefined;
	/** The hash of a capability made for this attempt (after the owner's restart). */
	capabilityHash?: string | undefined;
}

export interface Outcome {
	/** The agent's exit status (124: its wall time; 127: its command was not found). */
	code: number;
	reason: string;
	/** Roundtable ended it: session.stop, or the wall time. */
	endedBy?: "stop" | "wall time" | undefined;
	/** A stop ended it (session.stop, run.stop, a stop signal to the launcher): not its own failure. */
	stopped?: boolean;
	/** Nothing ran, and another attempt would fare no better (its command is missing). */
	hopeless?: boolean;
	durationMs: number;
}

/** Where the launcher records the agent's process, so an owner restarted after a crash can end it. */
export const pidFile = (dir: string) => join(dir, "agent.pid");

/** How much of a headless agent's first output is searched for its CLI's conversation id. */
const CAPTURE_BYTES = 1 << 20;

/** Runs the session's agent once; resolves when it has exited (or could not start). */
export async function runAttempt(s: Opened, a: Attempt): Promise<Outcome> {
	const { rt, session, stopper, o } = s;
	const { config, root } = rt;
	const started = Date.now();
	const headless = !s.atTerminal && s.adapter.headless.trim() !== "";
	const resuming = headless && a.resume !== undefined && s.adapter.headless_resume.trim() !== "";
	// Headless, a fresh start's first message is built (the briefing, the project's rules, then the
	// operator's words); at a terminal the operator's words alone, if any.
	const prompt = resuming
		? resumePrompt(a.number, a.after ?? "it failed")
		: headless
			? await headlessPrompt(rt, session, s.sandboxed, o.prompt)
			: o.prompt;
	const form = resuming
		? s.adapter.headless_resume.replaceAll("{{external_session_id}}", a.resume as string)
		: headless
			? s.adapter.headless
			: s.adapter.command;
	const cwd = s.sandboxed ? WORKSPACE_INSIDE : root;
	const client = clientCommand(s.adapterName, form, {
		dir: s.dir,
		dirInside: s.sandboxed ? SESSION_INSIDE : s.dir,
		bridge: stdioCommand(cwd),
		variables: SESSION_VARIABLES,
		sandboxed: s.sandboxed,
		headless,
		...(prompt !== undefined && { prompt }),
	});
	const argv = o.command ?? client.argv;
	const homeIn = s.sandboxed ? homeInside() : homedir();
	const env = agentEnv([...BASE_ENV, ...config.tests.env_allowlist, ...s.adapter.env], {});
	const command = argv[0] as string;
	const missing =
		cannotStart(command, root, env.PATH) &&
		(command.includes("/")
			? `the agent's command ${command} does not exist or is not executable`
			: `the agent's command ${command} is not on PATH (${env.PATH ?? ""})`);
	if (missing) return { code: 127, reason: missing, hopeless: true, durationMs: 0 };

	let login: CopiedLogin | undefined;
	let proxy: EgressProxy | undefined;
	let transcript: Transcript | undefined;
	try {
		try {
			login = s.sandboxed ? copyLogin(s.adapterName, process.env, homedir(), s.home, homeIn) : undefined;
		} catch (err) {
			throw err instanceof LoginBusy ? new LaunchError(err.message) : err;
		}
		const proxySocket = join(dirname(s.socket), "proxy.sock");
		if (s.sandboxed)
			proxy = await serveEgressProxy({
				path: proxySocket,
				allowed: s.adapter.egress,
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
		Object.assign(env, {
			...(o.command ? {} : client.env),
			...login?.env,
			...(s.sandboxed && {
				HOME: homeIn,
				TMPDIR: "/tmp",
				HTTPS_PROXY: proxyUrl,
				https_proxy: proxyUrl,
				HTTP_PROXY: proxyUrl,
				http_proxy: proxyUrl,
				ALL_PROXY: proxyUrl,
				NO_PROXY: "",
			}),
			ROUNDTABLE_SESSION_SOCKET: s.sandboxed ? join(SESSION_INSIDE, "mcp.sock") : s.socket,
			ROUNDTABLE_CAPABILITY: s.capability,
			ROUNDTABLE_SESSION_ID: session.id,
			ROUNDTABLE_ROOT: cwd,
		});
		const statusFile = join(s.dir, "bwrap-status.json");
		const wrapped =
			s.choice.kind === "bwrap"
				? sandboxArgv(s.choice.bwrap, {
						// First the loopback forwarder to the proxy, which then runs the agent.
						argv: [...launchCommand(), SANDBOX_FORWARD, join(SESSION_INSIDE, "proxy.sock"), "--", ...argv],
						dir: s.workspace,
						dirInside: WORKSPACE_INSIDE,
						tools: [
							...toolFolders([argv[0] as string], { path: env.PATH ?? "", home: homedir(), never: [root] }),
							...bridgeFolders(),
							...config.sandbox.expose,
						],
						files: [
							{ host: s.socket, inside: join(SESSION_INSIDE, "mcp.sock") },
							{ host: proxySocket, inside: join(SESSION_INSIDE, "proxy.sock") },
							...client.files.map((f) => ({ host: join(s.dir, f), inside: join(SESSION_INSIDE, f) })),
						],
						home: { inside: homeIn, host: s.home },
						network: false,
						// At a terminal the CLI keeps it (TIOCSTI refused); headless, a session of its own.
						terminal: s.atTerminal ? "shared" : "new",
						statusFile,
					})
				: { argv, fds: [], close: () => {} };
		if (stopper.requested) {
			wrapped.close();
			return {
				code: 128 + (signalNumber(stopper.requested === "stop" ? "SIGTERM" : stopper.requested) ?? 0),
				reason: `stopped${stopper.requested === "stop" ? "" : ` by ${stopper.requested}`} before the agent started`,
				endedBy: stopper.requested === "stop" ? "stop" : undefined,
				stopped: true,
				durationMs: 0,
			};
		}
		// Recorded before it starts: the capability it holds (a new one after the owner's restart) counts from here.
		await call(
			rt,
			"session.supervision",
			{
				session_id: session.id,
				event: "started",
				attempt: a.number,
				supervised: o.supervised !== undefined,
				// The operator's words, for a fresh start after the owner's restart.
				...(a.number === 1 && o.supervised && o.prompt !== undefined && { prompt: o.prompt }),
				...(a.capabilityHash !== undefined && { capability_sha256: a.capabilityHash }),
			},
			systemContext(),
		);
		// Without a terminal what the agent writes is also kept, redacted, as the session's transcript.
		transcript = s.atTerminal
			? undefined
			: new Transcript(transcriptPath(root, session.id), config.sessions.log_bytes, [
					s.capability,
					...operatorTokens(root),
				]);
		if (a.number > 1)
			transcript?.note(
				`[roundtable] attempt ${a.number}${resuming ? `, resuming ${a.resume}` : ", started afresh"}`,
			);
		const agentProcess = Bun.spawn(wrapped.argv, {
			cwd: s.sandboxed ? s.workspace : root,
			env,
			stdio: transcript
				? [o.supervised ? "ignore" : "inherit", "pipe", "pipe", ...wrapped.fds]
				: ["inherit", "inherit", "inherit", ...wrapped.fds],
		});
		stopper.attach(agentProcess, () => (s.sandboxed ? agentPid(statusFile) : agentProcess.pid));
		wrapped.close();
		recordPid(s.dir, agentProcess.pid);
		const captured = headless && s.adapter.captures_session_id ? capture(s, a.resume) : undefined;
		// The owner's sessions keep their output to the transcript; a script's also gets it.
		const kept = transcript
			? [
					keepOutput(
						agentProcess.stdout as ReadableStream<Uint8Array>,
						o.supervised ? undefined : process.stdout,
						transcript.channel(),
						captured,
					),
					keepOutput(
						agentProcess.stderr as ReadableStream<Uint8Array>,
						o.supervised ? undefined : process.stderr,
						transcript.channel(),
					),
				]
			: [];
		// With nobody at a terminal to stop it, an attempt ends at sessions.max_wall_seconds at most.
		const wallSeconds = config.sessions.max_wall_seconds;
		const wall = transcript
			? setTimeout(() => {
					o.log(
						`roundtable: session ${session.id} reached sessions.max_wall_seconds (${wallSeconds} s): stopping it`,
					);
					stopper.end("wall time");
				}, wallSeconds * 1000)
			: undefined;
		let endedBy: Outcome["endedBy"];
		try {
			await agentProcess.exited;
		} finally {
			clearTimeout(wall);
			endedBy = stopper.detach();
			rmSync(pidFile(s.dir), { force: true });
		}
		await Promise.all(kept);
		const signal = agentProcess.signalCode;
		const code =
			endedBy === "wall time" ? 124 : (agentProcess.exitCode ?? 128 + (signalNumber(String(signal)) ?? 0));
		const reason =
			endedBy === "wall time"
				? `stopped at sessions.max_wall_seconds (${wallSeconds} s)`
				: endedBy === "stop"
					? "stopped"
					: signal
						? `killed by ${signal}`
						: `exit ${agentProcess.exitCode}`;
		const stopped = endedBy === "stop" || (endedBy === undefined && stopper.requested !== undefined);
		return { code, reason, endedBy, stopped, durationMs: Date.now() - started };
	} finally {
		transcript?.close();
		proxy?.close();
		login?.finish();
	}
}

/**
 * Watches the start of the agent's stdout for its CLI's conversation id (what a retry resumes) and
 * records the first one seen, unless it is the one this attempt resumed.
 */
function capture(s: Opened, resumed: string | undefined): (chunk: Uint8Array) => void {
	let seen = 0;
	let line = "";
	let done = false;
	const decoder = new TextDecoder();
	return (chunk) => {
		if (done) return;
		seen += chunk.length;
		line += decoder.decode(chunk, { stream: true });
		let nl = line.indexOf("\n");
		while (nl !== -1 && !done) {
			const id = externalSessionId(s.adapterName, line.slice(0, nl).trim());
			line = line.slice(nl + 1);
			nl = line.indexOf("\n");
			// An id is one word of safe characters (it goes into the resumed command line and the briefing's
			// resume command): anything else the agent printed is not taken for one.
			if (id === undefined || !CALLER_ID_PATTERN.test(id)) continue;
			done = true;
			if (id !== resumed)
				void call(
					s.rt,
					"session.supervision",
					{ session_id: s.session.id, event: "captured", external_session_id: id },
					systemContext(),
				).catch((err) =>
					s.o.log(
						`roundtable: could not record session ${s.session.id}'s conversation: ${(err as Error).message}`,
					),
				);
		}
		if (seen > CAPTURE_BYTES) done = true;
		if (line.length > CAPTURE_BYTES) line = "";
	};
}

/** The agent's process and when it started (so a pid reused by another process is never taken for it). */
function recordPid(dir: string, pid: number): void {
	const start = startTime(pid);
	if (start !== undefined) writeFileSync(pidFile(dir), `${pid} ${start}\n`, { mode: 0o600 });
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

export const signalNumber = (name: string): number | undefined => constants.signals[name as NodeJS.Signals];

/** A session.exited event for this attempt's outcome. */
export async function recordExit(
	s: Pick<Opened, "rt" | "session" | "o">,
	attempt: number,
	outcome: Outcome,
	interrupted = false,
): Promise<void> {
	await call(
		s.rt,
		"session.supervision",
		{
			session_id: s.session.id,
			event: "exited",
			attempt,
			status: outcome.code,
			duration_ms: outcome.durationMs,
			why: outcome.reason,
			...(interrupted && { interrupted }),
			...(outcome.stopped && { stopped: true }),
		},
		systemContext(),
	).catch((err) =>
		s.o.log(`roundtable: could not record session ${s.session.id}'s exit: ${(err as Error).message}`),
	);
}
