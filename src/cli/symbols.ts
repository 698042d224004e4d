// `symbols --path P`: the declarations repo.symbols finds, one `<kind> <name> <path> <start> <end>`
// line each, or its result as JSON. Syntax errors go to stderr; the symbols that parsed still print.
import { call } from "../dispatch.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";
import { print } from "./output.ts";
import { withRuntime } from "./runtime.ts";

/** The CLI asks for as many as the tool allows; a directory of any size should print in full. */
const LIMIT = 20_000;

export const symbols: CommandRun = {
	run: (flags) => {
		const path = flags.path;
		if (typeof path !== "string") throw new UsageError("symbols requires --path");
		return withRuntime(flags.root, async (rt, ctx) => {
			const out = await call(rt, "repo.symbols", { path, limit: LIMIT }, ctx);
			if (flags.json) return print(flags, out, []);
			const lines = out.symbols.map((s) => `${s.kind} ${s.name} ${s.path} ${s.start_line} ${s.end_line}\n`);
			process.stdout.write(lines.join(""));
			const problems = out.errors.map((e) => `${e.path}:${e.line}: ${e.message}\n`);
			if (out.truncated) problems.push(`roundtable symbols: stopped after ${LIMIT} symbols\n`);
			process.stderr.write(problems.join(""));
			return 0;
		});
	},
};
