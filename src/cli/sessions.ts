// `sessions [list]|register|heartbeat|end` and `resume`: the record of the external agent sessions
// (Codex, Claude Code, …) working on the project, and the briefing an agent gets when it comes back.
// Operator commands: session.register, .heartbeat and .end (operator tools, not listed to agents).
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { renderBriefing } from "../briefing/render.ts";
import { claimsById, type ResumeBriefing } from "../briefing/resume.ts";
import { call } from "../dispatch.ts";
import { didYouMean, echo, quoted, suggestion } from "../domain/text.ts";
import { launch as runLaunch } from "../launch/launch.ts";
import { MAX_OPERATOR_PROMPT } from "../launch/prompt.ts";
import type { Binding } from "../launch/session.ts";
import { ownerOf } from "../owner/background.ts";
import type { Result } from "../registry/index.ts";
import { openRuntime } from "../runtime.ts";
import { capabilityHash, newCapability } from "../sessions/capability.ts";
import { transcriptPath } from "../sessions/paths.ts";
import { requireSession } from "../sessions/registration.ts";
import type { Tx } from "../store/index.ts";
import { CALLER_ID_PATTERN, nowIso } from "../vocabulary/ids.ts";
import type { SessionRecord } from "../vocabulary/records.ts";
import type { SessionStatus } from "../vocabulary/statuses.ts";
import { type Flags, UsageError } from "./args.ts";
import { failed, type Outcome, viaSocket } from "./call.ts";
import type { CommandRun } from "./command.ts";
import { print } from "./output.ts";
import { command } from "./runtime.ts";

/** A string flag's value; an empty one counts as not given. */
const text = (flags: Flags, name: string): string | undefined => {
	const value = flags[name];
	return typeof value === "string" && value.trim() !== "" ? value : undefined;
};

/** `--status` for a live session: ending one is `sessions end`, which records when. */
function liveStatus(flags: Flags): SessionStatus | undefined {
	const status = text(flags, "status");
	if (status === undefined || status === "active" || status === "idle") return status;
	if (status === "ended") throw new UsageError("--status cannot be ended: use roundtable sessions end");
	throw new UsageError(
		`--status must be active or idle (was ${quoted(status)})${suggestion(didYouMean(status, ["active", "idle"]))}`,
	);
}

function externalId(flags: Flags): string | undefined {
	const id = text(flags, "external-session-id");
	if (id !== undefined && !CALLER_ID_PATTERN.test(id))
		throw new UsageError(
			`--external-session-id may hold only letters, digits and . _ : - (at most 128): it goes into a resume command`,
		);
	return id;
}

const sessionFlag = (flags: Flags): string => {
	const id = text(flags, "session");
	if (id === undefined) throw new UsageError("--session is required");
	return id;
};

/** A minted session's role, binding and capability state; "" for one registered by hand. */
function capabilityText(s: SessionRecord, now: string): string {
	if (s.expires_at === null) return "";
	const binding = s.proposal_id
		? `proposal:${s.proposal_id}`
		: s.task_id
			? `task:${s.task_id}`
			: s.run_id
				? `run:${s.run_id}`
				: "unbound";
	const state =
		s.revoked_at !== null
			? `revoked ${s.revoked_at}`
			: s.expires_at <= now
				? `expired ${s.expires_at}`
				: `until ${s.expires_at}`;
	return ` ${s.role} ${binding} capability ${state}`;
}

export const list = command(async (rt, _ctx, flags) => {
	const read = (tx: Tx) => Promise.all([tx.sessions.list(), tx.sessions.drafts()]);
	const [sessions, drafts] = await rt.store.withTransaction("read", read);
	const now = nowIso();
	const draftText = (id: string) => {
		const d = drafts.get(id);
		return d
			? ` draft ${d.sha256.slice(0, 12)} (${d.files.length} file${d.files.length === 1 ? "" : "s"})`
			: "";
	};
	return print(
		flags,
		{ sessions, drafts: Object.fromEntries(drafts) },
		sessions.map(
			(s) =>
				`${s.id} ${s.agent_id} ${s.status} ${s.adapter} ${s.resume_command ?? "-"}${capabilityText(s, now)}${s.attempt > 1 ? ` attempt ${s.attempt}` : ""}${draftText(s.id)}`,
		),
	);
});

/** `--agent` and what `--task`, `--proposal`, `--run` and `--ttl` bind a minted or launched session to. */
function bindingOf(flags: Flags): { agent: string; binding: Binding } {
	const agent = text(flags, "agent");
	if (agent === undefined) throw new UsageError("--agent is required");
	const ttl = flags.ttl as number | undefined;
	if (ttl !== undefined && ttl < 1) throw new UsageError("--ttl must be at least 1 second");
	const task = text(flags, "task");
	const proposal = text(flags, "proposal");
	const run = text(flags, "run");
	return {
		agent,
		binding: {
			...(task !== undefined && { task_id: task }),
			...(proposal !== undefined && { proposal_id: proposal }),
			...(run !== undefined && { run_id: run }),
			...(ttl !== undefined && { ttl_seconds: ttl }),
		},
	};
}

export const mint = command(async (rt, ctx, flags) => {
	const { agent, binding } = bindingOf(flags);
	// The capability is made here and never leaves this process but on stdout: the call gets its hash.
	const capability = newCapability();
	const { session } = await call(
		rt,
		"session.mint",
		{
			agent_id: agent,
			capability_sha256: capabilityHash(capability),
			...binding,
		},
		ctx,
	);
	if (flags.json) return print(flags, { capability, session }, []);
	process.stderr.write(
		`session ${session.id} for ${session.agent_id}:${capabilityText(session, nowIso())}\n`,
	);
	process.stdout.write(`${capability}\n`);
	return 0;
});

export const revoke = command(async (rt, ctx, flags) => {
	const { session, changed } = await call(rt, "session.revoke", { session_id: sessionFlag(flags) }, ctx);
	return print(flags, { session, changed }, [
		`${session.id} revoked ${session.revoked_at}${changed ? "" : " (already revoked)"}`,
	]);
});

export const register = command(async (rt, ctx, flags) => {
	const required = ["id", "agent", "run", "adapter", "cwd"] as const;
	const missing = required.filter((name) => text(flags, name) === undefined).map((name) => `--${name}`);
	if (missing.length > 0) {
		const names =
			missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} and ${missing.at(-1)}`;
		throw new UsageError(`${names} ${missing.length === 1 ? "is" : "are"} required`);
	}
	const [id, agentId, runId, adapter, cwd] = required.map((name) => text(flags, name) as string) as [
		string,
		string,
		string,
		string,
		string,
	];
	if (!CALLER_ID_PATTERN.test(id))
		throw new UsageError("--id may hold only letters, digits and . _ : - (at most 128)");
	const status = liveStatus(flags);
	const external = externalId(flags);
	const optional = {
		provider: "provider",
		model: "model",
		mcp_socket: "mcp-socket",
		resume_command: "resume-command",
	};
	const { session } = await call(
		rt,
		"session.register",
		{
			session_id: id,
			agent_id: agentId,
			run_id: runId,
			adapter,
			cwd: resolve(cwd),
			...(status !== undefined && { status }),
			...(external !== undefined && { external_session_id: external }),
			...Object.fromEntries(
				Object.entries(optional).flatMap(([arg, flag]) => {
					const value = text(flags, flag);
					return value === undefined ? [] : [[arg, value]];
				}),
			),
		},
		ctx,
	);
	return print(flags, { session }, [
		`${session.id} ${session.agent_id} ${session.status} ${session.resume_command ?? "-"}`,
	]);
});

export const heartbeat = command(async (rt, ctx, flags) => {
	const id = sessionFlag(flags);
	const status = liveStatus(flags);
	const external = externalId(flags);
	const { session } = await call(
		rt,
		"session.heartbeat",
		{
			session_id: id,
			...(status !== undefined && { status }),
			...(external !== undefined && { external_session_id: external }),
		},
		ctx,
	);
	return print(flags, { session }, [`${session.id} ${session.status} ${session.last_seen_at}`]);
});

export const end = command(async (rt, ctx, flags) => {
	const { session } = await call(rt, "session.end", { session_id: sessionFlag(flags) }, ctx);
	return print(flags, { session }, [`${session.id} ${session.status} ${session.ended_at}`]);
});

export const resume = command(async (rt, ctx, flags) => {
	const sessionId = text(flags, "session");
	const agentId = text(flags, "agent");
	if (sessionId === undefined && agentId === undefined)
		throw new UsageError("resume requires --session or --agent");
	if (sessionId !== undefined && agentId !== undefined)
		throw new UsageError("give --session or --agent, not both");
	const session = await rt.store.withTransaction("read", async (tx) => {
		if (sessionId !== undefined) return requireSession(tx, sessionId);
		const agent = agentId as string;
		const latest = await tx.sessions.latestFor(agent);
		if (latest) return latest;
		const known = (await tx.agents.get(agent)) !== undefined;
		throw new Error(
			`no agent session found for ${echo(agent)}${known ? "" : suggestion(didYouMean(agent, await tx.agents.ids()))}`,
		);
	});
	// The same reconciliation as `claims reconcile`, for this agent: claims whose resource changed
	// since they were taken are suspended before the briefing lists what the agent still holds. Only
	// the ids of those it suspended now are needed (`suspended`), so the listing is one row.
	const reconciled = await call(
		rt,
		"resource.claim_status",
		{ reconcile: true, agent_id: session.agent_id, status: "suspended", limit: 1 },
		ctx,
	);
	// The briefing is agent.brief's, through the same door as an agent's own call.
	const brief = await call(rt, "agent.brief", { agent_id: session.agent_id }, ctx);
	const suspended = await rt.store.withTransaction("read", (tx) =>
		claimsById(tx, reconciled.suspended, nowIso()),
	);
	const briefing: ResumeBriefing = { session, ...brief, suspended_claims: suspended };
	if (flags.json) return print(flags, briefing, []);
	process.stdout.write(renderBriefing(briefing));
	return 0;
});

/** `sessions log ID [--follow]`: a headless session's transcript; with --follow, until the session ends. */
export const log = command(async (rt, ctx, flags) => {
	const id = text(flags, "session");
	if (id === undefined) throw new UsageError("sessions log needs the session's id");
	const path = transcriptPath(rt.root, id);
	const ended = async () => {
		const s = await rt.store.withTransaction("read", (tx) => tx.sessions.get(id));
		if (!s) throw new UsageError(`no session ${quoted(id)}`);
		return s.status === "ended";
	};
	const done = await ended();
	let offset = 0;
	const printNew = () => {
		const size = existsSync(path) ? statSync(path).size : 0;
		// Past its bound the file was trimmed to its newest part: go on from its new end.
		if (size < offset) offset = size;
		if (size === offset) return;
		const fd = openSync(path, "r");
		try {
			const bytes = Buffer.alloc(size - offset);
			readSync(fd, bytes, 0, bytes.length, offset);
			process.stdout.write(bytes);
			offset = size;
		} finally {
			closeSync(fd);
		}
	};
	if (!existsSync(path) && (done || flags.follow !== true)) {
		process.stderr.write(
			`roundtable: session ${id} has no transcript (only a session launched without a terminal keeps one)\n`,
		);
		return 1;
	}
	printNew();
	if (flags.follow !== true || done) return 0;
	while (!ctx.signal.aborted) {
		await Bun.sleep(200);
		const over = await ended();
		printNew();
		if (over) break;
	}
	return 0;
});

/** A tool called through the owner's socket, starting an owner in the background when none runs. */
async function throughOwner(root: string, tool: string, args: object): Promise<Outcome> {
	const owner = await ownerOf(root, (line) => process.stderr.write(`${line}\n`));
	if (owner.socket_path === null)
		return { error: { code: "failed_precondition", message: "the project's owner serves no socket" } };
	return viaSocket(owner.socket_path, tool, args);
}

/** `sessions start`: a headless session in the owner; prints its id at once. */
export const start: CommandRun = {
	async run(flags) {
		const { agent, binding } = bindingOf(flags);
		const adapter = text(flags, "adapter");
		const prompt = text(flags, "prompt");
		const outcome = await throughOwner(resolve(flags.root), "session.start", {
			agent_id: agent,
			...(binding.task_id !== undefined && { task_id: binding.task_id }),
			...(binding.proposal_id !== undefined && { proposal_id: binding.proposal_id }),
			...(binding.run_id !== undefined && { run_id: binding.run_id }),
			...(adapter !== undefined && { adapter }),
			...(prompt !== undefined && { prompt }),
		});
		if (failed(outcome)) return 1;
		const { session } = (outcome as { result: Result<"session.start"> }).result;
		process.stderr.write(
			`roundtable: headless session ${session.id} started for ${session.agent_id}; roundtable sessions log ${session.id} --follow\n`,
		);
		process.stdout.write(`${session.id}\n`);
		return 0;
	},
};

/** `sessions stop ID`: SIGTERM to a headless session's agent, SIGKILL 10 s later. */
export const stop: CommandRun = {
	async run(flags) {
		const id = text(flags, "session");
		if (id === undefined) throw new UsageError("sessions stop needs the session's id");
		const outcome = await throughOwner(resolve(flags.root), "session.stop", { session_id: id });
		if (failed(outcome)) return 1;
		if (!(outcome as { result: Result<"session.stop"> }).result.stopping) {
			process.stderr.write(`roundtable: no headless session ${id} runs in this project's owner\n`);
			return 1;
		}
		process.stderr.write(`roundtable: stopping ${id} (SIGTERM to its agent, SIGKILL 10 s later)\n`);
		return 0;
	},
};

export const launch: CommandRun = {
	async run(flags, rest) {
		const { agent, binding } = bindingOf(flags);
		const adapter = text(flags, "adapter");
		const prompt = text(flags, "prompt");
		if (prompt !== undefined && prompt.length > MAX_OPERATOR_PROMPT)
			throw new UsageError(`--prompt is ${prompt.length} characters; at most ${MAX_OPERATOR_PROMPT}`);
		const rt = openRuntime(flags.root);
		try {
			return await runLaunch(rt, {
				agent,
				binding,
				...(adapter !== undefined && { adapter }),
				...(prompt !== undefined && { prompt }),
				...(rest !== undefined && { command: rest }),
				log: (line) => process.stderr.write(`${line}\n`),
			});
		} finally {
			rt.close();
		}
	},
};
