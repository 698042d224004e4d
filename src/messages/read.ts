// message.mark_read: the actor records that it read messages addressed to it or posted in a channel.
// Read is its own outcome, one row per reader beside the message: delivery never implies it, and a
// message read before keeps its first read time.

import { ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { actorIn } from "../peers/actor.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { requireMessage } from "./lookup.ts";

export async function markRead(tx: Tx, a: Args<"message.mark_read">, env: Env) {
	const reader = await actorIn(tx, env, a.agent_id);
	const ids = [...new Set(a.message_ids)];
	const unread: string[] = [];
	for (const id of ids) {
		const m = await requireMessage(tx, id, reader, "message_ids");
		if (m.to_agent_id !== reader && m.channel === null) {
			throw new ToolError(
				"permission_denied",
				`message ${id} is addressed to ${m.to_agent_id}, not ${reader}; mark only your own messages or a channel's read`,
				{ field: "message_ids", message_id: id },
			);
		}
		if (m.read_at === null) unread.push(id);
	}
	const marked = await tx.messages.markRead(unread, reader, env.now);
	if (marked > 0) {
		await tx.events.append(
			{ type: "message.read", actor_id: reader, payload: { reader_id: reader, message_ids: unread } },
			env.now,
		);
	}
	const messages = [];
	for (const id of ids) messages.push(await requireMessage(tx, id, reader, "message_ids"));
	return { messages, marked };
}
