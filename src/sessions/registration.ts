// Sessions as the operator records them: session.register, .heartbeat and .end for an external
// agent's session, its resume command made from the adapter's pattern, and looking a session up.
import { isAbsolute } from "node:path";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { failedPrecondition, invalidArgument, notFound } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { checkRevision, requireEnabledAgent, requireRun } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";

const PLACEHOLDER = "{{external_session_id}}";

/**
 * The adapter's resume command for an external session, from its `resume_pattern`: null when the
 * adapter cannot resume, or when the pattern needs an external id and there is none.
 */
export function resumeCommandFor(rt: Runtime, adapter: string, external: string | null): string | null {
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
