// Who acts in a peer call and who may be addressed. With a capability the access check has already
// made `agent_id` the caller; without one the operator names an agent or acts as `operator`, the
// addressable pseudo-agent for the person running the table.
import { actorId } from "../context.ts";
import { didYouMean, echo, suggestion } from "../domain/text.ts";
import { failedPrecondition, invalidArgument, notFound } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { StoredAgent } from "../store/agents.ts";
import type { Tx } from "../store/index.ts";

/** The pseudo-agent a question or message to the person running the table is addressed to. */
export const OPERATOR = "operator";

/** The largest body a question, answer or message may have, in bytes of UTF-8. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The actor of a peer call: the agent named (the caller, with a capability), else who calls. */
export const actorOf = (env: Env, agentId: string | undefined): string => agentId ?? actorId(env.ctx);

/** A body within MAX_BODY_BYTES, or `invalid_argument` naming the field. */
export function checkBody(field: string, text: string): void {
	const bytes = Buffer.byteLength(text, "utf8");
	if (bytes > MAX_BODY_BYTES) {
		throw invalidArgument(`argument '${field}' is ${bytes} bytes; at most ${MAX_BODY_BYTES} (64 KiB)`, {
			field,
			bytes,
			max_bytes: MAX_BODY_BYTES,
		});
	}
}

/**
 * `operator` or an agent that exists (enabled or not): the agent, or undefined for `operator`.
 * Unknown is `not_found` with the nearest id.
 */
export async function requireKnown(tx: Tx, id: string, field: string): Promise<StoredAgent | undefined> {
	if (id === OPERATOR) return undefined;
	const agent = await tx.agents.get(id);
	if (agent) return agent;
	const near = didYouMean(id, [OPERATOR, ...(await tx.agents.ids())]);
	throw notFound(`agent ${echo(id)} not found${suggestion(near)}`, {
		field,
		agent_id: id,
		...(near && { did_you_mean: near }),
	});
}

/**
 * The actor of a peer call, checked. With a capability the access check already made `agent_id` the
 * caller; an agent the operator (or the Chair) names must exist, so nothing is ever kept under a
 * mistyped name and a typo is `not_found`, not an empty inbox.
 */
export async function actorIn(tx: Tx, env: Env, agentId: string | undefined): Promise<string> {
	const actor = actorOf(env, agentId);
	if (env.ctx.principal.kind !== "agent" && agentId !== undefined) await requireKnown(tx, actor, "agent_id");
	return actor;
}

/**
 * An agent a question or message may go to: `operator`, or an enabled agent. Unknown is `not_found`
 * (with the nearest id), disabled `failed_precondition`.
 */
export async function requireAddressee(tx: Tx, id: string, field: string): Promise<string> {
	const agent = await requireKnown(tx, id, field);
	if (agent && !agent.enabled) throw failedPrecondition(`agent ${id} is disabled`, { field, agent_id: id });
	return id;
}

/** Asking or messaging oneself is a mistake worth naming. */
export function notSelf(actor: string, to: string, field: string): void {
	if (actor === to)
		throw invalidArgument(`argument '${field}' is you (${actor}); address someone else`, { field });
}
