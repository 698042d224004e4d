// Whether a process still lives, for the records that name one (an owner, a test run's runner, the
// holder of an idempotency key, a launched agent an earlier owner left), and whether a program
// could start at all.
import { accessSync, constants as fs, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";

/** True while `pid` exists (a process of another user counts: EPERM). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === "EPERM";
	}
}

/**
 * A process's start time since boot (clock ticks), from /proc; undefined when it is gone, a zombie
 * included (it runs nothing; whoever inherited it reaps it when it does).
 */
export function startTime(pid: number): string | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return fields[0] === "Z" ? undefined : fields[19];
	} catch {
		return undefined;
	}
}

/**
 * Why the program cannot start, as Bun.spawn would say unsandboxed — bwrap itself would start and
 * report it as exit 1 — or undefined.
 */
export function cannotStart(program: string, cwd: string, path: string | undefined): string | undefined {
	const candidates = program.includes("/")
		? [isAbsolute(program) ? program : join(cwd, program)]
		: (path ?? "").split(":").map((d) => join(d || ".", program));
	let denied = false;
	for (const file of candidates) {
		try {
			accessSync(file, fs.X_OK);
			return undefined;
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code === "EACCES") denied = true;
		}
	}
	const why = denied ? "EACCES: permission denied" : "ENOENT: no such file or directory";
	return `cannot start ${program}: ${why}`;
}
