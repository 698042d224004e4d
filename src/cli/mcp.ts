// `mcp inspect` and `mcp call` (direct mode: this process opens the project itself).
import { mkdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadConfig } from "../config/load.ts";
import { call, isImplemented } from "../dispatch.ts";
import { asToolError } from "../errors.ts";
import { writeFileAtomic } from "../fsutil.ts";
import { mcpAssets } from "../init/index.ts";
import { toolsMarkdown } from "../init/mcp-assets.ts";
import { TOOLS } from "../registry/index.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./index.ts";
import { withRuntime } from "./runtime.ts";

export const inspect: CommandRun = {
	async run(flags) {
		const modes = ["json", "write", "markdown"].filter((m) => flags[m] === true);
		if (modes.length > 1) throw new UsageError(`choose one of --${modes.join(", --")}`);
		if (flags.write) {
			const root = realpathSync(flags.root);
			const config = loadConfig(root);
			for (const [rel, content] of mcpAssets(root, config)) {
				mkdirSync(dirname(join(root, rel)), { recursive: true, mode: 0o700 });
				writeFileAtomic(join(root, rel), content);
				process.stdout.write(`wrote ${rel}\n`);
			}
		} else if (flags.markdown) {
			process.stdout.write(toolsMarkdown());
		} else if (flags.json) {
			const list = TOOLS.map((t) => ({
				name: t.name,
				implemented: isImplemented(t.name),
				mutates: t.mutates,
			}));
			process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
		} else {
			process.stdout.write(`${TOOLS.map((t) => t.name).join("\n")}\n`);
		}
		return 0;
	},
};

function readArgs(flags: Record<string, unknown>): unknown {
	const inline = flags.args as string | undefined;
	const file = flags["args-file"] as string | undefined;
	if (inline !== undefined && file !== undefined)
		throw new UsageError("give --args or --args-file, not both");
	let text: string;
	let source: string;
	if (file !== undefined) {
		source = `--args-file ${file}`;
		try {
			text = readFileSync(file === "-" ? 0 : file, "utf8");
		} catch (err) {
			throw new UsageError(`cannot read ${source}: ${(err as Error).message}`);
		}
	} else if (inline !== undefined) {
		source = "--args";
		text = inline;
	} else return {};
	try {
		return JSON.parse(text);
	} catch (err) {
		throw new UsageError(`${source} is not valid JSON: ${(err as Error).message}`);
	}
}

export const callTool: CommandRun = {
	async run(flags) {
		const tool = flags.tool as string | undefined;
		if (tool === undefined) throw new UsageError("--tool is required");
		const args = readArgs(flags);
		try {
			const result = await withRuntime(flags.root, (rt, ctx) => call(rt, tool, args, ctx));
			process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
			return 0;
		} catch (err) {
			const error = asToolError(err).toJSON();
			// A project that cannot be opened is a precondition, not a bug.
			if (err instanceof Error && err.name === "ConfigError") {
				Object.assign(error, { code: "failed_precondition", message: err.message });
			}
			process.stderr.write(`${JSON.stringify({ error })}\n`);
			return 1;
		}
	},
};
