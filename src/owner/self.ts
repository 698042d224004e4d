// How to run this very program again: from the compiled binary, or from the package's sources.
import { dirname, join } from "node:path";

export const compiled = () => Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/");

/**
 * Bun flags for running the sources, the same as bin/roundtable's: a project's .env and
 * bunfig.toml are not Roundtable's, and nothing is installed at run time. (The compiled binary
 * is built with both autoloads off.)
 */
const RUNTIME_FLAGS = ["--no-env-file", "--no-install", "--config=/dev/null"];

/** The package's launcher, which finds the Bun runtime the package depends on (bin/roundtable). */
export const LAUNCHER = join(import.meta.dir, "..", "..", "bin", "roundtable");

/** What must be readable for this program to run: the binary's folder, or the package's root. */
export const programDir = (): string =>
	compiled() ? dirname(process.execPath) : join(import.meta.dir, "..", "..");

/** A command that starts this program now, from wherever it runs (used to spawn an owner). */
export function launchCommand(): string[] {
	return compiled()
		? [process.execPath]
		: [process.execPath, ...RUNTIME_FLAGS, join(import.meta.dir, "..", "main.ts")];
}

/**
 * The stdio command line an MCP client should run for the project at `root`. Both are absolute
 * paths: the binary, or the package's launcher, so no bun on PATH and no registry look-up (a
 * `bunx <name>` would run whatever package holds that name) is needed. Neither client offers a
 * project-relative form that holds from a subfolder (checked with Codex 0.171.0 and Claude Code
 * 2.1.332): Codex resolves a relative `cwd` against the folder it was started in, and Claude Code
 * starts servers there and does not expand `${CLAUDE_PROJECT_DIR}` in `.mcp.json`.
 */
export function stdioCommand(root: string): { command: string; args: string[] } {
	return { command: compiled() ? process.execPath : LAUNCHER, args: ["mcp", "stdio", "--root", root] };
}
