// `table` and `watch`: operator views, read through the same tools agents use.
import type { CallContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { ToolError } from "../errors.ts";
import { findOwner } from "../owner/presence.ts";
import type { Result } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import type { EventRecord } from "../vocabulary/records.ts";
import type { CommandRun } from "./command.ts";
import { waitForEvents, withRuntime } from "./runtime.ts";

const print = (lines: string[]) => {
	if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
};

export const table: CommandRun = {
	run: (flags) =>
		withRuntime(flags.root, async (rt, ctx) => {
			const s = await call(rt, "table.get_state", {}, ctx);
			if (flags.json) {
				process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
				return 0;
			}
			const enabled = s.agents.filter((a) => a.enabled).length;
			print([
				`RUNS ${s.runs.length}`,
				...s.runs.map((r) => `  ${r.id} [${r.status}] ${r.goal || "(no goal)"}`),
				`AGENTS ${s.agents.length} (${enabled} enabled)`,
				...s.agents.map((a) => `  ${a.id} ${a.role} ${a.adapter}${a.enabled ? "" : " (disabled)"}`),
				`TASKS ${s.tasks.length}`,
				...s.tasks.map(
					(t) => `  ${t.id} [${t.status}] p${t.priority} ${t.assigned_agent_id ?? "-"} ${t.title}`,
				),
				`CLAIMS ${s.claims.length}`,
				`PROPOSALS ${s.proposals.length}`,
				`TRANSACTIONS ${s.transactions.length}`,
				`APPROVALS ${s.human_approvals.length}`,
				`SECURITY_REVIEWS ${s.security_reviews.length}`,
				`MEMORY ${s.memory.length}`,
			]);
			return 0;
		}),
};

/** Whether an owner serves the project, from its owner.json. */
function ownerLine(root: string): string {
	const owner = findOwner(root);
	return owner
		? `OWNER pid=${owner.pid} http=${owner.http_url ?? "-"} socket=${owner.socket_path ?? "-"}`
		: "OWNER none (start one with `roundtable start`)";
}

/** A payload field as text; `?` when it is missing. */
const field = (p: Record<string, unknown>, key: string) => {
	const v = p[key];
	return typeof v === "string" || typeof v === "number" ? String(v) : "?";
};

/** What a peer question or message event is about: which request or message, between whom. */
function peerDetail(e: EventRecord): string | undefined {
	const p = e.payload;
	const request = () => `${field(p, "request_id")} ${field(p, "requester_id")} → ${field(p, "assignee_id")}`;
	switch (e.type) {
		case "peer.asked":
		case "peer.cancelled":
			return request();
		case "peer.answered":
			return `${request()} answer ${field(p, "answer_id")}`;
		case "peer.replied_late":
			return `${request()} late answer ${field(p, "answer_id")}`;
		case "message.posted": {
			const to = typeof p.channel === "string" ? `#${p.channel}` : field(p, "to_agent_id");
			const thread = typeof p.thread_id === "string" ? ` in thread ${p.thread_id}` : "";
			return `${field(p, "message_id")} ${field(p, "sender_id")} → ${to}${thread}`;
		}
		case "message.read": {
			const ids = Array.isArray(p.message_ids) ? p.message_ids.map(String) : [];
			const more = ids.length > 3 ? ` (+${ids.length - 3} more)` : "";
			return `${field(p, "reader_id")} read ${ids.slice(0, 3).join(", ") || "?"}${more}`;
		}
		case "message.promoted": {
			const made = p.kind === "decision" ? field(p, "decision_id") : field(p, "task_id");
			return `${field(p, "message_id")} → ${field(p, "kind")} ${made}`;
		}
	}
	return undefined;
}

/**
 * A headless session's attempts (which, how each ended, when the next starts, why it gave up), and
 * the autopilot's decisions (whom it starts for what, and why; why it paused).
 */
function sessionDetail(e: EventRecord): string | undefined {
	const p = e.payload as Record<string, unknown>;
	const s = field(p, "session_id");
	const secs = (ms: unknown) => `${Math.round(Number(ms) / 100) / 10} s`;
	switch (e.type) {
		case "session.started":
			return `${s} attempt ${field(p, "attempt")}${typeof p.resumes === "string" ? ` resuming ${p.resumes}` : ""}`;
		case "session.exited":
			return `${s} attempt ${field(p, "attempt")} ${p.interrupted ? "interrupted" : `status ${field(p, "status")} after ${secs(p.duration_ms)}`}${typeof p.reason === "string" ? `: ${p.reason}` : ""}`;
		case "session.retrying":
			return `${s} attempt ${field(p, "attempt")} in ${secs(p.delay_ms)}: ${field(p, "why")}`;
		case "session.gave_up":
			return `${s}: ${field(p, "why")}`;
		case "autopilot.launch":
			return `${field(p, "agent_id")} for ${field(p, p.proposal_id ? "proposal_id" : p.task_id ? "task_id" : "run_id")}: ${field(p, "why")}`;
		case "autopilot.paused":
		case "autopilot.quorum_unreachable":
			return field(p, "why");
	}
	return undefined;
}

/**
 * One event; a refused call also says what was refused, why, and how many times; a peer question or
 * message event says which one and between whom (events never carry bodies); a headless session's
 * attempt how it went.
 */
const eventLine = (e: EventRecord) => {
	const line = `EVENT ${e.id} ${e.type} ${e.actor_id} ${e.task_id ?? "-"}`;
	const detail = peerDetail(e) ?? sessionDetail(e);
	if (detail !== undefined) return `${line} ${detail}`;
	if (e.type !== "call.denied") return line;
	const { tool, reason, count } = e.payload as { tool: string; reason: string; count: number };
	return `${line} ${tool}${count > 1 ? ` (x${count})` : ""}: ${reason}`;
};

function summaryLines(v: Result<"table.watch">): string[] {
	return [
		`WATCH run=${v.run_id ?? "all"} active_agents=${v.active_agents} open_tasks=${v.open_tasks} active_claims=${v.active_claims} suspended_claims=${v.suspended_claims}`,
		...v.blocked_tasks.map((t) => `BLOCKED ${t.id} ${t.title}`),
		...v.pending_proposals.map((p) => `PROPOSAL ${p.id} ${p.status} ${p.title}`),
		...v.required_approvals.map((a) => `APPROVAL ${a.id} ${a.status} ${a.subject}`),
		...v.transactions.map((x) => `TX ${x.id} ${x.status} ${x.proposal_id}`),
	];
}

async function follow(rt: Runtime, ctx: CallContext, runId: string | undefined, from: number, json: boolean) {
	let cursor = from;
	for (;;) {
		let v: Result<"table.watch">;
		try {
			const args = { after_event_id: cursor, limit: 200, wait_ms: 30_000, ...(runId && { run_id: runId }) };
			v = await waitForEvents(rt, ctx, args);
		} catch (err) {
			if (err instanceof ToolError && err.code === "cancelled") return;
			throw err;
		}
		print(v.events.map((e) => (json ? JSON.stringify(e) : eventLine(e))));
		cursor = v.next_after_event_id;
	}
}

export const watch: CommandRun = {
	run: (flags) =>
		withRuntime(flags.root, async (rt, ctx) => {
			const runId = flags.run as string | undefined;
			const args = {
				...(runId && { run_id: runId }),
				...(flags.limit !== undefined && { limit: flags.limit }),
			};
			const v = await call(rt, "table.watch", args, ctx);
			if (flags.json && !flags.follow) {
				process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
				return 0;
			}
			print(
				flags.json
					? v.events.map((e) => JSON.stringify(e))
					: [...summaryLines(v), ownerLine(rt.root), ...v.events.map(eventLine)],
			);
			if (flags.follow) await follow(rt, ctx, runId, v.next_after_event_id, flags.json === true);
			return 0;
		}),
};
