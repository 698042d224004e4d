// peer.*: addressed questions with retained answers. Each handler is its engine's (src/peers/)
// function for its tool; peer.wait manages its own short transactions.
import type { Env } from "../engine/env.ts";
import { listPeers } from "../peers/list.ts";
import * as questions from "../peers/questions.ts";
import { tableQuestions } from "../peers/table.ts";
import { wait as waitFor } from "../peers/wait.ts";
import type { Args, Result } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export const list = (tx: Tx, a: Args<"peer.list">, env: Env): Promise<Result<"peer.list">> =>
	listPeers(tx, a, env);
export const ask = (tx: Tx, a: Args<"peer.ask">, env: Env): Promise<Result<"peer.ask">> =>
	questions.ask(tx, a, env);
export const request = (tx: Tx, a: Args<"peer.request">, env: Env): Promise<Result<"peer.request">> =>
	questions.read(tx, a, env);
export const answer = (tx: Tx, a: Args<"peer.answer">, env: Env): Promise<Result<"peer.answer">> =>
	questions.answer(tx, a, env);
export const wait = (a: Args<"peer.wait">, env: Env): Promise<Result<"peer.wait">> => waitFor(a, env);
export const cancel = (tx: Tx, a: Args<"peer.cancel">, env: Env): Promise<Result<"peer.cancel">> =>
	questions.cancel(tx, a, env);
export const replyLate = (tx: Tx, a: Args<"peer.reply_late">, env: Env): Promise<Result<"peer.reply_late">> =>
	questions.replyLate(tx, a, env);
export const tableWide = (tx: Tx, a: Args<"peer.questions">, _env: Env): Promise<Result<"peer.questions">> =>
	tableQuestions(tx, a);
