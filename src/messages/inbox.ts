// message.inbox: what is waiting for the actor. Its addressed messages (oldest first, paged), the
// open requests addressed to it and, for the operator, human approvals awaiting a decision. With
// wait_ms an empty inbox waits for a commit, as table.watch does: each look is its own short read
// transaction, none is held while waiting. Reading marks nothing read.

import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import { lookUntil } from "../handlers/wait.ts";
import { actorIn, OPERATOR } from "../peers/actor.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export function inbox(a: Args<"message.inbox">, env: Env) {
	return lookUntil(
		env,
		"message.inbox",
		a.wait_ms ?? 0,
		() => env.rt.store.withTransaction("read", (tx) => inboxView(tx, a, env)),
		(view) => view.messages.length + view.requests.length + view.approvals.length > 0,
	);
}

/**
 * One look at the inbox. Requests and approvals come with the first page only (no cursor): later
 * pages carry the rest of the messages, so paging never repeats an item.
 */
async function inboxView(tx: Tx, a: Args<"message.inbox">, env: Env) {
	const actor = await actorIn(tx, env, a.agent_id);
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const from = key && { created_at: key[0] as string, id: key[1] as string };
	const rows = await tx.messages.inbox(actor, a.unread_only ?? true, from, limit + 1);
	const { rows: messages, next } = page(rows, limit, (m) => [m.created_at, m.id]);
	const first = a.cursor === undefined;
	return {
		agent_id: actor,
		messages,
		requests: first ? await tx.peers.list({ to: actor, status: "open" }, undefined, limit) : [],
		approvals:
			first && actor === OPERATOR ? (await tx.approvals.list({ status: "requested" })).slice(0, limit) : [],
		unread_count: await tx.messages.unreadCount(actor),
		next_cursor: next,
	};
}
