// A child process run to its end, its output collected: for tests and for the scripts beside them
// (no bun:test here, so `bun test/real-clients-helpers.ts` can use it too).
import type { Subprocess } from "bun";

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

export interface RunOptions {
	cwd?: string;
	/** Written to the child's stdin, which is otherwise closed. */
	stdin?: string;
	env?: Record<string, string | undefined>;
}

function spawn(argv: string[], options: RunOptions, detached: boolean) {
	return Bun.spawn(argv, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
		stdout: "pipe",
		stderr: "pipe",
		detached,
	});
}

async function collect(proc: Subprocess<"ignore" | Uint8Array, "pipe", "pipe">): Promise<CliResult> {
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited,
	]);
	return { code, stdout, stderr };
}

/** Runs `argv` to its end. */
export function runProcess(argv: string[], options: RunOptions = {}): Promise<CliResult> {
	return collect(spawn(argv, options, false));
}

/**
 * Runs `argv` in a process group of its own, so the children it starts (an MCP server) die with it;
 * kills the group after `ms` (code null, timedOut) and, in any case, once it has exited.
 */
export async function bounded(
	argv: string[],
	options: RunOptions & { ms: number },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
	const proc = spawn(argv, options, true);
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(proc.pid);
	}, options.ms);
	const r = await collect(proc);
	clearTimeout(timer);
	killGroup(proc.pid); // whatever it left behind in its group
	return { ...r, code: timedOut ? null : r.code, timedOut };
}

/** SIGKILLs the process group led by `pid` (one spawned detached); gone already is fine. */
export function killGroup(pid: number) {
	try {
		process.kill(-pid, "SIGKILL");
	} catch {}
}
