// Shared by the tests of launched agents (test/launch/): a project with a live owner set up as a user
// would (its config edited as YAML), `sessions launch` command lines, the probe agent and its
// output.
import { expect } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";
import { type Document, parseDocument } from "yaml";
import { commitAll, MAIN, REPO, readyLine, runCli } from "./helpers.ts";

export const PROBE = join(REPO, "test/fixtures-scripts/agent-probe.ts");

export interface Owned {
	root: string;
	url: string;
	owner: Subprocess<"ignore", "pipe", "pipe">;
	/** All the owner wrote to stderr (its log), once it has exited. */
	stderr: Promise<string>;
}

/**
 * `files` committed in `root`, `init`, the config made to listen on any port, show the probe's
 * folder and pass the probe its orders (and `configure`'s edits), then `roundtable start`.
 */
export async function ownedProject(
	root: string,
	files: Record<string, string>,
	configure: (doc: Document) => void = () => {},
	env: Record<string, string | undefined> = process.env,
): Promise<Owned> {
	commitAll(root, files);
	expect((await runCli(["init", "--root", root])).code).toBe(0);
	const file = join(root, ".roundtable/config.yaml");
	const doc = parseDocument(readFileSync(file, "utf8"));
	doc.setIn(["mcp", "http_address"], "127.0.0.1:0");
	// The probe's script and its orders, as a user names what a sandbox shows beyond its allowlist.
	doc.setIn(["sandbox", "expose"], [dirname(PROBE)]);
	doc.setIn(["adapters", "generic", "env"], ["PROBE", "ARGS_CALLS"]);
	configure(doc);
	writeFileSync(file, doc.toString());
	return startOwner(root, env);
}

/** `roundtable start` in `root` (again, after its owner was killed), once it is ready. */
export async function startOwner(
	root: string,
	env: Record<string, string | undefined> = process.env,
): Promise<Owned> {
	const owner = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
		env,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const stderr = new Response(owner.stderr).text();
	const url = /http=(\S+)/.exec((await readyLine(owner, 20_000, () => stderr)).ready)?.[1] as string;
	return { root, url, owner, stderr };
}

/**
 * The CLI arguments of `roundtable sessions launch` in `root` for `agent`, with `options`, running
 * `command` (none: the adapter's own).
 */
export const launchArgs = (root: string, agent: string, options: string[], command: string[]) => [
	"sessions",
	"launch",
	"--root",
	root,
	"--agent",
	agent,
	...options,
	...(command.length > 0 ? ["--", ...command] : []),
];

/** The same, as a process to spawn (to signal it, or to keep it running beside another). */
export const launchArgv = (...a: Parameters<typeof launchArgs>) => [
	process.execPath,
	MAIN,
	...launchArgs(...a),
];

/**
 * A `sessions launch` that stays up beside the test (its agent runs `command`), once its session's
 * socket is served: the process, and that socket's path. The caller stops it (SIGTERM) when done.
 */
export async function launchRunning(
	root: string,
	agent: string,
	options: string[],
	command: string[],
	env: Record<string, string | undefined> = process.env,
) {
	const proc = Bun.spawn(launchArgv(root, agent, options, command), {
		env,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const head = await readUntil(proc.stderr.getReader(), "; socket ");
	const socket = /; socket (\S+)/.exec(head)?.[1] as string;
	return {
		socket,
		async stop() {
			proc.kill("SIGTERM");
			await proc.exited;
		},
	};
}

/** Reads until `marker` has come (or, without one, to the end); what it read. */
export async function readUntil(
	reader: { read(): Promise<{ value?: Uint8Array; done: boolean }> },
	marker?: string,
): Promise<string> {
	const text = new TextDecoder();
	let out = "";
	while (marker === undefined || !out.includes(marker)) {
		const { value, done } = await reader.read();
		if (done) break;
		out += text.decode(value);
	}
	return out;
}

/** The probe's one JSON line from what `sessions launch` printed, with the session it had. */
export function probeOutput<T>(r: { code: number; stdout: string; stderr: string }): T & {
	code: number;
	stderr: string;
	session: string;
} {
	const line = r.stdout.split("\n").find((l) => l.startsWith("{"));
	if (!line) throw new Error(`no probe output (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
	const session = /session (S-\S+) for /.exec(r.stderr)?.[1] as string;
	return { code: r.code, stderr: r.stderr, session, ...(JSON.parse(line) as T) };
}

/** A tool called as the operator through `roundtable mcp call` in `root`; its result (throws on failure). */
export async function operatorCall(root: string, tool: string, args: object) {
	const r = await runCli(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args)]);
	if (r.code !== 0) throw new Error(`${tool}: ${r.stderr}`);
	return JSON.parse(r.stdout);
}

/** The same call, which must fail: what it printed (the error as JSON). */
export async function operatorRefusal(root: string, tool: string, args: object): Promise<string> {
	const r = await runCli(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args)]);
	expect(r.code).not.toBe(0);
	return r.stderr;
}
