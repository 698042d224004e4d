// Shared test scaffolding: real temp directories, real SQLite files, the real CLI in a subprocess.
import type { Database } from "bun:sqlite";
import { afterAll, expect } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type } from "arktype";
import type { Subprocess } from "bun";
import { type CallContext, operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { initProject } from "../../src/init/index.ts";
import { findTool } from "../../src/registry/index.ts";
import { openRuntime, type Runtime } from "../../src/runtime.ts";
import type { RunStatus } from "../../src/vocabulary/statuses.ts";
import { type CliResult, type RunOptions, runProcess } from "./subprocess.ts";

export { type CliResult, runProcess };

export const REPO = join(import.meta.dir, "..", "..");
export const MAIN = join(REPO, "src", "main.ts");

/** The UUIDv7 part of the ids we mint, e.g. `T-` + this. */
export const UUID7 = "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
export const RFC3339_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Fails the test when a result does not match the tool's declared output schema. */
export function expectDeclaredOutput(tool: string, result: unknown) {
	const t = findTool(tool);
	if (!t) throw new Error(`no tool ${tool}`);
	const out = t.output(result);
	expect(out instanceof type.errors ? out.summary : "matches").toBe("matches");
}

const made = new Set<string>();
/**
 * Removes every tempDir. bun runs all test files in one process and loads this module once, so an
 * afterAll here would belong to the first file that imports it alone: test/preload.ts registers
 * this for the whole run instead.
 */
export function removeTempDirs(): void {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
	made.clear();
}

/** A fresh empty directory, removed when the test run ends. */
export function tempDir(prefix = "rt-test-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.add(dir);
	return dir;
}

export interface Project {
	root: string;
	rt: Runtime;
	ctx: CallContext;
	/** Calls a tool through the dispatcher; rejects with a ToolError. */
	call(tool: string, args?: unknown): Promise<Record<string, unknown>>;
	/** Calls a tool that must fail (as `ctx`, the operator by default) and returns its error. */
	fail(tool: string, args?: unknown, ctx?: CallContext): Promise<ToolError>;
	close(): void;
}

/** An initialized project (config, agents, database) with an open runtime; in a fresh directory unless `root` is given. */
export async function makeProject(options: { config?: string; root?: string } = {}): Promise<Project> {
	const root = options.root ?? tempDir();
	if (options.config !== undefined) {
		mkdirSync(join(root, ".roundtable"), { recursive: true });
		writeFileSync(join(root, ".roundtable", "config.yaml"), options.config);
	}
	await initProject(root);
	const rt = openRuntime(root);
	const ctx = operatorContext("internal");
	const project: Project = {
		root: rt.root,
		rt,
		ctx,
		call: (tool, args = {}) => call(rt, tool, args, ctx) as Promise<Record<string, unknown>>,
		async fail(tool, args = {}, as = ctx) {
			try {
				await call(rt, tool, args, as);
			} catch (err) {
				if (err instanceof ToolError) return err;
				throw err;
			}
			throw new Error(`${tool} succeeded but was expected to fail`);
		},
		close: () => rt.close(),
	};
	afterAll(() => rt.close());
	return project;
}

/** Inserts a run straight into the store (what `roundtable run` would create). */
export function addRun(p: Project, id: string, status: RunStatus = "active") {
	return p.rt.store.withTransaction("write", (tx) =>
		tx.runs.insert({ id, goal: `goal of ${id}`, status }, new Date().toISOString()),
	);
}

/**
 * A call context for `agent` as a capability would make it: a session minted for it (bound to
 * `binding`: task_id, proposal_id and/or run_id), in process, without the capability itself.
 */
export async function agentContext(
	p: Project,
	agent: string,
	binding: Record<string, string> = {},
): Promise<CallContext> {
	const capabilityHash = new Bun.CryptoHasher("sha256").update(crypto.randomUUID()).digest("hex");
	const { session } = await call(
		p.rt,
		"session.mint",
		{ agent_id: agent, capability_sha256: capabilityHash, ...binding },
		operatorContext(),
	);
	return {
		...operatorContext("http"),
		principal: {
			kind: "agent",
			agent_id: agent,
			role: session.role ?? "",
			session_id: session.id,
			...(session.task_id !== null && { task_id: session.task_id }),
			...(session.proposal_id !== null && { proposal_id: session.proposal_id }),
			...(session.run_id !== null && { run_id: session.run_id }),
		},
	};
}

/** Disables an agent as the operator would. */
export async function disableAgent(p: Project, id: string) {
	await call(p.rt, "agent.disable", { agent_id: id }, operatorContext());
}

/** Real git in `root`, with a committer identity; throws on a non-zero exit, returns stdout. */
export function git(root: string, ...args: string[]): string {
	const r = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: root });
	if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
	return r.stdout.toString();
}

/** Writes `root/path`, creating its directories. */
export function write(root: string, path: string, text: string | Uint8Array) {
	mkdirSync(dirname(join(root, path)), { recursive: true });
	writeFileSync(join(root, path), text);
}

/** Writes `files` (path → text) into `root` and commits everything there as a new git repository. */
export function commitAll(root: string, files: Record<string, string> = {}) {
	for (const [path, text] of Object.entries(files)) write(root, path, text);
	git(root, "init", "-q");
	git(root, "add", ".");
	git(root, "commit", "-qm", "start");
}

/** A diff made by real git: edit, diff, restore. */
export function diffOf(root: string, path: string, text: string): string {
	write(root, path, text);
	const patch = git(root, "diff", "--", path);
	git(root, "checkout", "--", path);
	return patch;
}

/** Runs the real CLI (`bun src/main.ts …`) in a subprocess, from the repository unless `cwd` is given. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
	return runProcess([process.execPath, MAIN, ...args], { ...options, cwd: options.cwd ?? REPO });
}

/**
 * Reads a child's stdout up to its first line (an owner's ready line), failing after `ms`; `stdout`
 * is all of it, that line included, once the child closes it. `stderr` only makes a failure clearer.
 */
export async function readyLine(
	proc: Subprocess<"ignore", "pipe", "pipe">,
	ms = 20_000,
	stderr: () => string | Promise<string> = () => "",
): Promise<{ ready: string; stdout: Promise<string> }> {
	const reader = proc.stdout.getReader();
	const decoder = new TextDecoder();
	let text = "";
	const deadline = Date.now() + ms;
	while (!text.includes("\n")) {
		const next = await Promise.race([
			reader.read(),
			Bun.sleep(Math.max(0, deadline - Date.now())).then(() => "timeout" as const),
		]);
		if (next === "timeout") throw new Error(`no ready line within ${ms} ms; stdout so far: ${text}`);
		if (next.done) {
			await proc.exited;
			throw new Error(`exited (${proc.exitCode}) before its ready line: ${text} ${await stderr()}`);
		}
		text += decoder.decode(next.value, { stream: true });
	}
	const ready = text.slice(0, text.indexOf("\n"));
	const stdout = (async () => {
		for (;;) {
			const { value, done } = await reader.read();
			if (done) return text;
			text += decoder.decode(value, { stream: true });
		}
	})();
	return { ready, stdout };
}

/** Polls `check` until it gives something truthy, and returns that; fails after `ms`, naming `what`. */
/**
 * `roundtable watch --follow --json --limit 1` in its own process: its output so far, and a way to
 * wait until it has printed `lines` lines (the first is the newest event, where it starts following).
 */
export function followWatch(root: string) {
	const proc = Bun.spawn(
		[process.execPath, MAIN, "watch", "--follow", "--json", "--limit", "1", "--root", root],
		{
			stdout: "pipe",
			stderr: "pipe",
		},
	);
	const reader = proc.stdout.getReader();
	let text = "";
	return {
		proc,
		text: () => text,
		async readUntil(lines: number) {
			while (text.split("\n").length - 1 < lines) {
				const { value, done } = await reader.read();
				if (done) break;
				text += new TextDecoder().decode(value);
			}
		},
	};
}

export async function until<T>(
	check: () => T | Promise<T>,
	ms: number,
	what: string,
): Promise<Exclude<T, false | null | undefined | 0 | "">> {
	const deadline = performance.now() + ms;
	for (;;) {
		const value = await check();
		if (value) return value as Exclude<T, false | null | undefined | 0 | "">;
		if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
		await Bun.sleep(10);
	}
}

/**
 * One child per entry of `argvs`, each running test/fixtures-scripts/`script` with that argv, held at a
 * start barrier: resolves once every child printed "ready". `go(line)` then writes `line` to each and
 * closes its stdin, and returns the next line each prints, once every child exited 0.
 */
export async function atBarrier(script: string, argvs: string[][]) {
	const children = argvs.map((argv) =>
		Bun.spawn([process.execPath, join(REPO, "test/fixtures-scripts", script), ...argv], {
			stdin: "pipe",
			stdout: "pipe",
			stderr: "inherit",
		}),
	);
	const readers = children.map((c) => c.stdout.getReader());
	const buffers = children.map(() => "");
	const readLine = async (i: number) => {
		while (!buffers[i]?.includes("\n")) {
			const { value, done } = await (readers[i] as ReadableStreamDefaultReader<Uint8Array>).read();
			if (done) break;
			buffers[i] += new TextDecoder().decode(value);
		}
		const text = buffers[i] as string;
		const cut = text.indexOf("\n") + 1;
		buffers[i] = text.slice(cut);
		return text.slice(0, cut);
	};
	const lines = () => Promise.all(children.map((_, i) => readLine(i)));
	expect(await lines()).toEqual(Array(children.length).fill("ready\n"));
	return {
		async go(line = "go\n"): Promise<string[]> {
			for (const c of children) {
				c.stdin.write(line);
				c.stdin.end();
			}
			const out = await lines();
			expect(await Promise.all(children.map((c) => c.exited))).toEqual(Array(children.length).fill(0));
			return out;
		},
	};
}

/** Every event in the project, oldest first. */
export async function allEvents(p: Project) {
	const out = (await p.call("table.watch", { after_event_id: 0, limit: 200 })) as {
		events: {
			id: number;
			type: string;
			actor_id: string;
			task_id: string | null;
			payload: Record<string, unknown>;
		}[];
		has_more_events: boolean;
	};
	if (out.has_more_events) throw new Error("allEvents: more than 200 events; page through them");
	return out.events;
}

/** SQLite's plan for `sql` on `db` (EXPLAIN QUERY PLAN), its steps joined by " | ". */
export function queryPlan(db: Database, sql: string): string {
	return db
		.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
		.all()
		.map((r) => r.detail)
		.join(" | ");
}

const saidMissing = new Set<string>();

/**
 * Why tests that run `programs` cannot run on this machine (those not on PATH), or null when all are
 * there: for `test.skipIf` / `describe.skipIf`, like the Go, pytest and tmux tests. Said once per
 * program, so a skipped test is never silent.
 */
export function lacks(...programs: string[]): string | null {
	const gone = programs.filter((p) => !Bun.which(p));
	for (const p of gone)
		if (!saidMissing.has(p)) {
			saidMissing.add(p);
			console.warn(`skipping the tests that need ${p}: it is not on PATH`);
		}
	return gone.length === 0 ? null : `${gone.join(", ")} not on PATH`;
}
