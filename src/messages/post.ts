// message.post: a message to one agent (or `operator`) or to a channel. Posting is delivery: the
// stored row is what the addressee's inbox and the channel read, so nothing else has to happen. The
// event names sender and target but carries no body: table.watch is everyone's, a direct message not.

import { invalidArgument } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { actorIn, checkBody, notSelf, requireAddressee } from "../peers/actor.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";
import { requireMessage } from "./lookup.ts";

export async function post(tx: Tx, a: Args<"message.post">, env: Env) {
	if ((a.to_agent_id === undefined) === (a.channel === undefined)) {
		throw invalidArgument("give exactly one of to_agent_id (an agent or operator) and channel", {
			field: a.to_agent_id === undefined ? "to_agent_id" : "channel",
		});
	}
	const sender = await actorIn(tx, env, a.agent_id);
	checkBody("body_md", a.body_md);
	if (a.to_agent_id !== undefined) {
		notSelf(sender, a.to_agent_id, "to_agent_id");
		await requireAddressee(tx, a.to_agent_id, "to_agent_id");
	}
	if (a.thread_id !== undefined) await requireMessage(tx, a.thread_id, sender, "thread_id");

	const message = await tx.messages.insert(
		{
			id: mintId("message"),
			sender_id: sender,
			to_agent_id: a.to_agent_id ?? null,
			channel: a.channel ?? null,
			thread_id: a.thread_id ?? null,
			body_md: a.body_md,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "message.posted",
			actor_id: sender,
			payload: {
				message_id: message.id,
				sender_id: sender,
				...(message.to_agent_id !== null
					? { to_agent_id: message.to_agent_id }
					: { channel: message.channel }),
				thread_id: message.thread_id,
			},
		},
		env.now,
	);
	return { message };
}
