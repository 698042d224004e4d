// config.sync_agents and config.record_reload: what the owner's own upkeep records when the config
// changes. Sync never re-enables an agent an operator disabled, and disables, never deletes, agents
// that left the config.

import { configuredAgents } from "./config/agents.ts";
import type { Env } from "./handlers/env.ts";
import type { Args } from "./registry/index.ts";
import type { Tx } from "./store/index.ts";

const FIELDS = ["role", "name", "adapter", "command", "model"] as const;

export async function syncAgents(tx: Tx, _: Args<"config.sync_agents">, env: Env) {
	const { now } = env;
	const report = {
		added: [] as string[],
		updated: [] as string[],
		enabled: [] as string[],
		disabled: [] as string[],
	};
	const existing = new Map((await tx.agents.list()).map((a) => [a.id, a]));
	const event = (type: string, agent_id: string, payload: Record<string, unknown> = {}) =>
		tx.events.append({ type, actor_id: "system", payload: { agent_id, ...payload } }, now);

	for (const want of configuredAgents(env.rt.config)) {
		const have = existing.get(want.id);
		existing.delete(want.id);
		if (!have) {
			await tx.agents.insert(want, now);
			await event("agent.registered", want.id, { role: want.role, adapter: want.adapter });
			report.added.push(want.id);
			continue;
		}
		const changed = FIELDS.filter((f) => have[f] !== want[f]);
		const reenable = !have.enabled && have.disabled_by === "config";
		if (changed.length === 0 && !reenable) continue;
		await tx.agents.update(
			{ ...want, enabled: have.enabled || reenable, disabled_by: reenable ? null : have.disabled_by },
			now,
		);
		if (changed.length > 0) {
			await event("agent.updated", want.id, {
				changes: Object.fromEntries(changed.map((f) => [f, { from: have[f], to: want[f] }])),
			});
			report.updated.push(want.id);
		}
		if (reenable) {
			await event("agent.enabled", want.id, { reason: "back in the config" });
			report.enabled.push(want.id);
		}
	}
	for (const gone of existing.values()) {
		if (!gone.enabled) continue;
		await tx.agents.update({ ...gone, enabled: false, disabled_by: "config" }, now);
		await event("agent.disabled", gone.id, { reason: "no longer in the config" });
		report.disabled.push(gone.id);
	}
	return report;
}

export async function recordReload(tx: Tx, a: Args<"config.record_reload">, env: Env) {
	const { idempotency_key: _, ...payload } = a;
	const event = await tx.events.append({ type: "config.reloaded", actor_id: "system", payload }, env.now);
	return { event };
}
