// Shared test scaffolding: real temp directories, real SQLite files, the real CLI in a subprocess.
import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type } from "arktype";
import { type CallContext, operatorContext } from "../src/context.ts";
import { call } from "../src/dispatch.ts";
import { ToolError } from "../src/errors.ts";
import { initProject } from "../src/init/index.ts";
import { findTool } from "../src/registry/index.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";

export const REPO = join(import.meta.dir, "..");
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

const made: string[] = [];
afterAll(() => {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh empty directory, removed when the test file ends. */
export function tempDir(prefix = "rt-test-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.push(dir);
	return dir;
}

export interface Project {
	root: string;
	rt: Runtime;
	ctx: CallContext;
	/** Calls a tool through the dispatcher; rejects with a ToolError. */
	call(tool: string, args?: unknown): Promise<Record<string, unknown>>;
	/** Calls a tool that must fail and returns its error. */
	fail(tool: string, args?: unknown): Promise<ToolError>;
	close(): void;
}

/** An initialized project (config, agents, database) with an open runtime. */
export async function makeProject(options: { config?: string } = {}): Promise<Project> {
	const root = tempDir();
	if (options.config !== undefined) {
		const { mkdirSync } = await import("node:fs");
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
		async fail(tool, args = {}) {
			try {
				await call(rt, tool, args, ctx);
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

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** Runs the real CLI (`bun src/main.ts …`) in a subprocess. */
export async function runCli(
	args: string[],
	options: { cwd?: string; stdin?: string } = {},
): Promise<CliResult> {
	const proc = Bun.spawn([process.execPath, MAIN, ...args], {
		cwd: options.cwd ?? REPO,
		stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
		stdout: "pipe",
		stderr: "pipe",
	});
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited,
	]);
	return { code, stdout, stderr };
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
