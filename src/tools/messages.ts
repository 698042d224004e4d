// message.*, channel.*, promotion.list: retained messages, channels, promotion (engine: src/messages/).
import type { Env } from "../engine/env.ts";
import { listChannels, channelMessages as readChannel } from "../messages/channels.ts";
import { inbox as readInbox } from "../messages/inbox.ts";
import { post as postMessage } from "../messages/post.ts";
import { listPromotions, promote as promoteMessage } from "../messages/promote.ts";
import { markRead as markMessagesRead } from "../messages/read.ts";
import { recentMessages } from "../messages/recent.ts";
import type { Args, Result } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export const post = (tx: Tx, a: Args<"message.post">, env: Env): Promise<Result<"message.post">> =>
	postMessage(tx, a, env);
export const inbox = (a: Args<"message.inbox">, env: Env): Promise<Result<"message.inbox">> =>
	readInbox(a, env);
export const markRead = (
	tx: Tx,
	a: Args<"message.mark_read">,
	env: Env,
): Promise<Result<"message.mark_read">> => markMessagesRead(tx, a, env);
export const channels = (tx: Tx, a: Args<"channel.list">, _env: Env): Promise<Result<"channel.list">> =>
	listChannels(tx, a);
export const channelMessages = (
	tx: Tx,
	a: Args<"channel.messages">,
	env: Env,
): Promise<Result<"channel.messages">> => readChannel(tx, a, env);
export const promote = (tx: Tx, a: Args<"message.promote">, env: Env): Promise<Result<"message.promote">> =>
	promoteMessage(tx, a, env);
export const promotions = (tx: Tx, a: Args<"promotion.list">, _env: Env): Promise<Result<"promotion.list">> =>
	listPromotions(tx, a);
export const recent = (tx: Tx, a: Args<"message.list">, _env: Env): Promise<Result<"message.list">> =>
	recentMessages(tx, a);
