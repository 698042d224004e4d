// peer.questions: the operator's view of peer requests table-wide, whoever asked and whoever is
// asked, oldest first; the open ones unless another status is asked for.
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export async function questions(tx: Tx, a: Args<"peer.questions">) {
	return { requests: await tx.peers.list({ status: a.status ?? "open" }, undefined, a.limit ?? 200) };
}
