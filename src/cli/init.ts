import { loadConfig } from "../config/load.ts";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { CLIENTS, type Client } from "../init/clients.ts";
import { initProject } from "../init/index.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";

const NOTES: Record<string, string> = {
	kept: " (not as init wrote it, so left alone; --force overwrites it)",
	overwritten: " (your edits were replaced: --force)",
};

export const init: CommandRun = {
	async run(flags) {
		// `--client codex,claude` writes both entries.
		const clients = ((flags.client as string | undefined)?.split(",") ?? []).map((c) => c.trim());
		for (const client of clients) {
			if (!CLIENTS.includes(client as Client)) {
				throw new UsageError(
					`--client must be ${CLIENTS.join(", ")} or both as ${CLIENTS.join(",")} (was ${quoted(client)})${suggestion(didYouMean(client, CLIENTS))}`,
				);
			}
		}
		const report = await initProject(flags.root, {
			force: flags.force === true,
			clients: [...new Set(clients)] as Client[],
		});
		const out: string[] = [];
		for (const f of report.files) {
			if (f.action !== "unchanged") out.push(`${f.action} ${f.path}${NOTES[f.action] ?? ""}`);
		}
		const { added, updated, enabled, disabled } = report.agents;
		if (added.length > 0) out.push(`agents added: ${added.join(", ")}`);
		if (updated.length > 0) out.push(`agents updated: ${updated.join(", ")}`);
		if (enabled.length > 0) out.push(`agents enabled again: ${enabled.join(", ")}`);
		if (disabled.length > 0) out.push(`agents disabled (no longer in the config): ${disabled.join(", ")}`);
		if (report.changed) out.push(...agentClis(report.root));
		out.push(
			report.changed
				? `initialized roundtable in ${report.root}`
				: `roundtable is already initialized in ${report.root}; nothing changed`,
		);
		if (report.trackedClientFiles.length > 0)
			out.push(
				`do not commit the roundtable entry in ${report.trackedClientFiles.join(" and ")}: git tracks ${report.trackedClientFiles.length === 1 ? "it" : "them"}, and the entry holds this machine's absolute paths`,
			);
		process.stdout.write(`${out.join("\n")}\n`);
		return 0;
	},
};

/**
 * Which agent CLIs the configured agents use, found on PATH or not: an agent whose CLI is missing
 * cannot be launched (by `sessions start` or the autopilot) until it is installed or its role names
 * another adapter.
 */
function agentClis(root: string): string[] {
	const config = loadConfig(root);
	const users = new Map<string, string[]>();
	for (const [role, a] of Object.entries(config.agents)) {
		if ("count" in a && a.count === 0) continue;
		users.set(a.adapter, [...(users.get(a.adapter) ?? []), role]);
	}
	const found: string[] = [];
	const missing: string[] = [];
	for (const [adapter, roles] of [...users].sort(([x], [y]) => x.localeCompare(y))) {
		const command = (config.adapters[adapter]?.command ?? adapter).trim().split(/\s+/)[0] ?? adapter;
		(Bun.which(command) ? found : missing).push(`${adapter} (${roles.join(", ")})`);
	}
	return [
		...(found.length > 0 ? [`agent CLIs found on PATH: ${found.join(", ")}`] : []),
		...(missing.length > 0
			? [
					`agent CLIs not on PATH: ${missing.join(", ")}; agents using them cannot be launched until the CLI is installed or agents.<role>.adapter in .roundtable/config.yaml names one that is`,
				]
			: []),
	];
}
