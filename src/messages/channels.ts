// channel.list and channel.messages: channels are quiet. Nothing from one arrives in an inbox; an
// agent reads a channel when it chooses, each message with its own read_at.

import { didYouMean, suggestion } from "../domain/text.ts";
import { notFound } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import { actorIn } from "../peers/actor.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

/** Every channel, by name, with its message count and latest post. */
export async function list(tx: Tx, a: Args<"channel.list">) {
	const limit = a.limit ?? 200;
	const from = a.cursor === undefined ? undefined : (cursorKey(a.cursor, ["string"])[0] as string);
	const { rows: channels, next } = page(await tx.messages.channels(from, limit + 1), limit, (c) => [
		c.channel,
	]);
	return { channels, next_cursor: next };
}

/** A channel's messages, oldest first; a channel nobody posted to is `not_found`. */
export async function messages(tx: Tx, a: Args<"channel.messages">, env: Env) {
	const reader = await actorIn(tx, env, a.agent_id);
	if (!(await tx.messages.hasChannel(a.channel))) {
		const near = didYouMean(a.channel, await tx.messages.channelNames());
		throw notFound(`channel ${a.channel} not found${suggestion(near)}: a channel is made by its first post`, {
			field: "channel",
			channel: a.channel,
			...(near && { did_you_mean: near }),
		});
	}
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const from = key && { created_at: key[0] as string, id: key[1] as string };
	const rows = await tx.messages.channelMessages(a.channel, reader, from, limit + 1);
	const { rows: messages, next } = page(rows, limit, (m) => [m.created_at, m.id]);
	return { channel: a.channel, messages, next_cursor: next };
}
