// session.register, .heartbeat, .end and agent.enable, .disable: the operator's record of external
// agent sessions and switch for each agent. An agent the operator disabled stays disabled through
// config sync; one the config removed comes back only through the config.
import { isAbsolute } from "node:path";
import { releaseClaim, suspendClaim } from "../claims/lifecycle.ts";
import { configuredAgents } from "../config/agents.ts";
import { CONFIG_PATH } from "../config/paths.ts";
import { actorId } from "../context.ts";
import { didYouMean, quoted, suggestion } from "../domain/did-you-mean.ts";
import type { Env } from "../engine/env.ts";
import {
	checkRevision,
	newRecordId,
	requireEnabledAgent,
	requireProposal,
	requireRun,
	requireTask,
} from "../engine/records.ts";
import { failedPrecondition, invalidArgument, notFound } from "../errors.ts";
import { OPEN } from "../proposals/open.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import { sessionSocketPath } from "../sessions/paths.ts";
import type { StoredAgent } from "../store/agents.ts";
import type { Tx } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";

const PLACEHOLDER = "{{external_session_id}}";

/**
 * The adapter's resume command for an external session, from its `resume_pattern`: null when the
 * adapter cannot resume, or when the pattern needs an external id and there is none.
 */
function resumeCommandFor(rt: Runtime, adapter: string, external: string | null): string | null {
	const a = rt.config.adapters[adapter];
	if (!a?.supports_resume || a.resume_pattern.trim() === "") return null;
	if (!a.resume_pattern.includes(PLACEHOLDER)) return a.resume_pattern;
	return external === null ? null : a.resume_pattern.replaceAll(PLACEHOLDER, external);
}

export async function requireSession(tx: Tx, id: string): Promise<SessionRow> {
	const session = await tx.sessions.get(id);
	if (!session) throw notFound(`session ${id} not found`, { session_id: id });
	return session;
}

async function requireLive(tx: Tx, id: string, expected: number | undefined): Promise<SessionRow> {
	const session = await requireSession(tx, id);
	checkRevision(session, expected);
	return session;
}

export async function register(tx: Tx, a: Args<"session.register">, env: Env) {
	const { rt, now } = env;
	if (!rt.config.adapters[a.adapter]) {
		const known = Object.keys(rt.config.adapters).sort();
		throw invalidArgument(
			`unknown adapter ${quoted(a.adapter)}${suggestion(didYouMean(a.adapter, known))}; the configured adapters are ${known.join(", ")}`,
			{ field: "adapter" },
		);
	}
	if (!isAbsolute(a.cwd)) throw invalidArgument("cwd must be an absolute path", { field: "cwd" });
	const external = a.external_session_id ?? null;
	const resumeCommand = a.resume_command ?? resumeCommandFor(rt, a.adapter, external);
	const status = a.status ?? "active";
	await requireEnabledAgent(tx, a.agent_id, "agent");
	await requireRun(tx, a.run_id);
	const before = await tx.sessions.get(a.session_id);
	if (before && before.agent_id !== a.agent_id)
		throw failedPrecondition(
			`session ${a.session_id} belongs to ${before.agent_id}; register ${a.agent_id}'s session under another id`,
			{ session_id: a.session_id, agent_id: before.agent_id },
		);
	const session = await tx.sessions.upsert(
		{
			id: a.session_id,
			agent_id: a.agent_id,
			run_id: a.run_id,
			adapter: a.adapter,
			provider: a.provider ?? null,
			model: a.model ?? null,
			external_session_id: external,
			resume_command: resumeCommand,
			cwd: a.cwd,
			mcp_socket: a.mcp_socket ?? null,
			status,
		},
		now,
	);
	await tx.events.append(
		{
			type: "session.registered",
			actor_id: a.agent_id,
			run_id: a.run_id,
			payload: {
				session_id: a.session_id,
				agent_id: a.agent_id,
				adapter: a.adapter,
				status,
				external_session_id: external,
				resume_command: resumeCommand,
				reregistered: before !== undefined,
			},
		},
		now,
	);
	return { session };
}

export async function heartbeat(tx: Tx, a: Args<"session.heartbeat">, env: Env) {
	const { rt, now } = env;
	const before = await requireLive(tx, a.session_id, a.expected_revision);
	if (before.status === "ended")
		throw failedPrecondition(
			`session ${a.session_id} ended at ${before.ended_at}; register it again to reopen it`,
			{ session_id: a.session_id, status: before.status },
		);
	const external = a.external_session_id;
	const externalChanged = external !== undefined && external !== before.external_session_id;
	// A resume command made from the adapter's pattern follows the external id; one given by hand stays.
	const derived = resumeCommandFor(rt, before.adapter, before.external_session_id);
	const resumeCommand =
		externalChanged && (before.resume_command === null || before.resume_command === derived)
			? resumeCommandFor(rt, before.adapter, external)
			: null;
	const session = await tx.sessions.heartbeat(
		a.session_id,
		{
			...(a.status !== undefined && { status: a.status }),
			...(external !== undefined && { external_session_id: external }),
			...(resumeCommand !== null && { resume_command: resumeCommand }),
		},
		now,
	);
	if (session.status !== before.status || externalChanged) {
		await tx.events.append(
			{
				type: "session.heartbeat",
				actor_id: session.agent_id,
				run_id: session.run_id,
				payload: {
					session_id: a.session_id,
					status: session.status,
					previous_status: before.status,
					external_session_id: session.external_session_id,
					previous_external_session_id: before.external_session_id,
					resume_command: session.resume_command,
				},
			},
			now,
		);
	}
	return { session };
}

export async function end(tx: Tx, a: Args<"session.end">, env: Env) {
	const before = await requireLive(tx, a.session_id, a.expected_revision);
	if (before.status === "ended")
		throw failedPrecondition(`session ${a.session_id} already ended at ${before.ended_at}`, {
			session_id: a.session_id,
			status: before.status,
		});
	const session = await tx.sessions.end(a.session_id, env.now);
	await tx.events.append(
		{
			type: "session.ended",
			actor_id: session.agent_id,
			run_id: session.run_id,
			payload: { session_id: a.session_id, previous_status: before.status, ended_at: session.ended_at },
		},
		env.now,
	);
	return { session };
}

/** Where an agent the config no longer has would come back from. */
const configKeyOf = (id: string) =>
	id.startsWith("implementer-")
		? "agents.implementers.count"
		: id.startsWith("reviewer-")
			? "agents.reviewers.count"
			: "agents";

async function setEnabled(tx: Tx, id: string, enabled: boolean, env: Env) {
	const agent = await tx.agents.get(id);
	if (!agent) {
		const near = didYouMean(id, await tx.agents.ids());
		throw notFound(`no agent ${quoted(id)}${suggestion(near)}`, {
			agent_id: id,
			...(near && { did_you_mean: near }),
		});
	}
	if (agent.enabled === enabled) return { agent, changed: false };
	if (enabled && !configuredAgents(env.rt.config).some((a) => a.id === id))
		throw failedPrecondition(
			`agent ${id} is not in ${CONFIG_PATH} any more, so it stays disabled; add it back to the config (${configKeyOf(id)}) and it is enabled at the next sync (init, start)`,
			{ agent_id: id },
		);
	await tx.agents.setEnabled(id, enabled, enabled ? null : "operator", env.now);
	// The events config sync writes when it enables or disables an agent, with the reason.
	await tx.events.append(
		{
			type: enabled ? "agent.enabled" : "agent.disabled",
			actor_id: "operator",
			payload: { agent_id: id, reason: enabled ? "enabled by the operator" : "disabled by the operator" },
		},
		env.now,
	);
	return { agent: (await tx.agents.get(id)) as StoredAgent, changed: true };
}

export const enable = (tx: Tx, a: Args<"agent.enable">, env: Env) => setEnabled(tx, a.agent_id, true, env);
export const disable = (tx: Tx, a: Args<"agent.disable">, env: Env) => setEnabled(tx, a.agent_id, false, env);

/**
 * session.mint: a session for the capability whose hash the caller gives. The agent acts in its
 * configured role; a task must be assigned to it, a proposal open, a run active.
 */
export async function mint(tx: Tx, a: Args<"session.mint">, env: Env) {
	const { rt, now } = env;
	const agent = await requireEnabledAgent(tx, a.agent_id, "agent_id");
	const id = await newRecordId(
		"session",
		{ field: "session_id", value: a.session_id, label: "session" },
		(s) => tx.sessions.get(s),
	);
	if (await tx.sessions.byCapability(a.capability_sha256))
		throw failedPrecondition("that capability already opens a session: make a new one", {
			field: "capability_sha256",
		});
	const task = a.task_id === undefined ? undefined : await requireTask(tx, a.task_id);
	if (task && task.assigned_agent_id !== agent.id)
		throw failedPrecondition(
			`task ${task.id} is assigned to ${task.assigned_agent_id ?? "nobody"}, not ${agent.id}`,
			{ task_id: task.id, assigned_agent_id: task.assigned_agent_id },
		);
	const proposal = a.proposal_id === undefined ? undefined : await requireProposal(tx, a.proposal_id);
	if (proposal && !OPEN.includes(proposal.status))
		throw failedPrecondition(`proposal ${proposal.id} is ${proposal.status}, not open`, {
			proposal_id: proposal.id,
			status: proposal.status,
		});
	if (task && proposal && proposal.task_id !== task.id)
		throw invalidArgument(`proposal ${proposal.id} is not of task ${task.id}`, { field: "proposal_id" });
	const runId = a.run_id ?? task?.run_id ?? proposal?.run_id ?? null;
	if (runId !== null) {
		const run = await requireRun(tx, runId);
		if (run.status !== "active")
			throw failedPrecondition(`run ${run.id} is ${run.status}, not active`, { run_id: run.id });
	}
	const ttl = a.ttl_seconds ?? rt.config.sessions.capability_ttl_seconds;
	const socket = a.endpoint ? sessionSocketPath(rt.root, id) : null;
	const expires = new Date(Date.parse(now) + ttl * 1000).toISOString();
	const session = await tx.sessions.mint(
		{
			id,
			agent_id: agent.id,
			run_id: runId,
			adapter: agent.adapter,
			provider: null,
			model: agent.model,
			external_session_id: null,
			resume_command: null,
			cwd: rt.root,
			mcp_socket: socket,
			status: "active",
			capability_sha256: a.capability_sha256,
			role: agent.role,
			task_id: task?.id ?? null,
			proposal_id: proposal?.id ?? null,
			expires_at: expires,
		},
		now,
	);
	await tx.events.append(
		{
			type: "session.minted",
			actor_id: actorId(env.ctx),
			run_id: runId,
			task_id: session.task_id,
			payload: {
				session_id: id,
				agent_id: agent.id,
				role: agent.role,
				task_id: session.task_id,
				proposal_id: session.proposal_id,
				expires_at: expires,
				mcp_socket: socket,
			},
		},
		now,
	);
	return { session };
}

export async function revoke(tx: Tx, a: Args<"session.revoke">, env: Env) {
	const before = await requireSession(tx, a.session_id);
	if (before.expires_at === null)
		throw failedPrecondition(`session ${before.id} was registered, not minted: it has no capability`, {
			session_id: before.id,
		});
	if (before.revoked_at !== null) return { session: before, changed: false };
	const session = await tx.sessions.revoke(before.id, env.now);
	await tx.events.append(
		{
			type: "session.revoked",
			actor_id: actorId(env.ctx),
			run_id: session.run_id,
			task_id: session.task_id,
			payload: { session_id: session.id, agent_id: session.agent_id, previous_status: before.status },
		},
		env.now,
	);
	return { session, changed: true };
}

export async function recordDenial(tx: Tx, a: Args<"session.record_denial">, env: Env) {
	const event = await tx.events.append(
		{
			type: "call.denied",
			actor_id: a.agent_id,
			payload: {
				tool: a.tool,
				code: a.code,
				reason: a.reason,
				agent_id: a.agent_id,
				session_id: a.session_id,
				count: a.count,
			},
		},
		env.now,
	);
	return { event };
}

/** session.close: what happens when a launched agent exits. */
export async function close(tx: Tx, a: Args<"session.close">, env: Env) {
	const { now } = env;
	const before = await requireSession(tx, a.session_id);
	const outcome = { held: [] as string[], released: [] as string[], suspended: [] as string[] };
	if (before.status === "ended" && (before.expires_at === null || before.revoked_at !== null))
		return { session: before, changed: false, ...outcome };
	const reason = `session ${before.id} ended${a.reason ? `: ${a.reason}` : ""}`;
	for (const c of await tx.claims.liveOfSession(before.id, now)) {
		if (c.resume_policy === "release") {
			await releaseClaim(tx, c, { actor: actorId(env.ctx), reason, forced: false }, now);
			outcome.released.push(c.id);
		} else if (c.resume_policy === "suspend" && c.status === "active") {
			await suspendClaim(tx, c, actorId(env.ctx), reason, now);
			outcome.suspended.push(c.id);
		} else outcome.held.push(c.id);
	}
	let session = before.status === "ended" ? before : await tx.sessions.end(before.id, now);
	if (session.expires_at !== null && session.revoked_at === null)
		session = await tx.sessions.revoke(session.id, now);
	await tx.events.append(
		{
			type: "session.closed",
			actor_id: actorId(env.ctx),
			run_id: session.run_id,
			task_id: session.task_id,
			payload: { session_id: session.id, agent_id: session.agent_id, reason: a.reason ?? null, ...outcome },
		},
		now,
	);
	return { session, changed: true, ...outcome };
}

export async function touch(tx: Tx, a: Args<"session.touch">, env: Env) {
	const before = await requireSession(tx, a.session_id);
	const session = await tx.sessions.heartbeat(before.id, {}, env.now);
	if (a.tools !== undefined) {
		await tx.events.append(
			{
				type: "session.tools_listed",
				actor_id: session.agent_id,
				run_id: session.run_id,
				task_id: session.task_id,
				payload: { session_id: session.id, tools: a.tools, client: a.client ?? null },
			},
			env.now,
		);
	}
	return { session };
}
