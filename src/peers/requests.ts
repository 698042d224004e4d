// What every peer-question tool shares: who the actor is (checked), the request looked up, who may
// read or act on it, and the events it appends. The rights live here, once, so the seven tools
// cannot drift apart on them.

import { notFound, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { Tx } from "../store/index.ts";
import type { PeerAnswerRecord, PeerRequestRecord } from "../vocabulary/records.ts";
import { OPERATOR } from "./actor.ts";

export async function requireRequest(tx: Tx, id: string): Promise<PeerRequestRecord> {
	const request = await tx.peers.get(id);
	if (!request) throw notFound(`request ${id} not found`, { request_id: id });
	return request;
}

/**
 * The operator acting as itself (the CLI, the dashboard, HTTP with the operator's token, no
 * agent_id) may read and act on every request: it is the person running the table. Naming an agent
 * to act as, it has that agent's rights, so the record never shows an agent doing what it could not.
 */
const isOperator = (env: Env, actor: string) => env.ctx.principal.kind === "operator" && actor === OPERATOR;

const deny = (message: string, r: PeerRequestRecord) =>
	new ToolError("permission_denied", message, { request_id: r.id });

/** Its requester, its assignee and the operator read a request; nobody else. */
export function mustRead(env: Env, actor: string, r: PeerRequestRecord): void {
	if (isOperator(env, actor) || actor === r.requester_id || actor === r.assignee_id) return;
	throw deny(
		`request ${r.id} is between ${r.requester_id} and ${r.assignee_id}; ${actor} may not read it`,
		r,
	);
}

/** Only its assignee (or the operator) answers a request, on time or late. */
export function mustBeAssignee(env: Env, actor: string, r: PeerRequestRecord, action: string): void {
	if (isOperator(env, actor) || actor === r.assignee_id) return;
	throw deny(`only ${r.assignee_id}, whom request ${r.id} is addressed to, may ${action} it`, r);
}

/** Only its requester (or the operator) cancels a request. */
export function mustBeRequester(env: Env, actor: string, r: PeerRequestRecord): void {
	if (isOperator(env, actor) || actor === r.requester_id) return;
	throw deny(`only ${r.requester_id}, who asked request ${r.id}, may cancel it`, r);
}

/** A request with every answer kept for it, oldest first. */
export async function withAnswers(
	tx: Tx,
	request: PeerRequestRecord,
): Promise<{ request: PeerRequestRecord; answers: PeerAnswerRecord[] }> {
	return { request, answers: await tx.peers.answers(request.id) };
}

/**
 * One peer event: the actor, the request's task (and that task's run, so a run's watch shows it),
 * and the parties in the payload. Bodies stay out: every caller of table.watch sees events.
 */
export async function appendPeerEvent(
	tx: Tx,
	env: Env,
	type: string,
	actor: string,
	r: PeerRequestRecord,
	extra: Record<string, unknown> = {},
): Promise<void> {
	const task = r.task_id === null ? undefined : await tx.tasks.get(r.task_id);
	await tx.events.append(
		{
			type,
			actor_id: actor,
			task_id: r.task_id,
			run_id: task?.run_id ?? null,
			payload: { request_id: r.id, requester_id: r.requester_id, assignee_id: r.assignee_id, ...extra },
		},
		env.now,
	);
}
