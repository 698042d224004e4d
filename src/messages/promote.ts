// message.promote and promotion.list: a message deliberately made into a `proposed` task or a
// `proposed` decision, with a promotions row pointing back at it (the provenance). Promotion never
// starts, assigns or accepts work: the task has no run and no assignee, and the Chair never assigns
// a proposed one; the operator opens it with task.update_status. A message is promoted at most once
// into each kind: a second time names the first promotion.

import { failedPrecondition, invalidArgument } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import { actorIn } from "../peers/actor.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";
import type { DecisionRecord, MessageRecord, TaskRecord } from "../vocabulary/records.ts";
import { requireMessage, requireReadable } from "./lookup.ts";

/** The longest default title: the first line of a message can be a whole paragraph. */
export const TITLE_CHARS = 200;

/** A message's first non-blank line, trimmed and cut to TITLE_CHARS characters. */
export function firstLine(body: string): string {
	const line = body.split("\n").find((l) => l.trim() !== "") ?? body;
	return Array.from(line.trim()).slice(0, TITLE_CHARS).join("");
}

/** Where a promoted record came from, in words, for the task's body. */
const provenance = (m: MessageRecord, by: string) =>
	`> Promoted by ${by} from message ${m.id}, posted by ${m.sender_id} ${
		m.channel !== null ? `in channel ${m.channel}` : `to ${m.to_agent_id}`
	} at ${m.created_at}.`;

export async function promote(tx: Tx, a: Args<"message.promote">, env: Env) {
	const actor = await actorIn(tx, env, a.agent_id);
	if (a.as === "decision" && a.risk !== undefined)
		throw invalidArgument("argument 'risk' is a task's; a decision has none", { field: "risk" });
	const message = await requireMessage(tx, a.message_id, actor, "message_id");
	requireReadable(env, actor, message);
	const [earlier] = await tx.messages.promotions({ message_id: message.id, kind: a.as }, undefined, 1);
	if (earlier) {
		throw failedPrecondition(
			`message ${message.id} was already promoted to a ${a.as} (${earlier.task_id ?? earlier.decision_id}) by ${earlier.promoted_by} in promotion ${earlier.id}`,
			{
				message_id: message.id,
				promotion_id: earlier.id,
				task_id: earlier.task_id,
				decision_id: earlier.decision_id,
			},
		);
	}

	const title = a.title ?? firstLine(message.body_md);
	const task = a.as === "task" ? await proposeTask(tx, env, message, actor, title, a.risk ?? "normal") : null;
	const decision = a.as === "decision" ? await proposeDecision(tx, env, message, actor, title) : null;
	const promotion = await tx.messages.promote(
		{
			id: mintId("promotion"),
			message_id: message.id,
			kind: a.as,
			task_id: task?.id ?? null,
			decision_id: decision?.id ?? null,
			promoted_by: actor,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "message.promoted",
			actor_id: actor,
			task_id: promotion.task_id,
			payload: {
				promotion_id: promotion.id,
				message_id: message.id,
				kind: promotion.kind,
				task_id: promotion.task_id,
				decision_id: promotion.decision_id,
				promoted_by: actor,
			},
		},
		env.now,
	);
	return { promotion, task, decision };
}

/** A proposed task: no run, no assignee, the message as its body under a provenance line. */
async function proposeTask(
	tx: Tx,
	env: Env,
	m: MessageRecord,
	actor: string,
	title: string,
	risk: TaskRecord["risk"],
): Promise<TaskRecord> {
	const task = await tx.tasks.insert(
		{
			id: mintId("task"),
			run_id: null,
			title,
			body_md: `${provenance(m, actor)}\n\n${m.body_md}`,
			status: "proposed",
			priority: 100,
			risk,
			assigned_agent_id: null,
			readable_paths: [],
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "task.created",
			actor_id: actor,
			task_id: task.id,
			payload: {
				task_id: task.id,
				title: task.title,
				status: task.status,
				priority: task.priority,
				risk: task.risk,
				assigned_agent_id: null,
				readable_paths: [],
				message_id: m.id,
			},
		},
		env.now,
	);
	return task;
}

/**
 * A proposed decision: the title (or first line) as the decision, the message as its rationale,
 * decided by the actor. Its event is `decision.proposed`: `decision.recorded` means decision.record's.
 */
async function proposeDecision(
	tx: Tx,
	env: Env,
	m: MessageRecord,
	actor: string,
	decisionText: string,
): Promise<DecisionRecord> {
	const decision = await tx.decisions.insert(
		{
			id: mintId("decision"),
			decision: decisionText,
			rationale_md: m.body_md,
			decided_by: actor,
			proposal_id: null,
			task_id: null,
			run_id: null,
			status: "proposed",
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "decision.proposed",
			actor_id: actor,
			payload: {
				decision_id: decision.id,
				decision: decision.decision,
				decided_by: actor,
				status: decision.status,
				message_id: m.id,
			},
		},
		env.now,
	);
	return decision;
}

/** Every promotion (or one message's), oldest first. */
export async function list(tx: Tx, a: Args<"promotion.list">) {
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const from = key && { created_at: key[0] as string, id: key[1] as string };
	const rows = await tx.messages.promotions({ message_id: a.message_id }, from, limit + 1);
	const { rows: promotions, next } = page(rows, limit, (p) => [p.created_at, p.id]);
	return { promotions, next_cursor: next };
}
