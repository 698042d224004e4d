// The fuzz suite's real parts: a project in a sandbox folder, a real owner subprocess (`roundtable
// start`), a real stdio bridge subprocess, memory from /proc, and the checks made after a run (the
// database's integrity, nothing written outside the project).
import { Database } from "bun:sqlite";
import {
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { parseDocument } from "yaml";
import { initProject } from "../../src/init/index.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");

/** The read deadline the fuzz projects use, so that stalled cases end in seconds. */
export const READ_DEADLINE_S = 2;

/**
 * A sandbox: `box/project` is the project; `box/outside` holds a decoy file; HOME and TMPDIR of
 * every child point into `box`, so a write outside the project shows up in the box's listing.
 */
export interface Sandbox {
	box: string;
	root: string;
	env: Record<string, string>;
	/** Every path in the box outside the project, with its size and mtime. */
	outside(): Map<string, string>;
	remove(): void;
}

export async function makeSandbox(): Promise<Sandbox> {
	const box = realpathSync(mkdtempSync(join(tmpdir(), "rt-fuzz-")));
	const root = join(box, "project");
	for (const dir of ["project", "outside", "home", "tmp"]) mkdirSync(join(box, dir));
	writeFileSync(join(box, "outside", "decoy.txt"), "outside the project\n");
	writeFileSync(join(root, "README.md"), "# fuzz project\n\nA project the fuzz suite attacks.\n");
	const env: Record<string, string> = {
		...(process.env as Record<string, string>),
		HOME: join(box, "home"),
		TMPDIR: join(box, "tmp"),
		XDG_CACHE_HOME: join(box, "home", ".cache"),
		XDG_CONFIG_HOME: join(box, "home", ".config"),
		BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
		NO_COLOR: "1",
	};
	delete env.ROUNDTABLE_MCP_TOKEN;
	await initProject(root);
	const config = join(root, ".roundtable", "config.yaml");
	const doc = parseDocument(readFileSync(config, "utf8"));
	doc.setIn(["mcp", "http_address"], "127.0.0.1:0");
	// The HTTP cases speak without credentials (a bearer is one of the headers they vary); the
	// credential checks have tests of their own.
	doc.setIn(["mcp", "loopback_auth"], "none");
	doc.setIn(["limits", "read_deadline_seconds"], READ_DEADLINE_S);
	doc.setIn(["limits", "write_deadline_seconds"], 10);
	writeFileSync(config, doc.toString());
	const tmp = join(box, "tmp");
	const listing = () => {
		const out = new Map<string, string>();
		const walk = (dir: string) => {
			for (const name of readdirSync(dir)) {
				const path = join(dir, name);
				if (path === root) continue;
				const st = lstatSync(path);
				// TMPDIR is for temporary files (the owner's sandbox probe, scratch copies): making
				// and removing one there is no write outside; anything left in it still shows.
				out.set(path, path === tmp ? "TMPDIR" : `${st.size}:${st.mtimeMs}:${st.mode}`);
				if (st.isDirectory()) walk(path);
			}
		};
		walk(box);
		return out;
	};
	return { box, root, env, outside: listing, remove: () => rmSync(box, { recursive: true, force: true }) };
}

/** What changed between two listings of the box: paths added, removed or changed. */
export function changedOutside(before: Map<string, string>, after: Map<string, string>): string[] {
	const changed: string[] = [];
	for (const [path, stamp] of after) if (before.get(path) !== stamp) changed.push(path);
	for (const path of before.keys()) if (!after.has(path)) changed.push(`${path} (removed)`);
	return changed;
}

/** Resident memory of a process in bytes, from /proc (0 when it is gone). */
export function rss(pid: number): number {
	try {
		const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
		return m ? Number(m[1]) * 1024 : 0;
	} catch {
		return 0;
	}
}

/** Open file descriptors of a process (-1 when it is gone). */
export function openFiles(pid: number): number {
	try {
		return readdirSync(`/proc/${pid}/fd`).length;
	} catch {
		return -1;
	}
}

/** Samples a process's RSS every `ms` and keeps the peak. */
export function peakSampler(pid: number, ms = 100) {
	let peak = rss(pid);
	const timer = setInterval(() => {
		peak = Math.max(peak, rss(pid));
	}, ms);
	return {
		stop(): number {
			clearInterval(timer);
			return Math.max(peak, rss(pid));
		},
	};
}

export interface Owner {
	proc: Subprocess<"ignore", "pipe", "pipe">;
	url: string;
	socket: string;
	stderr: () => string;
	alive(): boolean;
	/** SIGTERM, then SIGKILL after `ms`; the exit code (or signal name). */
	stop(ms?: number): Promise<number | string>;
}

async function collect(stream: ReadableStream<Uint8Array>, into: { text: string }, limit = 64 * 1024) {
	const decoder = new TextDecoder();
	for await (const chunk of stream) {
		if (into.text.length < limit) into.text += decoder.decode(chunk, { stream: true });
	}
}

const alive = (proc: Subprocess) => proc.exitCode === null && proc.signalCode === null;

async function stopProcess(proc: Subprocess, ms: number): Promise<number | string> {
	if (alive(proc)) proc.kill("SIGTERM");
	const done = await Promise.race([proc.exited, Bun.sleep(ms).then(() => "timeout" as const)]);
	if (done === "timeout") {
		proc.kill("SIGKILL");
		await proc.exited;
		return "SIGKILL after SIGTERM timeout";
	}
	return proc.signalCode ?? done;
}

export async function startOwner(sb: Sandbox): Promise<Owner> {
	const proc = Bun.spawn([process.execPath, MAIN, "start", "--root", sb.root], {
		cwd: sb.root,
		env: sb.env,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const out = { text: "" };
	const err = { text: "" };
	void collect(proc.stdout, out);
	void collect(proc.stderr, err);
	const deadline = Date.now() + 30_000;
	let line: string | undefined;
	while (!line) {
		line = out.text.split("\n").find((l) => l.startsWith("roundtable ready:"));
		if (line) break;
		if (!alive(proc)) throw new Error(`the owner exited before its ready line: ${err.text}`);
		if (Date.now() > deadline) {
			proc.kill("SIGKILL");
			throw new Error(`no ready line within 30 s: ${out.text} ${err.text}`);
		}
		await Bun.sleep(20);
	}
	const url = /\bhttp=(\S+)/.exec(line)?.[1];
	const socket = /\bsocket=(\S+)/.exec(line)?.[1];
	if (!url?.startsWith("http://127.0.0.1:") || !socket) throw new Error(`unexpected ready line: ${line}`);
	return {
		proc,
		url,
		socket,
		stderr: () => err.text,
		alive: () => alive(proc),
		stop: (ms = 15_000) => stopProcess(proc, ms),
	};
}

export interface Bridge {
	proc: Subprocess<"pipe", "pipe", "pipe">;
	stderr: () => string;
	alive(): boolean;
	stop(ms?: number): Promise<number | string>;
}

/** `roundtable mcp stdio --root <project>`: finds the owner from owner.json. */
export function startBridge(sb: Sandbox): Bridge {
	const proc = Bun.spawn([process.execPath, MAIN, "mcp", "stdio", "--root", sb.root], {
		cwd: sb.root,
		env: sb.env,
		stdin: "pipe",
		stdout: "pipe",
		stderr: "pipe",
	});
	const err = { text: "" };
	void collect(proc.stderr, err);
	return {
		proc,
		stderr: () => err.text,
		alive: () => alive(proc),
		async stop(ms = 10_000) {
			try {
				proc.stdin.end();
			} catch {
				// already closed
			}
			return stopProcess(proc, ms);
		},
	};
}

/** PRAGMA integrity_check of the project's database (the owner stopped): "ok" or the problems. */
export function integrity(sb: Sandbox): string {
	const db = new Database(join(sb.root, ".roundtable", "roundtable.db"), { readonly: true });
	try {
		const rows = db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
		return rows.map((r) => r.integrity_check).join("; ");
	} finally {
		db.close();
	}
}
