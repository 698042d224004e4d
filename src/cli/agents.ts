// `agents [list] | enable ID | disable ID`: the operator's switch for each agent, through
// agent.enable and agent.disable. An agent the operator disabled stays disabled through config sync;
// one the config removed can come back only through the config, so `enable` refuses it.
import { call } from "../dispatch.ts";
import type { StoredAgentRecord } from "../vocabulary/records.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";
import { print } from "./output.ts";
import { withRuntime } from "./runtime.ts";

const state = (a: StoredAgentRecord) => (a.enabled ? "enabled" : "disabled");
const line = (a: StoredAgentRecord) => `${a.id} ${a.role} ${state(a)} ${a.adapter} ${a.model}`;

export const list: CommandRun = {
	run: (flags) =>
		withRuntime(flags.root, async (rt) => {
			const agents = await rt.store.withTransaction("read", (tx) => tx.agents.list());
			return print(flags, { agents }, agents.map(line));
		}),
};

const setEnabled = (enabled: boolean): CommandRun => ({
	run: (flags) =>
		withRuntime(flags.root, async (rt, ctx) => {
			const id = flags.agent;
			if (typeof id !== "string") throw new UsageError("the agent id is required");
			const out = await call(rt, enabled ? "agent.enable" : "agent.disable", { agent_id: id }, ctx);
			if (out.changed) return print(flags, out, [`${id} ${state(out.agent)}`]);
			const why = out.agent.disabled_by === "config" ? "; the config removed it" : "; nothing changed";
			return print(flags, out, [`${id} ${state(out.agent)} (already ${state(out.agent)}${why})`]);
		}),
});

export const enable = setEnabled(true);
export const disable = setEnabled(false);
