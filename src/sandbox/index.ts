// Every sandbox (test runs, launched agents) is built here, on Linux with bubblewrap, from an
// allowlist: a new, empty root that holds only the system runtime (system.ts), the folders of the
// tools the command runs (tools.ts), the run's own directory (the one place it writes), a private
// /tmp and $HOME, a minimal /dev and a new /proc. Nothing else of the host exists inside: no other
// project, no /var/tmp, /root, /run or $XDG_RUNTIME_DIR, no .roundtable/. Its own pid, ipc, uts and
// network namespaces (the host's network only when asked), no capabilities, dying with its parent;
// a headless run gets a session of its own, an interactive one keeps the terminal with TIOCSTI and
// TIOCLINUX refused by a seccomp filter.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { closeAll, type MemoryFile, memoryFile } from "./memory-file.ts";
import { ttyFilter } from "./seccomp.ts";
import { systemArgs } from "./system.ts";
import { realOrUndefined, SYSTEM_DIRS, under } from "./tools.ts";

export { toolFolders } from "./tools.ts";

export interface SandboxSpec {
	argv: string[];
	/** The run's own directory on the host: the one place the command writes. */
	dir: string;
	/** Where `dir` appears inside (default: its own path). */
	dirInside?: string;
	/** Host paths inside `dir` kept read-only (dependency folders, .git). */
	readOnly?: string[];
	/** Host folders shown read-only at their own place: the tools (toolFolders) and sandbox.expose. */
	tools: string[];
	/** Single host files or sockets shown read-only at a path inside (a session's socket, a client config). */
	files?: { host: string; inside: string }[];
	/** The private $HOME at `inside`: the host folder `host` bound writable, else an empty tmpfs. */
	home: { inside: string; host?: string };
	network: boolean;
	/**
	 * `new`: a session of its own, no controlling terminal (headless). `shared`: keeps the caller's
	 * terminal for an interactive CLI, with TIOCSTI and TIOCLINUX refused by seccomp.
	 */
	terminal: "new" | "shared";
	/** Where the command starts, inside (default: where `dir` appears). */
	cwd?: string;
	/** A file bwrap writes its status to (`child-pid`: the namespace's init, whose child is the command). */
	statusFile?: string;
}

export interface Sandboxed {
	argv: string[];
	/** Descriptors the spawn passes on as 3, 4, …: the seccomp program first. */
	fds: number[];
	/** Closes this side's copies of `fds` (once the child has started). */
	close(): void;
}

export type SandboxChoice =
	| { kind: "bwrap"; bwrap: string; reason: string }
	| { kind: "none"; reason: string };

/** Where a host path inside `spec.dir` appears inside the sandbox. */
function inside(spec: SandboxSpec, dir: string, p: string): string {
	return spec.dirInside === undefined ? p : spec.dirInside + p.slice(dir.length);
}

let filter: MemoryFile | undefined | null;
/** A descriptor for the seccomp program, or undefined on an architecture without one. */
function filterFd(): number | undefined {
	if (filter === undefined) {
		const program = ttyFilter();
		filter = program ? memoryFile(program) : null;
	}
	return filter?.open();
}

/** The bwrap command that runs `spec.argv` sandboxed. Order matters: a later mount wins. */
export function sandboxArgv(bwrap: string, spec: SandboxSpec): Sandboxed {
	const dir = realOrUndefined(spec.dir) ?? spec.dir;
	const fds: number[] = [];
	const args = [bwrap, "--unshare-all", ...(spec.network ? ["--share-net"] : [])];
	args.push("--die-with-parent", "--cap-drop", "ALL");
	if (spec.terminal === "new") args.push("--new-session");
	const filter = filterFd();
	if (filter !== undefined) {
		args.push("--seccomp", String(3 + fds.length));
		fds.push(filter);
	}
	if (spec.statusFile !== undefined) {
		args.push("--json-status-fd", String(3 + fds.length));
		fds.push(openSync(spec.statusFile, "w", 0o600));
	}
	args.push(...systemArgs(fds));
	if (spec.home.host) args.push("--bind", spec.home.host, spec.home.inside);
	else args.push("--tmpfs", spec.home.inside);
	for (const tool of spec.tools) {
		const real = realOrUndefined(tool);
		if (!real) continue;
		args.push("--ro-bind", real, real);
		// A folder that happens to hold a project: its .roundtable/ is never shown.
		if (existsSync(join(real, ".roundtable")))
			args.push("--tmpfs", join(real, ".roundtable"), "--remount-ro", join(real, ".roundtable"));
	}
	const where = spec.dirInside ?? dir;
	args.push("--bind", dir, where);
	for (const p of spec.readOnly ?? []) {
		const real = realOrUndefined(p);
		// A dependency folder that links out of the run's directory (a shared store) is shown where it leads.
		if (!real) continue;
		if (under(real, dir)) args.push("--ro-bind", real, inside(spec, dir, real));
		else args.push("--ro-bind", real, real);
	}
	for (const f of spec.files ?? []) args.push("--ro-bind", f.host, f.inside);
	args.push("--remount-ro", "/", "--chdir", spec.cwd ?? where, "--", ...spec.argv);
	return {
		argv: args,
		fds,
		close: () => closeAll(fds),
	};
}

/** Where bwrap is on PATH, or undefined. */
function findBwrap(path: string | undefined): string | undefined {
	for (const d of (path ?? "").split(":")) {
		if (d && existsSync(join(d, "bwrap"))) return join(d, "bwrap");
	}
	return undefined;
}

/** Whether the sandbox works here: bwrap is found and runs a command with the flags a real run uses. */
export function probeSandbox(path = process.env.PATH): SandboxChoice {
	if (process.platform !== "linux") return { kind: "none", reason: `not Linux (${process.platform})` };
	const bwrap = findBwrap(`${path ?? ""}:/usr/bin:/bin`);
	if (!bwrap) return { kind: "none", reason: "bubblewrap (bwrap) is not installed" };
	const dir = mkdtempSync(join(tmpdir(), "roundtable-probe-"));
	const run = sandboxArgv(bwrap, {
		argv: ["/bin/sh", "-c", "touch probe"],
		dir,
		tools: [],
		home: { inside: homeInside() },
		network: false,
		terminal: "new",
	});
	try {
		const r = spawnSync(run.argv[0] as string, run.argv.slice(1), {
			encoding: "utf8",
			timeout: 10_000,
			stdio: ["ignore", "pipe", "pipe", ...run.fds],
		});
		if (r.status === 0 && existsSync(join(dir, "probe"))) {
			return { kind: "bwrap", bwrap, reason: `${bwrap} works here` };
		}
		const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n")[0]?.slice(0, 200);
		return { kind: "none", reason: `bubblewrap is unusable here: ${why}` };
	} finally {
		run.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * The private $HOME's path inside: the operator's own path (tools remember it), or /home/sandbox
 * when that is / or a system folder the sandbox shows, or under /tmp (the sandbox's TMPDIR: Codex
 * refuses to make its helpers in a CODEX_HOME below TMPDIR, and then fails every edit).
 */
export function homeInside(home = homedir()): string {
	const real = realOrUndefined(home) ?? home;
	const taken = ["/etc", "/dev", "/proc", ...SYSTEM_DIRS].some((d) => under(real, d));
	return taken || !isAbsolute(real) || real === "/" || under(real, "/tmp") ? "/home/sandbox" : real;
}

let probed: SandboxChoice | undefined;

/** probeSandbox, once per process: `onFirst` hears the choice the first time (to log it once). */
export function sandboxHere(onFirst?: (c: SandboxChoice) => void): SandboxChoice {
	if (!probed) {
		probed = probeSandbox();
		onFirst?.(probed);
	}
	return probed;
}
