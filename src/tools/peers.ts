// peer.*: addressed questions with retained answers (engine: src/peers/).
import type { Env } from "../engine/env.ts";
import { ToolError } from "../errors.ts";
import type { Args, Result } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

const todo = (tool: string): never => {
	throw new ToolError("internal", `${tool} is still being built`);
};

export const list = async (_tx: Tx, _a: Args<"peer.list">, _env: Env): Promise<Result<"peer.list">> =>
	todo("peer.list");
export const ask = async (_tx: Tx, _a: Args<"peer.ask">, _env: Env): Promise<Result<"peer.ask">> =>
	todo("peer.ask");
export const request = async (
	_tx: Tx,
	_a: Args<"peer.request">,
	_env: Env,
): Promise<Result<"peer.request">> => todo("peer.request");
export const answer = async (_tx: Tx, _a: Args<"peer.answer">, _env: Env): Promise<Result<"peer.answer">> =>
	todo("peer.answer");
export const wait = async (_a: Args<"peer.wait">, _env: Env): Promise<Result<"peer.wait">> =>
	todo("peer.wait");
export const cancel = async (_tx: Tx, _a: Args<"peer.cancel">, _env: Env): Promise<Result<"peer.cancel">> =>
	todo("peer.cancel");
export const replyLate = async (
	_tx: Tx,
	_a: Args<"peer.reply_late">,
	_env: Env,
): Promise<Result<"peer.reply_late">> => todo("peer.reply_late");
