// `sessions [list]|register|heartbeat|end` and `resume`: the record of the external agent sessions
// (Codex, Claude Code, …) working on the project, and the briefing an agent gets when it comes back.
// Operator commands only; there are no MCP tools for sessions.
import { resolve } from "node:path";
import { call } from "../dispatch.ts";
import { CALLER_ID_PATTERN, nowIso } from "../domain/ids.ts";
import type { SessionStatus } from "../domain/statuses.ts";
import { didYouMean, echo, quoted, suggestion } from "../domain/suggest.ts";
import type { Runtime } from "../runtime.ts";
import { buildBriefing, renderBriefing } from "../sessions/briefing.ts";
import type { Tx } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";
import { requireEnabledAgent, requireRun } from "../tools/common.ts";
import { type Flags, UsageError } from "./args.ts";
import { print } from "./output.ts";
import { command } from "./runtime.ts";

const PLACEHOLDER = "{{external_session_id}}";

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

async function requireSession(tx: Tx, id: string): Promise<SessionRow> {
	const session = await tx.sessions.get(id);
	if (!session) throw new Error(`session ${id} not found`);
	return session;
}

const sessionFlag = (flags: Flags): string => {
	const id = text(flags, "session");
	if (id === undefined) throw new UsageError("--session is required");
	return id;
};

export const list = command(async (rt, _ctx, flags) => {
	const sessions = await rt.store.withTransaction("read", (tx) => tx.sessions.list());
	return print(
		flags,
		{ sessions },
		sessions.map((s) => `${s.id} ${s.agent_id} ${s.status} ${s.adapter} ${s.resume_command ?? "-"}`),
	);
});

export const register = command(async (rt, _ctx, flags) => {
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
	const status = liveStatus(flags) ?? "active";
	const external = externalId(flags) ?? null;
	if (!rt.config.adapters[adapter]) {
		const known = Object.keys(rt.config.adapters).sort();
		throw new Error(
			`unknown adapter ${quoted(adapter)}${suggestion(didYouMean(adapter, known))}; the configured adapters are ${known.join(", ")}`,
		);
	}
	const resumeCommand = text(flags, "resume-command") ?? resumeCommandFor(rt, adapter, external);
	const session = await rt.store.withTransaction("write", async (tx) => {
		const now = nowIso();
		await requireEnabledAgent(tx, agentId, "agent");
		await requireRun(tx, runId);
		const before = await tx.sessions.get(id);
		if (before && before.agent_id !== agentId)
			throw new Error(
				`session ${id} belongs to ${before.agent_id}; register ${agentId}'s session under another id`,
			);
		const saved = await tx.sessions.upsert(
			{
				id,
				agent_id: agentId,
				run_id: runId,
				adapter,
				provider: text(flags, "provider") ?? null,
				model: text(flags, "model") ?? null,
				external_session_id: external,
				resume_command: resumeCommand,
				cwd: resolve(cwd),
				mcp_socket: text(flags, "mcp-socket") ?? null,
				status,
			},
			now,
		);
		await tx.events.append(
			{
				type: "session.registered",
				actor_id: agentId,
				run_id: runId,
				payload: {
					session_id: id,
					agent_id: agentId,
					adapter,
					status,
					external_session_id: external,
					resume_command: resumeCommand,
					reregistered: before !== undefined,
				},
			},
			now,
		);
		return saved;
	});
	return print(flags, { session }, [
		`${session.id} ${session.agent_id} ${session.status} ${session.resume_command ?? "-"}`,
	]);
});

export const heartbeat = command(async (rt, _ctx, flags) => {
	const id = sessionFlag(flags);
	const status = liveStatus(flags);
	const external = externalId(flags);
	const session = await rt.store.withTransaction("write", async (tx) => {
		const now = nowIso();
		const before = await requireSession(tx, id);
		if (before.status === "ended")
			throw new Error(`session ${id} ended at ${before.ended_at}; register it again to reopen it`);
		const externalChanged = external !== undefined && external !== before.external_session_id;
		// A resume command made from the adapter's pattern follows the external id; one given by hand stays.
		const derived = resumeCommandFor(rt, before.adapter, before.external_session_id);
		const resumeCommand =
			externalChanged && (before.resume_command === null || before.resume_command === derived)
				? resumeCommandFor(rt, before.adapter, external)
				: null;
		const saved = await tx.sessions.heartbeat(
			id,
			{
				...(status !== undefined && { status }),
				...(external !== undefined && { external_session_id: external }),
				...(resumeCommand !== null && { resume_command: resumeCommand }),
			},
			now,
		);
		if (saved.status !== before.status || externalChanged) {
			await tx.events.append(
				{
					type: "session.heartbeat",
					actor_id: saved.agent_id,
					run_id: saved.run_id,
					payload: {
						session_id: id,
						status: saved.status,
						previous_status: before.status,
						external_session_id: saved.external_session_id,
						previous_external_session_id: before.external_session_id,
						resume_command: saved.resume_command,
					},
				},
				now,
			);
		}
		return saved;
	});
	return print(flags, { session }, [`${session.id} ${session.status} ${session.last_seen_at}`]);
});

export const end = command(async (rt, _ctx, flags) => {
	const id = sessionFlag(flags);
	const session = await rt.store.withTransaction("write", async (tx) => {
		const now = nowIso();
		const before = await requireSession(tx, id);
		if (before.status === "ended") throw new Error(`session ${id} already ended at ${before.ended_at}`);
		const saved = await tx.sessions.end(id, now);
		await tx.events.append(
			{
				type: "session.ended",
				actor_id: saved.agent_id,
				run_id: saved.run_id,
				payload: { session_id: id, previous_status: before.status, ended_at: saved.ended_at },
			},
			now,
		);
		return saved;
	});
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
	const briefing = await rt.store.withTransaction("read", (tx) =>
		buildBriefing(tx, session, reconciled.suspended, nowIso()),
	);
	if (flags.json) return print(flags, briefing, []);
	process.stdout.write(renderBriefing(briefing));
	return 0;
});
