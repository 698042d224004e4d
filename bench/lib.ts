// Small helpers for benchmarks: a fresh project and timing.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
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

const MAIN = join(import.meta.dir, "..", "src", "main.ts");

/** `roundtable init` in `project`, as a user runs it, with HTTP on any free port (benches run side by side). */
export function initOnAnyPort(project: string): void {
	const init = Bun.spawnSync([process.execPath, MAIN, "init", "--root", project]);
	if (init.exitCode !== 0) throw new Error(`roundtable init failed: ${init.stderr.toString()}`);
	const config = join(project, ".roundtable", "config.yaml");
	writeFileSync(config, readFileSync(config, "utf8").replace("127.0.0.1:7117", "127.0.0.1:0"));
}

/** `roundtable start` in `project`, in its own process: the owner and what its ready line names. */
export async function startOwner(project: string) {
	const proc = Bun.spawn([process.execPath, MAIN, "start", "--root", project], {
		stdout: "pipe",
		stderr: "ignore",
	});
	const ready = await readLine(proc.stdout);
	const named = (key: string) => new RegExp(`${key}=(\\S+)`).exec(ready)?.[1];
	const socket = named("socket");
	const url = named("http");
	if (socket === undefined || url === undefined) {
		proc.kill("SIGTERM");
		throw new Error(`the owner did not start: ${ready || "(no ready line)"}`);
	}
	return {
		pid: proc.pid,
		socket,
		url,
		async stop(): Promise<void> {
			proc.kill("SIGTERM");
			await proc.exited;
		},
	};
}

/**
 * A bare socket server of ./bare-server.ts (`script` is its file in bench/), in its own process,
 * listening at `socket`; `args` follow the socket path. Fails with what it printed if it never
 * says "ready".
 */
export async function startBareServer(script: string, socket: string, ...args: string[]) {
	const proc = Bun.spawn([process.execPath, join(import.meta.dir, script), socket, ...args], {
		stdout: "pipe",
		stderr: "pipe",
	});
	const ready = await readLine(proc.stdout);
	if (ready !== "ready") {
		proc.kill("SIGTERM");
		const why = (await new Response(proc.stderr).text()).trim();
		throw new Error(`${script} did not start: ${why || ready || "(no ready line)"}`);
	}
	return {
		pid: proc.pid,
		async stop(): Promise<void> {
			proc.kill("SIGTERM");
			await proc.exited;
		},
	};
}

const taskset = (...args: string[]): string => {
	const run = Bun.spawnSync(["taskset", ...args]);
	if (run.exitCode !== 0) throw new Error(`taskset ${args.join(" ")}: ${run.stderr.toString().trim()}`);
	return run.stdout.toString();
};

/**
 * Two CPUs this process may run on, for a bench that places its processes itself; undefined when
 * it may run on only one, or there is no taskset (Linux's util-linux) to place them with.
 */
export function twoCpus(): [number, number] | undefined {
	if (Bun.which("taskset") === null) return undefined;
	// "pid 123's current affinity list: 0-3,6"
	const list = /list: (\S+)/.exec(taskset("-c", "-p", String(process.pid)))?.[1] ?? "";
	const cpus: number[] = [];
	for (const part of list.split(",")) {
		const [from, to = from] = part.split("-").map(Number) as [number, number?];
		for (let cpu = from; cpu <= (to as number) && cpus.length < 2; cpu++) cpus.push(cpu);
	}
	return cpus.length === 2 ? [cpus[0] as number, cpus[1] as number] : undefined;
}

/**
 * Puts every thread of process `pid` on CPU `cpu` (threads it starts later follow); returns how to
 * give it back the CPUs it had.
 */
export function pin(pid: number, cpu: number): () => void {
	const mask = /mask: ([0-9a-f]+)/.exec(taskset("-p", String(pid)))?.[1] as string;
	const all = (...args: string[]) => {
		// A thread that ends while taskset walks them fails the walk; the next walk no longer sees it.
		for (let attempt = 1; ; attempt++) {
			try {
				return taskset("-a", "-p", ...args, String(pid));
			} catch (err) {
				if (attempt === 3) throw err;
			}
		}
	};
	all("-c", String(cpu));
	return () => {
		all(mask);
	};
}

/** A git repository of 20,000 small TypeScript files (200 folders of 100) under a new temp folder. */
export function bigRepository(prefix: string): string {
	const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	for (let d = 0; d < 200; d++) {
		mkdirSync(join(root, `src/p${d}`), { recursive: true });
		for (let f = 0; f < 100; f++)
			writeFileSync(join(root, `src/p${d}/f${f}.ts`), `export const x = ${f};\n`.repeat(40));
	}
	const git = (...args: string[]) =>
		Bun.spawnSync(["git", "-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: root });
	git("init", "-q");
	git("add", ".");
	git("commit", "-qm", "x");
	return root;
}

/**
 * A launched agent for the launch benches: initialize and tools/list on its session's socket, then
 * print when the list came back (ms since the epoch); without a socket, print at once (the floor).
 */
export const SESSION_CHILD = `
const socket = process.env.ROUNDTABLE_SESSION_SOCKET;
if (!socket) { console.log(Date.now()); process.exit(0); }
let buffer = "";
let done;
const listed = new Promise((r) => (done = r));
const s = await Bun.connect({ unix: socket, socket: { data(_s, c) {
	buffer += new TextDecoder().decode(c);
	if (buffer.includes('"id":2')) done();
} } });
s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } } }) + "\\n");
s.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\\n");
s.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\\n");
await listed;
console.log(Date.now());
s.end();
`;

/** Resident memory of a process, in MB. */
export function rssMb(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
	return kb / 1024;
}

/** A git repository holding this project's sources, initialized for Roundtable; `edit` changes its config. */
export function realProject(edit?: (config: string) => string): string {
	const project = mkdtempSync(join(tmpdir(), "rt-bench-real-"));
	cpSync(join(import.meta.dir, "..", "src"), join(project, "src"), { recursive: true });
	cpSync(join(import.meta.dir, "..", "package.json"), join(project, "package.json"));
	const git = (...args: string[]) =>
		Bun.spawnSync(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
			cwd: project,
		});
	git("init", "-q");
	git("add", "-A");
	git("commit", "-q", "-m", "sources");
	initOnAnyPort(project);
	if (edit) {
		const config = join(project, ".roundtable", "config.yaml");
		writeFileSync(config, edit(readFileSync(config, "utf8")));
	}
	return project;
}
