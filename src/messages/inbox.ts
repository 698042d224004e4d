// message.inbox: what is waiting for the actor. Its addressed messages (oldest first, paged), the
// open requests addressed to it and, for the operator, human approvals awaiting a decision. With
// wait_ms an empty inbox waits for a commit, as table.watch does: each look is its own short read
// transaction, none is held while waiting. Reading marks nothing read.

import { ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import { actorIn, OPERATOR } from "../peers/actor.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

// The store wakes waiters on commits (this process's at once, another's within ~20 ms); this bound
// only caps one wait before the inbox is read again.
const POLL_MS = 1000;

export async function inbox(a: Args<"message.inbox">, env: Env) {
	const deadline = Date.now() + (a.wait_ms ?? 0);
	for (;;) {
		const view = await env.rt.store.withTransaction("read", (tx) => inboxView(tx, a, env));
		const empty = view.messages.length + view.requests.length + view.approvals.length === 0;
		const remaining = deadline - Date.now();
		if (!empty || remaining <= 0) return view;
		await env.rt.store.eventsCommitted(Math.min(POLL_MS, remaining), env.ctx.signal);
		if (env.ctx.signal.aborted) throw new ToolError("cancelled", "message.inbox was cancelled while waiting");
	}
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
