// What every message tool shares: who the actor is (an agent the operator names must exist), which
// messages an actor may read, and a message looked up by id. Kept apart so each tool's file holds
// only its own rule.

import { notFound, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { OPERATOR } from "../peers/actor.ts";
import type { Tx } from "../store/index.ts";
import type { MessageRecord } from "../vocabulary/records.ts";

/** A message, as `reader` sees it (with its read_at), or `not_found` naming the field. */
export async function requireMessage(
	tx: Tx,
	id: string,
	reader: string,
	field: string,
): Promise<MessageRecord> {
	const message = await tx.messages.get(id, reader);
	if (!message) throw notFound(`message ${id} not found`, { field, message_id: id });
	return message;
}

/**
 * Whether `actor` may read a message: one in a channel, addressed to it, or sent by it. The operator
 * acting as itself reads every message; naming an agent, it reads what that agent may (as on a peer
 * request); an agent never reads another's direct messages.
 */
export function mayRead(env: Env, actor: string, m: MessageRecord): boolean {
	if (env.ctx.principal.kind === "operator" && actor === OPERATOR) return true;
	return m.channel !== null || m.to_agent_id === actor || m.sender_id === actor;
}

/** A message the actor may read, else `permission_denied` naming it. */
export function requireReadable(env: Env, actor: string, m: MessageRecord): void {
	if (mayRead(env, actor, m)) return;
	const why = `message ${m.id} is a direct message between others; ${actor} may not read it`;
	throw new ToolError("permission_denied", why, { message_id: m.id });
}
