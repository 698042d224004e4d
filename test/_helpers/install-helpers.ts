// Shared by the tests of what a user installs (test/package.test.ts, test/binary.test.ts): a PATH
// with no bun on it, a project set up as a user would, an owner started in its own process group
// and stopped the way Ctrl-C stops it, and one MCP session over a stdio command, line by line.
import { expect } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { Subprocess } from "bun";
import { readyLine } from "./helpers.ts";

/** PATH without any folder that holds a bun or bunx (node_modules/.bin included, as npm test adds it). */
export function pathWithoutBun(path = process.env.PATH ?? ""): string {
	return path
		.split(delimiter)
		.filter((dir) => dir !== "" && !existsSync(join(dir, "bun")) && !existsSync(join(dir, "bunx")))
		.join(delimiter);
}

/** A whole environment built from nothing: `home` as HOME, and no bun on PATH. */
export function userEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
	const env = { PATH: pathWithoutBun(), HOME: home, LANG: "C.UTF-8", ...extra };
	expect(Bun.which("bun", { PATH: env.PATH })).toBeNull();
	return env;
}

/**
 * `.roundtable/config.yaml` before `init` (which keeps it): the owner on a port the OS picks, and
 * `tests` as given. Plus a bunfig.toml whose preload would leave `preloaded` behind, since a
 * project's own Bun settings must not run inside Roundtable.
 */
export function prepareProject(root: string, tests = ""): void {
	mkdirSync(join(root, ".roundtable"), { recursive: true });
	writeFileSync(join(root, ".roundtable", "config.yaml"), `mcp:\n  http_address: 127.0.0.1:0\n${tests}`);
	writeFileSync(join(root, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
	writeFileSync(
		join(root, "preload.ts"),
		'require("node:fs").writeFileSync(__dirname + "/preloaded", "");\n',
	);
}

// What the helpers below started and made. Each test file that uses them calls
// `afterAll(cleanUp)` itself: bun test runs no process "exit" handler, and an afterAll in this
// module would belong to whichever test file imported it first. The folders hold 100+ MB each.
const groups: number[] = [];
const scratches: string[] = [];

/** Kills the process groups startOwner started and removes the scratch folders, so far. */
export function cleanUp(): void {
	for (const pid of groups.splice(0)) {
		try {
			process.kill(-pid, "SIGKILL");
		} catch {
			// gone already
		}
	}
	for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A fresh empty folder (its real path), removed by cleanUp. */
export function scratch(prefix: string): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	scratches.push(dir);
	return dir;
}

export interface Owner {
	ready: string;
	/** SIGINT to the owner's whole process group, as Ctrl-C in its terminal; resolves on exit. */
	stop(): Promise<number>;
}

/** Starts `argv` (a `start` command) in its own process group and waits for its ready line. */
export async function startOwner(argv: string[], cwd: string, env: Record<string, string>): Promise<Owner> {
	const proc = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
	groups.push(proc.pid);
	const stderr = new Response(proc.stderr).text();
	const { ready } = await readyLine(proc, 30_000, () => stderr);
	return {
		ready,
		async stop() {
			process.kill(-proc.pid, "SIGINT");
			return proc.exited;
		},
	};
}

interface Reply {
	id: number;
	result?: Record<string, unknown>;
	error?: { code: number; message: string };
}

/**
 * One MCP session over the stdio command `argv`, kept open as a client keeps it: initialize,
 * tools/list and a table.get_state call, each answered before the next is sent; then stdin ends.
 */
export async function stdioSession(argv: string[], cwd: string, env: Record<string, string>) {
	const proc: Subprocess<"pipe", "pipe", "pipe"> = Bun.spawn(argv, {
		cwd,
		env,
		stdin: "pipe",
		stdout: "pipe",
		stderr: "pipe",
	});
	const stderr = new Response(proc.stderr).text();
	const reader = proc.stdout.getReader();
	const decoder = new TextDecoder();
	let buffered = "";
	const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
	const send = (message: object) => proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
	async function reply(id: number): Promise<Reply> {
		for (;;) {
			const cut = buffered.indexOf("\n");
			if (cut >= 0) {
				const message = JSON.parse(buffered.slice(0, cut)) as Reply;
				buffered = buffered.slice(cut + 1);
				if (message.id === id) return message;
				continue;
			}
			const { value, done } = await reader.read();
			if (done) throw new Error(`stdio ended before reply ${id}: ${await stderr}`);
			buffered += decoder.decode(value, { stream: true });
		}
	}
	send({
		id: 1,
		method: "initialize",
		params: {
			protocolVersion: "2025-11-25",
			capabilities: {},
			clientInfo: { name: "install-test", version: "1" },
		},
	});
	const initialize = await reply(1);
	send({ method: "notifications/initialized" });
	send({ id: 2, method: "tools/list" });
	const tools = await reply(2);
	send({ id: 3, method: "tools/call", params: { name: "table.get_state", arguments: {} } });
	const state = await reply(3);
	proc.stdin.end();
	const code = await proc.exited;
	clearTimeout(killer);
	const toolNames = ((tools.result?.tools ?? []) as { name: string }[]).map((t) => t.name).sort();
	return { initialize, toolNames, state, code, stderr: await stderr };
}
