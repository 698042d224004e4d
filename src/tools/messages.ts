// message.*, channel.*, promotion.list: retained messages, channels, promotion (engine: src/messages/).
import type { Env } from "../engine/env.ts";
import { ToolError } from "../errors.ts";
import type { Args, Result } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

const todo = (tool: string): never => {
	throw new ToolError("internal", `${tool} is still being built`);
};

export const post = async (_tx: Tx, _a: Args<"message.post">, _env: Env): Promise<Result<"message.post">> =>
	todo("message.post");
export const inbox = async (_a: Args<"message.inbox">, _env: Env): Promise<Result<"message.inbox">> =>
	todo("message.inbox");
export const markRead = async (
	_tx: Tx,
	_a: Args<"message.mark_read">,
	_env: Env,
): Promise<Result<"message.mark_read">> => todo("message.mark_read");
export const channels = async (
	_tx: Tx,
	_a: Args<"channel.list">,
	_env: Env,
): Promise<Result<"channel.list">> => todo("channel.list");
export const channelMessages = async (
	_tx: Tx,
	_a: Args<"channel.messages">,
	_env: Env,
): Promise<Result<"channel.messages">> => todo("channel.messages");
export const promote = async (
	_tx: Tx,
	_a: Args<"message.promote">,
	_env: Env,
): Promise<Result<"message.promote">> => todo("message.promote");
export const promotions = async (
	_tx: Tx,
	_a: Args<"promotion.list">,
	_env: Env,
): Promise<Result<"promotion.list">> => todo("promotion.list");
