// Sessions minted for a capability (session.mint), for an agent the owner launches: revoking one,
// closing one when its agent exits (its claims released, suspended or held), marking one used.
import { releaseClaim, suspendClaim } from "../claims/lifecycle.ts";
import { actorId } from "../context.ts";
import { failedPrecondition, invalidArgument } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import {
	newRecordId,
	requireEnabledAgent,
	requireProposal,
	requireRun,
	requireTask,
} from "../handlers/records.ts";
import { OPEN } from "../proposals/open.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { sessionSocketPath } from "./paths.ts";
import { requireSession } from "./registration.ts";

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
	if (a.adapter !== undefined && !rt.config.adapters[a.adapter])
		throw invalidArgument(
			`unknown adapter ${a.adapter}; the configured adapters are ${Object.keys(rt.config.adapters).sort().join(", ")}`,
			{ field: "adapter" },
		);
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
			adapter: a.adapter ?? agent.adapter,
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
	if (a.draft) await tx.sessions.keepDraft(session.id, a.draft, now);
	await tx.events.append(
		{
			type: "session.closed",
			actor_id: actorId(env.ctx),
			run_id: session.run_id,
			task_id: session.task_id,
			payload: {
				session_id: session.id,
				agent_id: session.agent_id,
				reason: a.reason ?? null,
				...outcome,
				...(a.draft && { draft: { sha256: a.draft.sha256, files: a.draft.files.map((f) => f.path) } }),
			},
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

export async function egressRefused(tx: Tx, a: Args<"session.egress_refused">, env: Env) {
	const session = await requireSession(tx, a.session_id);
	const event = await tx.events.append(
		{
			type: "session.egress_refused",
			actor_id: session.agent_id,
			run_id: session.run_id,
			task_id: session.task_id,
			payload: { session_id: session.id, host: a.host, port: a.port, reason: a.reason },
		},
		env.now,
	);
	return { event };
}
