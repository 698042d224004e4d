// `agents [list] | enable ID | disable ID`: the operator's switch for each agent. An agent the
// operator disabled stays disabled through config sync; one the config removed can come back only
// through the config, so `enable` refuses it.
import { configuredAgents } from "../config/agents.ts";
import { CONFIG_PATH } from "../config/paths.ts";
import { nowIso } from "../domain/ids.ts";
import { didYouMean, quoted, suggestion } from "../domain/suggest.ts";
import type { StoredAgent } from "../store/agents.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./index.ts";
import { print } from "./output.ts";
import { withRuntime } from "./runtime.ts";

const state = (a: StoredAgent) => (a.enabled ? "enabled" : "disabled");
const line = (a: StoredAgent) => `${a.id} ${a.role} ${state(a)} ${a.adapter} ${a.model}`;

export const list: CommandRun = {
	run: (flags) =>
		withRuntime(flags.root, async (rt) => {
			const agents = await rt.store.withTransaction("read", (tx) => tx.agents.list());
			return print(flags, { agents }, agents.map(line));
		}),
};

/** Where an agent the config no longer has would come back from. */
const configKeyOf = (id: string) =>
	id.startsWith("implementer-")
		? "agents.implementers.count"
		: id.startsWith("reviewer-")
			? "agents.reviewers.count"
			: "agents";

type Outcome =
	| { kind: "unknown"; ids: string[] }
	| { kind: "removed"; agent: StoredAgent }
	| { kind: "unchanged"; agent: StoredAgent }
	| { kind: "changed"; agent: StoredAgent };

const setEnabled = (enabled: boolean): CommandRun => ({
	run: (flags) =>
		withRuntime(flags.root, async (rt) => {
			const id = flags.agent;
			if (typeof id !== "string") throw new UsageError("the agent id is required");
			const inConfig = configuredAgents(rt.config).some((a) => a.id === id);
			const outcome = await rt.store.withTransaction("write", async (tx): Promise<Outcome> => {
				const agent = await tx.agents.get(id);
				if (!agent) return { kind: "unknown", ids: await tx.agents.ids() };
				if (agent.enabled === enabled) return { kind: "unchanged", agent };
				if (enabled && !inConfig) return { kind: "removed", agent };
				const now = nowIso();
				await tx.agents.setEnabled(id, enabled, enabled ? null : "operator", now);
				// The events config sync writes when it enables or disables an agent, with the reason.
				await tx.events.append(
					{
						type: enabled ? "agent.enabled" : "agent.disabled",
						actor_id: "operator",
						payload: {
							agent_id: id,
							reason: enabled ? "enabled by the operator" : "disabled by the operator",
						},
					},
					now,
				);
				return { kind: "changed", agent: (await tx.agents.get(id)) as StoredAgent };
			});
			switch (outcome.kind) {
				case "unknown":
					throw new Error(`no agent ${quoted(id)}${suggestion(didYouMean(id, outcome.ids))}`);
				case "removed":
					throw new Error(
						`agent ${id} is not in ${CONFIG_PATH} any more, so it stays disabled; add it back to the config (${configKeyOf(id)}) and it is enabled at the next sync (init, start)`,
					);
				case "unchanged": {
					const why =
						outcome.agent.disabled_by === "config" ? "; the config removed it" : "; nothing changed";
					return print(flags, { agent: outcome.agent, changed: false }, [
						`${id} ${state(outcome.agent)} (already ${state(outcome.agent)}${why})`,
					]);
				}
				case "changed":
					return print(flags, { agent: outcome.agent, changed: true }, [`${id} ${state(outcome.agent)}`]);
			}
		}),
});

export const enable = setEnabled(true);
export const disable = setEnabled(false);
