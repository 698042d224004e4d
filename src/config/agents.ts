// The agents a config describes. Syncing them into the agents table is config.sync_agents
// (src/config-sync.ts): init, start and the reload watcher call it; merely opening a runtime does not.
import type { AgentFields } from "../vocabulary/records.ts";
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
