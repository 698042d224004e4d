// How to run this very program again: from the compiled binary, or from the package's sources.
import { join } from "node:path";

const compiled = () => Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/");

/** A command that starts this program now, from wherever it runs (used to spawn an owner). */
export function launchCommand(): string[] {
	return compiled() ? [process.execPath] : [process.execPath, join(import.meta.dir, "..", "main.ts")];
}

/**
 * The stdio command line an MCP client should run for the project at `root`: the binary's absolute
 * path, or `bunx roundtable` from the package.
 */
export function stdioCommand(root: string): { command: string; args: string[] } {
	const [command, ...prefix]: [string, ...string[]] = compiled()
		? [process.execPath]
		: ["bunx", "roundtable"];
	return { command, args: [...prefix, "mcp", "stdio", "--root", root] };
}
