// agent.enable and agent.disable: the operator's switch for each agent. An agent the operator
// disabled stays disabled through config sync; one the config removed comes back only through the
// config.

import { configuredAgents } from "../config/agents.ts";
import { CONFIG_PATH } from "../config/paths.ts";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { failedPrecondition, notFound } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { StoredAgent } from "../store/agents.ts";
import type { Tx } from "../store/index.ts";

/** Where an agent the config no longer has would come back from. */
const configKeyOf = (id: string) =>
	id.startsWith("implementer-")
		? "agents.implementers.count"
		: id.startsWith("reviewer-")
			? "agents.reviewers.count"
			: "agents";

/** agent.enable: the operator switches an agent back on (one the config still names). */
export const enable = (tx: Tx, a: Args<"agent.enable">, env: Env) => setEnabled(tx, env, a.agent_id, true);

/** agent.disable: the operator switches an agent off; its sessions' calls are refused from then on. */
export const disable = (tx: Tx, a: Args<"agent.disable">, env: Env) => setEnabled(tx, env, a.agent_id, false);

async function setEnabled(tx: Tx, env: Env, id: string, enabled: boolean) {
	const agent = await tx.agents.get(id);
	if (!agent) {
		const near = didYouMean(id, await tx.agents.ids());
		throw notFound(`no agent ${quoted(id)}${suggestion(near)}`, {
			agent_id: id,
			...(near && { did_you_mean: near }),
		});
	}
	if (agent.enabled === enabled) return { agent, changed: false };
	if (enabled && !configuredAgents(env.rt.config).some((a) => a.id === id))
		throw failedPrecondition(
			`agent ${id} is not in ${CONFIG_PATH} any more, so it stays disabled; add it back to the config (${configKeyOf(id)}) and it is enabled at the next sync (init, start)`,
			{ agent_id: id },
		);
	await tx.agents.setEnabled(id, enabled, enabled ? null : "operator", env.now);
	// The events config sync writes when it enables or disables an agent, with the reason.
	await tx.events.append(
		{
			type: enabled ? "agent.enabled" : "agent.disabled",
			actor_id: "operator",
			payload: { agent_id: id, reason: enabled ? "enabled by the operator" : "disabled by the operator" },
		},
		env.now,
	);
	return { agent: (await tx.agents.get(id)) as StoredAgent, changed: true };
}
