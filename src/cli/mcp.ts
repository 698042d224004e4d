// `mcp inspect`: the registry as names, JSON, Markdown, or the generated MCP assets.
import { realpathSync } from "node:fs";
import { loadConfig } from "../config/load.ts";
import { writeMcpAssets } from "../init/index.ts";
import { toolsMarkdown } from "../init/mcp-assets.ts";
import { permissionsMarkdown } from "../init/permissions-doc.ts";
import { AGENT_TOOLS } from "../registry/index.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";

export const inspect: CommandRun = {
	async run(flags) {
		const modes = ["json", "write", "markdown", "permissions"].filter((m) => flags[m] === true);
		if (modes.length > 1) throw new UsageError(`choose one of --${modes.join(", --")}`);
		if (flags.write) {
			const root = realpathSync(flags.root);
			for (const rel of writeMcpAssets(root, loadConfig(root))) process.stdout.write(`wrote ${rel}\n`);
		} else if (flags.markdown) {
			process.stdout.write(toolsMarkdown());
		} else if (flags.permissions) {
			process.stdout.write(permissionsMarkdown());
		} else if (flags.json) {
			const list = AGENT_TOOLS.map((t) => ({ name: t.name, mutates: t.mutates }));
			process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
		} else {
			// Sorted, as seed 000 promises; --json keeps registry order, beside the other fields.
			const names = AGENT_TOOLS.map((t) => t.name).sort();
			process.stdout.write(`${names.join("\n")}\n`);
		}
		return 0;
	},
};
