// Small helpers for benchmarks: a fresh project and timing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { operatorContext } from "../src/context.ts";
import { call } from "../src/dispatch.ts";
import { initProject } from "../src/init/index.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";

/**
 * A project in a new temporary directory (under `base`, default the system's); `prepare` fills the
 * directory before `roundtable init`.
 */
export async function freshProject(
	prepare?: (root: string) => void,
	base = tmpdir(),
): Promise<{
	rt: Runtime;
	call: (tool: string, args: object) => Promise<object>;
	done: () => void;
}> {
	const root = mkdtempSync(join(base, "rt-bench-"));
	prepare?.(root);
	await initProject(root);
	const rt = openRuntime(root);
	const ctx = operatorContext("internal");
	return {
		rt,
		call: (tool, args) => call(rt, tool, args, ctx),
		done: () => {
			rt.close();
			rmSync(root, { recursive: true, force: true });
		},
	};
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export const percentile = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

export const fmt = (n: number, digits = 0) =>
	n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The first line a child writes (an owner's ready line), trimmed; the stream stays open. */
export async function readLine(stream: ReadableStream<Uint8Array>): Promise<string> {
	const reader = stream.getReader();
	let text = "";
	while (!text.includes("\n")) {
		const { value, done } = await reader.read();
		if (done) break;
		text += new TextDecoder().decode(value);
	}
	reader.releaseLock();
	return text.trim();
}

/**
 * One of issue 22's figures, as a bench reports it to `npm run bench`'s summary line: the ratio to
 * its floor from the same run, and the goal it is held to ("≥" means bigger is better).
 */
export type Figure = { name: string; ratio: number; goal: { op: "≥" | "≤"; value: number } };

export const meets = (f: Figure) => (f.goal.op === "≥" ? f.ratio >= f.goal.value : f.ratio <= f.goal.value);
