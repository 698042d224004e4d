// `start` (HTTP and the socket) and `mcp serve` (the socket alone): the owner of a project. A
// directory that is not a project yet is initialized first, so `roundtable start` is all a new
// user needs to run.
import { initIfNeeded } from "../init/index.ts";
import { type OwnerOptions, runOwner } from "../owner/index.ts";
import type { Flags } from "./args.ts";
import type { CommandRun } from "./command.ts";

const ready = (line: string) => process.stdout.write(`${line}\n`);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function own(
	flags: Flags & { root: string },
	options: Pick<OwnerOptions, "http" | "chair" | "intervalMs">,
): Promise<number> {
	const report = await initIfNeeded(flags.root);
	if (report)
		log(`roundtable: initialized ${report.root} (run \`roundtable init --help\` for what it wrote)`);
	return runOwner(flags.root, { ...options, ready, log });
}

export const start: CommandRun = {
	run: (flags) =>
		own(flags, { http: true, chair: true, intervalMs: (flags.interval as number | undefined) ?? 1000 }),
};

export const serve: CommandRun = {
	run: (flags) => own(flags, { http: false, chair: false, intervalMs: 1000 }),
};
