// Shared by the test.run tests (test/test-runs/run.test.ts, results.test.ts): projects whose config
// allowlists small `#!/bin/sh` scripts written into them, calls, events, processes, git proposals.
import { expect } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { TESTLOGS_DIR } from "../../src/test-runs/logs.ts";
import type { TestRunRecord } from "../../src/vocabulary/records.ts";
import { type Proposal, taskFlow } from "./flow-helpers.ts";
import {
	allEvents,
	diffOf,
	expectDeclaredOutput,
	makeProject,
	type Project,
	tempDir,
	write,
} from "./helpers.ts";

// ---------------------------------------------------------------------------------------------
// Helpers

export interface RunOutput {
	test_run: TestRunRecord;
	log: string;
}
export interface ResultPage extends RunOutput {
	offset: number;
	next_offset: number | null;
	log_bytes: number;
}

export interface Setup {
	/** tests.allowed_commands */
	allow: string[];
	timeout?: number;
	maxOutput?: number;
	envAllowlist?: string[];
	/** tests.sandbox (default auto: bubblewrap where it works) */
	sandbox?: "auto" | "required" | "off";
	network?: boolean;
	/** sandbox.expose */
	expose?: string[];
	/** Executable `#!/bin/sh` scripts written into the project root: name → body. */
	scripts?: Record<string, string>;
}

function configYaml(s: Setup): string {
	const lines = ["tests:", "  allowed_commands:", ...s.allow.map((c) => `    - ${JSON.stringify(c)}`)];
	if (s.timeout !== undefined) lines.push(`  timeout_seconds: ${s.timeout}`);
	if (s.maxOutput !== undefined) lines.push(`  max_output_bytes: ${s.maxOutput}`);
	if (s.envAllowlist) lines.push(`  env_allowlist: ${JSON.stringify(s.envAllowlist)}`);
	if (s.sandbox) lines.push(`  sandbox: ${s.sandbox}`);
	if (s.network !== undefined) lines.push(`  network: ${s.network}`);
	if (s.expose) lines.push("sandbox:", `  expose: ${JSON.stringify(s.expose)}`);
	return `${lines.join("\n")}\n`;
}

export function script(root: string, name: string, body: string) {
	write(root, name, `#!/bin/sh\n${body.trim()}\n`);
	chmodSync(join(root, name), 0o755);
}

export async function project(s: Setup): Promise<Project> {
	const p = await makeProject({ config: configYaml(s) });
	for (const [name, body] of Object.entries(s.scripts ?? {})) script(p.root, name, body);
	return p;
}

export async function run(p: Project, args: Record<string, unknown>, ctx?: CallContext): Promise<RunOutput> {
	const out = ctx ? await call(p.rt, "test.run", args, ctx) : await p.call("test.run", args);
	expectDeclaredOutput("test.run", out);
	return out as unknown as RunOutput;
}

export async function result(p: Project, args: Record<string, unknown>): Promise<ResultPage> {
	const out = await p.call("test.get_result", args);
	expectDeclaredOutput("test.get_result", out);
	return out as unknown as ResultPage;
}

export const eventsOf = async (p: Project, type: string) =>
	(await allEvents(p)).filter((e) => e.type === type);

/** Nothing was recorded: no test.started event and no log written. */
export async function expectNothingRecorded(p: Project) {
	expect(await eventsOf(p, "test.started")).toEqual([]);
	expect(await eventsOf(p, "test.finished")).toEqual([]);
	const logs = join(p.root, TESTLOGS_DIR);
	expect(existsSync(logs) ? readdirSync(logs) : []).toEqual([]);
}

export const logFile = (p: Project, id: string) => join(p.root, TESTLOGS_DIR, `${id}.log`);

/** True while `pid` is a live, non-zombie process. */
export function running(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		// A killed child not yet reaped by its new parent is a zombie: dead, though kill(0) succeeds.
		return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		// Gone since kill(0); or, without procfs, kill(0)'s word is all there is.
		return !existsSync("/proc/self/stat");
	}
}

export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
	const until = Date.now() + ms;
	while (Date.now() < until) {
		if (check()) return true;
		await Bun.sleep(25);
	}
	return check();
}

/** Whether byte `i` of `text` in UTF-8 falls inside a character (a continuation byte). */
export const midCharacter = (text: string, i: number) => ((Buffer.from(text)[i] ?? 0) & 0xc0) === 0x80;

export const pidIn = (root: string, file: string) => Number(readFileSync(join(root, file), "utf8").trim());

/** Runs `fn` with process.env changed as given (undefined removes), restoring it afterwards. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
	const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
	const set = (v: Record<string, string | undefined>) => {
		for (const [k, value] of Object.entries(v)) {
			if (value === undefined) delete process.env[k];
			else process.env[k] = value;
		}
	};
	set(vars);
	try {
		return await fn();
	} finally {
		set(saved);
	}
}

/** `lines` numbered lines of ASCII text, each `width` bytes with its newline. */
export const numbered = (lines: number, width = 32) =>
	Array.from({ length: lines }, (_, i) => `line ${String(i).padStart(6, "0")} `.padEnd(width - 1, "x"))
		.map((l) => `${l}\n`)
		.join("");

// --- a real git repository with a real proposal ------------------------------------------------

/** A task, implementer-1's write claim on `path`, and a proposal changing `path` to `text`. */
export async function propose(p: Project, path: string, text: string): Promise<Proposal> {
	const f = await taskFlow(p);
	await f.claim("implementer-1", path);
	return f.propose({ patch: diffOf(p.root, path, text) });
}

/** Runs `fn` with TMPDIR pointing at a fresh directory (where scratch copies go), returned with the result. */
export async function withPrivateTmp<T>(fn: () => Promise<T>): Promise<{ value: T; tmp: string }> {
	const tmp = tempDir("rt-scratch-");
	const value = await withEnv({ TMPDIR: tmp }, fn);
	return { value, tmp };
}

// ---------------------------------------------------------------------------------------------

export const ECHO_ARGS = `for a in "$@"; do printf '<%s>\\n' "$a"; done`;
