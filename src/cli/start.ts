// `start` (HTTP and the socket) and `mcp serve` (the socket alone): the owner of a project.
import { runOwner } from "../owner/index.ts";
import type { CommandRun } from "./index.ts";

const ready = (line: string) => process.stdout.write(`${line}\n`);
const log = (line: string) => process.stderr.write(`${line}\n`);

export const start: CommandRun = {
	run: (flags) =>
		runOwner(flags.root, {
			http: true,
			intervalMs: (flags.interval as number | undefined) ?? 1000,
			ready,
			log,
		}),
};

export const serve: CommandRun = {
	run: (flags) => runOwner(flags.root, { http: false, intervalMs: 1000, ready, log }),
};
