// message.list: the operator's view of the newest messages table-wide, to any agent, the operator or
// any channel, newest first; `read_at` is the operator's own, as its inbox shows it.
import { OPERATOR } from "../peers/actor.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export async function list(tx: Tx, a: Args<"message.list">) {
	return { messages: await tx.messages.newest(OPERATOR, a.limit ?? 50) };
}
