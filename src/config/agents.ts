// The agents a config describes, and syncing them into the agents table (init, start and run do
// this; merely opening a runtime does not). Sync never re-enables an agent an operator disabled,
// and disables, never deletes, agents that left the config.
import { nowIso } from "../domain/ids.ts";
import type { AgentFields } from "../store/agents.ts";
import type { Store } from "../store/index.ts";
import { type Config, FIXED_ROLES } from "./defaults.ts";

const FIXED_NAMES: Record<(typeof FIXED_ROLES)[number], [id: string, name: string]> = {
	chair: ["chair", "Chair"],
	architect: ["architect", "Architect"],
	tester: ["tester", "Tester"],
	security: ["security", "Security"],
	memory_oracle: ["memory-oracle", "Memory Oracle"],
};

export function configuredAgents(config: Config): AgentFields[] {
	const command = (adapter: string) => config.adapters[adapter]?.command.trim() ?? "";
	const agents: AgentFields[] = FIXED_ROLES.map((key) => {
		const { role, adapter, model } = config.agents[key];
		const [slug, name] = FIXED_NAMES[key];
		return { id: `${slug}-1`, role, name: `${name} 1`, adapter, command: command(adapter), model };
	});
	const pools = [
		["implementer", "Implementer", config.agents.implementers],
		["reviewer", "Reviewer", config.agents.reviewers],
	] as const;
	for (const [slug, role, pool] of pools) {
		for (let i = 1; i <= pool.count; i++) {
			agents.push({
				id: `${slug}-${i}`,
				role,
				name: `${role} ${i}`,
				adapter: pool.adapter,
				command: command(pool.adapter),
				model: pool.model,
			});
		}
	}
	return agents;
}

export interface SyncReport {
	added: string[];
	updated: string[];
	enabled: string[];
	disabled: string[];
}

const FIELDS = ["role", "name", "adapter", "command", "model"] as const;

export function syncAgents(store: Store, config: Config): Promise<SyncReport> {
	return store.withTransaction("write", async (tx) => {
		const now = nowIso();
		const report: SyncReport = { added: [], updated: [], enabled: [], disabled: [] };
		const existing = new Map((await tx.agents.list()).map((a) => [a.id, a]));
		const event = (type: string, agent_id: string, payload: Record<string, unknown> = {}) =>
			tx.events.append({ type, actor_id: "system", payload: { agent_id, ...payload } }, now);

		for (const want of configuredAgents(config)) {
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
	});
}
