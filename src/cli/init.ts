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
