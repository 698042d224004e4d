// `start` (HTTP and the socket) and `mcp serve` (the socket alone): the owner of a project. A
// directory that is not a project yet is initialized first, so `roundtable start` is all a new
// user needs to run.
import { loadConfig } from "../config/load.ts";
import { initIfNeeded } from "../init/index.ts";
import { type OwnerOptions, runOwner } from "../owner/index.ts";
import { type Flags, UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";

const ready = (line: string) => process.stdout.write(`${line}\n`);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function own(
	flags: Flags & { root: string },
	options: Pick<OwnerOptions, "http" | "chair" | "intervalMs">,
): Promise<number> {
	// Checked before anything is written, read from the config once it exists.
	addressFlag(flags, () => "127.0.0.1:0");
	const report = await initIfNeeded(flags.root);
	if (report)
		log(`roundtable: initialized ${report.root} (run \`roundtable init --help\` for what it wrote)`);
	const httpAddress = addressFlag(flags, () => loadConfig(flags.root).mcp.http_address);
	return runOwner(flags.root, { ...options, ready, log, ...(httpAddress !== undefined && { httpAddress }) });
}

/** --address HOST:PORT, or --port N on the configured host: mcp.http_address for this run only. */
export function addressFlag(flags: Flags, configured: () => string): string | undefined {
	const address = flags.address as string | undefined;
	const port = flags.port as number | undefined;
	if (address !== undefined && port !== undefined) throw new UsageError("give --address or --port, not both");
	if (port !== undefined) {
		if (port < 0 || port > 65535) throw new UsageError(`--port must be 0 to 65535 (was ${port})`);
		const host = configured().replace(/:\d+$/, "");
		return `${host}:${port}`;
	}
	if (address === undefined) return undefined;
	const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address);
	if (!m || Number(m[2]) > 65535)
		throw new UsageError(`--address must be HOST:PORT, e.g. 127.0.0.1:7117 (was '${address}')`);
	return address;
}

export const start: CommandRun = {
	run: (flags) =>
		own(flags, { http: true, chair: true, intervalMs: (flags.interval as number | undefined) ?? 1000 }),
};

export const serve: CommandRun = {
	run: (flags) => own(flags, { http: false, chair: false, intervalMs: 1000 }),
};
