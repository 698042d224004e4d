// The sandbox a command runs in: bubblewrap on Linux. The whole filesystem read-only, one writable
// directory (with chosen subpaths frozen or hidden inside it), a private /tmp and $HOME, its own
// pid, ipc, uts and (unless network is on) network namespaces, no capabilities, and the tree dying
// with its parent. Used by test.run; written to be reused for anything else that runs foreign code.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";

export interface SandboxSpec {
	argv: string[];
	/** The one directory the command may write (bound read-write at its own path). */
	writable: string;
	/** Paths inside `writable` bound read-only (a dependency folder, `.git`); missing ones are skipped. */
	readOnly?: string[];
	/** Paths inside `writable` hidden behind an empty, read-only directory (`.roundtable`). */
	hidden?: string[];
	network: boolean;
	/** The caller's $HOME: replaced by an empty tmpfs, except the toolchain folders `path` runs from. */
	home?: string;
	/** The command's PATH: a folder under $HOME it names stays visible (read-only), so pyenv, nvm, ~/.bun still run. */
	path?: string;
	/** Where the command starts (default: `writable`). */
	cwd?: string;
	/** Paths shown read-only at their own place though /tmp or $HOME was emptied (a project under /tmp). */
	visible?: string[];
	/**
	 * Paths anywhere to hide before `writable` is bound (so it shows through one): a folder becomes
	 * empty and read-only, a file or socket becomes /dev/null. Missing ones are skipped.
	 */
	hide?: string[];
	/** More paths the command may write, each at its own place (an agent CLI's login folder, a socket). */
	alsoWritable?: string[];
}

export type SandboxChoice =
	| { kind: "bwrap"; bwrap: string; reason: string }
	| { kind: "none"; reason: string };

const under = (child: string, parent: string) => child === parent || child.startsWith(parent + sep);

/**
 * What to bind read-only for toolchains under a folder the sandbox empties ($HOME, /tmp): the top
 * folder under it of each PATH entry there (~/.bun, ~/.pyenv, or a checkout's node_modules/.bin
 * under /tmp, whose links lead elsewhere in that checkout).
 */
function toolchainsUnder(emptied: string, path: string | undefined): string[] {
	const out = new Set<string>();
	for (const entry of (path ?? "").split(":")) {
		const realEntry = entry === "" ? undefined : real(entry);
		if (!realEntry || !under(realEntry, emptied) || realEntry === emptied) continue;
		const top = join(emptied, realEntry.slice(emptied.length + 1).split(sep)[0] as string);
		if (existsSync(top)) out.add(top);
	}
	return [...out];
}

/** A path as the kernel resolves it (bwrap binds real paths; a symlinked folder is bound at its target). */
const real = (p: string) => {
	try {
		return realpathSync(p);
	} catch {
		return undefined;
	}
};

/** The bwrap argv that runs `spec.argv` sandboxed. Order matters: a later mount wins over an earlier one. */
export function bwrapArgv(bwrap: string, spec: SandboxSpec): string[] {
	const writable = real(spec.writable) ?? spec.writable;
	const args = [bwrap, "--unshare-all", ...(spec.network ? ["--share-net"] : [])];
	args.push(
		"--die-with-parent",
		"--cap-drop",
		"ALL",
		"--ro-bind",
		"/",
		"/",
		"--dev",
		"/dev",
		"--proc",
		"/proc",
	);
	const tmp = real("/tmp") ?? "/tmp";
	args.push("--tmpfs", tmp);
	for (const dir of toolchainsUnder(tmp, spec.path)) args.push("--ro-bind", dir, dir);
	const home = spec.home && real(spec.home);
	// The writable dir may be under $HOME or /tmp: it is bound after the tmpfs, so it shows through.
	if (home && home !== "/" && !under(home, writable)) {
		args.push("--tmpfs", home);
		for (const dir of toolchainsUnder(home, spec.path)) args.push("--ro-bind", dir, dir);
	}
	for (const p of spec.visible ?? []) {
		const target = real(p);
		if (target) args.push("--ro-bind", target, target);
	}
	const remount: string[] = [];
	for (const p of spec.hide ?? []) {
		const target = real(p);
		if (!target) continue;
		if (statSync(target).isDirectory()) {
			// Emptied now, read-only once `writable` (which may lie inside) is bound.
			args.push("--tmpfs", target);
			remount.push(target);
		} else args.push("--ro-bind", "/dev/null", target);
	}
	args.push("--bind", writable, writable);
	for (const target of remount) args.push("--remount-ro", target);
	for (const p of spec.alsoWritable ?? []) {
		const target = real(p);
		if (target) args.push("--bind", target, target);
	}
	for (const p of spec.readOnly ?? []) {
		const target = real(p);
		// A symlink out of the writable dir (a shared dependency store) stays readable where it leads.
		if (target) args.push("--ro-bind", target, target);
	}
	for (const p of spec.hidden ?? []) {
		const target = real(p);
		if (target && under(target, writable)) args.push("--tmpfs", target, "--remount-ro", target);
	}
	args.push("--chdir", (spec.cwd && real(spec.cwd)) ?? writable, "--", ...spec.argv);
	return args;
}

/** Where bwrap is on PATH, or undefined. */
function findBwrap(path: string | undefined): string | undefined {
	for (const dir of (path ?? "").split(":")) {
		if (dir && existsSync(join(dir, "bwrap"))) return join(dir, "bwrap");
	}
	return undefined;
}

/** Whether the sandbox works here: bwrap is found and runs `true` with the flags a real run uses. */
export function probeSandbox(path = process.env.PATH): SandboxChoice {
	if (process.platform !== "linux") return { kind: "none", reason: `not Linux (${process.platform})` };
	const bwrap = findBwrap(`${path ?? ""}:/usr/bin:/bin`);
	if (!bwrap) return { kind: "none", reason: "bubblewrap (bwrap) is not installed" };
	const dir = mkdtempSync(join(tmpdir(), "roundtable-probe-"));
	try {
		const argv = bwrapArgv(bwrap, {
			argv: ["/bin/sh", "-c", "touch probe"],
			writable: dir,
			network: false,
			home: process.env.HOME,
			path,
		});
		const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: "utf8", timeout: 10_000 });
		if (r.status === 0 && existsSync(join(dir, "probe"))) {
			return { kind: "bwrap", bwrap, reason: `${bwrap} works here` };
		}
		const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n")[0]?.slice(0, 200);
		return { kind: "none", reason: `bubblewrap is unusable here: ${why}` };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
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
