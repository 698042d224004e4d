// Running a test command: its own process group (so a timeout or a cancellation kills every child,
// not just the leader), both pipes read concurrently in arrival order, and an output cap that keeps
// the head and the tail of what was written with a marker between them.

import { readdirSync, readFileSync } from "node:fs";
import { charStartFrom, wholeCharsEnd } from "../os/log-page.ts";

/** How long the pipes may stay open once the process group is dead (held by a process that left it). */
const DRAIN_GRACE_MS = 1000;

export interface ProcessOptions {
	argv: string[];
	cwd: string;
	env: Record<string, string>;
	timeoutMs: number;
	/** Output kept in full up to this; beyond it, the first and last halves with a marker. */
	maxBytes: number;
	signal: AbortSignal;
	/** The latest complete output line, as it arrives. */
	onLine?: (line: string) => void;
	/** Called once the command runs, with the process group it leads (its pid). */
	onStart?: (group: number) => void;
	/** Descriptors the command gets as 3, 4, … (a sandbox's seccomp program). */
	fds?: number[];
}

export interface ProcessResult {
	/** Null when the process could not be started (`error` says why) or was killed by a signal. */
	exit_code: number | null;
	signal: string | null;
	timed_out: boolean;
	cancelled: boolean;
	/** Set when the program could not be started at all (not found, not executable). */
	error: string | null;
	duration_ms: number;
	output: Uint8Array;
	output_bytes: number;
	truncated: boolean;
}

/** Keeps the first `half` bytes and a rolling window of the last `half`. */
class HeadTail {
	private head: Uint8Array[] = [];
	private headBytes = 0;
	private tail: Uint8Array[] = [];
	private tailBytes = 0;
	total = 0;

	constructor(private readonly half: number) {}

	push(chunk: Uint8Array): void {
		this.total += chunk.byteLength;
		if (this.headBytes < this.half) {
			const take = Math.min(this.half - this.headBytes, chunk.byteLength);
			this.head.push(chunk.subarray(0, take));
			this.headBytes += take;
			chunk = chunk.subarray(take);
		}
		if (chunk.byteLength === 0) return;
		this.tail.push(chunk);
		this.tailBytes += chunk.byteLength;
		while (this.tailBytes - (this.tail[0]?.byteLength ?? 0) >= this.half) {
			this.tailBytes -= (this.tail.shift() as Uint8Array).byteLength;
		}
	}

	get truncated(): boolean {
		return this.total > this.half * 2;
	}

	bytes(): Uint8Array {
		const tail = Buffer.concat(this.tail);
		if (!this.truncated) return Buffer.concat([...this.head, tail]);
		// Both cuts keep whole UTF-8 characters: one the cut would split is left out (and counted).
		const head = Buffer.concat(this.head);
		const first = head.subarray(0, wholeCharsEnd(head));
		const kept = tail.subarray(charStartFrom(tail, tail.byteLength - this.half));
		const omitted = this.total - first.byteLength - kept.byteLength;
		const marker = Buffer.from(
			`\n[roundtable: ${omitted} byte${omitted === 1 ? "" : "s"} of output omitted here]\n`,
		);
		return Buffer.concat([first, marker, kept]);
	}
}

export async function runProcess(o: ProcessOptions): Promise<ProcessResult> {
	const started = performance.now();
	const sink = new HeadTail(Math.max(1, Math.floor(o.maxBytes / 2)));
	const done = (partial: Partial<ProcessResult>): ProcessResult => ({
		exit_code: null,
		signal: null,
		timed_out: false,
		cancelled: false,
		error: null,
		duration_ms: Math.round(performance.now() - started),
		output: sink.bytes(),
		output_bytes: sink.total,
		truncated: sink.truncated,
		...partial,
	});
	if (o.signal.aborted) return done({ cancelled: true });

	let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
	try {
		proc = Bun.spawn(o.argv, {
			cwd: o.cwd,
			env: o.env,
			stdio: ["ignore", "pipe", "pipe", ...(o.fds ?? [])],
			detached: true, // setsid(): the child leads its own process group
		}) as typeof proc;
	} catch (err) {
		return done({ error: `cannot start ${o.argv[0]}: ${(err as Error).message}` });
	}
	o.onStart?.(proc.pid);

	// A process that left the group (setsid, a daemon) survives the kill and may hold the pipes
	// open: once the group is killed, the reads get DRAIN_GRACE_MS to end, then are cancelled, so a
	// timeout or a cancellation always ends the run.
	const readers: { cancel(): Promise<void> }[] = [];
	let drainTimer: ReturnType<typeof setTimeout> | undefined;
	let killed = false;
	const killGroup = () => {
		if (killed) return;
		killed = true;
		try {
			process.kill(-proc.pid, "SIGKILL");
		} catch {
			// already gone
		}
		drainTimer = setTimeout(() => {
			for (const reader of readers) reader.cancel().catch(() => {});
		}, DRAIN_GRACE_MS);
	};
	let timedOut = false;
	let cancelled = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup();
	}, o.timeoutMs);
	const onAbort = () => {
		cancelled = true;
		killGroup();
	};
	o.signal.addEventListener("abort", onAbort, { once: true });

	const pump = async (stream: ReadableStream<Uint8Array>) => {
		// Each stream has its own partial line: stdout and stderr chunks never splice into one line.
		let partialLine = "";
		const decoder = new TextDecoder();
		const reader = stream.getReader();
		readers.push(reader);
		for (;;) {
			let next: Awaited<ReturnType<typeof reader.read>>;
			try {
				next = await reader.read();
			} catch (err) {
				if (killed) return; // cancelled after the drain grace
				throw err;
			}
			if (next.done) return;
			const chunk = next.value;
			sink.push(chunk);
			if (!o.onLine) continue;
			const text = partialLine + decoder.decode(chunk, { stream: true });
			const lines = text.split("\n");
			partialLine = (lines.pop() ?? "").slice(-4096);
			const last = lines.filter((l) => l.trim() !== "").at(-1);
			if (last !== undefined) o.onLine(last.slice(0, 500));
		}
	};
	try {
		// The leader may exit while children it left behind still hold the pipes: once it has,
		// the group is killed so the reads end.
		await Promise.all([pump(proc.stdout), pump(proc.stderr), proc.exited.then(killGroup)]);
	} finally {
		clearTimeout(timer);
		o.signal.removeEventListener("abort", onAbort);
		killGroup();
		clearTimeout(drainTimer);
	}
	const code = await proc.exited;
	const signal = proc.signalCode === null ? null : String(proc.signalCode);
	return done({
		exit_code: signal ? null : code,
		signal,
		timed_out: timedOut,
		cancelled: cancelled && !timedOut,
	});
}

/**
 * Kills what is left of a test's process group after the process that ran it died — but only when
 * a process in the group still carries the run's mark in its environment, so a group id the system
 * has since given to someone else is never hit. Linux only (/proc); elsewhere nothing is killed.
 */
export function killMarkedGroup(group: number, variable: string, runId: string): boolean {
	if (process.platform !== "linux") return false;
	const mark = `\0${variable}=${runId}\0`;
	let pids: string[];
	try {
		pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
	} catch {
		return false;
	}
	for (const pid of pids) {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
			// The fields after the parenthesized command name: state, ppid, pgrp, …
			if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== group) continue;
			if (!`\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(mark)) continue;
			process.kill(-group, "SIGKILL");
			return true;
		} catch {
			// gone meanwhile, or not ours to read
		}
	}
	return false;
}
