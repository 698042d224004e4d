// Which host folders a sandboxed command needs to run its tools: each PATH entry itself, and for each
// program it names (and each interpreter on a `#!` line) the package it belongs to — never a whole
// top folder under $HOME (~/.cargo holds credentials.toml beside bin/), never $HOME or /tmp, never a
// project's .roundtable/. What a toolchain needs beyond that is named in sandbox.expose.
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, sep } from "node:path";

/** Shown whole by the system part of the sandbox: nothing under them needs a bind of its own. */
export const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** How many entries of one PATH folder are followed for their links (a node_modules/.bin is tens). */
const MAX_LINKS_PER_ENTRY = 500;

export const under = (child: string, parent: string) =>
	child === parent || child.startsWith(parent === "/" ? "/" : parent + sep);

export const realOrUndefined = (p: string): string | undefined => {
	try {
		return realpathSync(p);
	} catch {
		return undefined;
	}
};

/**
 * The package folder a real file belongs to: for a file inside node_modules the package itself
 * (`…/node_modules/@scope/name`), else its own folder.
 */
export function packageOf(file: string): string {
	const cut = file.lastIndexOf(`${sep}node_modules${sep}`);
	if (cut === -1) return dirname(file);
	const rest = file.slice(cut + "/node_modules/".length).split(sep);
	const name = rest[0]?.startsWith("@") ? rest.slice(0, 2) : rest.slice(0, 1);
	return join(file.slice(0, cut), "node_modules", ...name);
}

/** How many packages one program's dependencies may bring in (a CLI bundles most of its own). */
const MAX_PACKAGES = 400;

/**
 * A package's dependencies (and optional ones: a CLI's platform binary), found as Node finds them:
 * in its own node_modules, then in each node_modules above it. Recursively, bounded.
 */
function dependenciesOf(pkg: string, out: Set<string>): void {
	const queue = [pkg];
	while (queue.length > 0 && out.size < MAX_PACKAGES) {
		const dir = queue.shift() as string;
		let manifest: { dependencies?: object; optionalDependencies?: object };
		try {
			manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
		} catch {
			continue;
		}
		for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
			for (let at = dir; ; at = dirname(at)) {
				const found = realOrUndefined(join(at, "node_modules", name));
				if (found) {
					if (!out.has(found)) {
						out.add(found);
						queue.push(found);
					}
					break;
				}
				if (at === dirname(at)) break;
			}
		}
	}
}

/** The interpreter a `#!` line names (`/usr/bin/env node` → node), or undefined. */
function interpreterOf(file: string): string | undefined {
	let fd: number | undefined;
	try {
		fd = openSync(file, "r");
		const head = Buffer.alloc(256);
		const n = readSync(fd, head, 0, 256, 0);
		const line = head.subarray(0, n).toString("utf8").split("\n")[0] as string;
		if (!line.startsWith("#!")) return undefined;
		const words = line.slice(2).trim().split(/\s+/);
		if (words[0]?.endsWith("/env")) return words.find((w, i) => i > 0 && !w.startsWith("-"));
		return words[0];
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

export interface ToolScope {
	/** The command's PATH. */
	path: string;
	/** The operator's home: never shown whole, nor any folder directly in it but a PATH entry. */
	home: string;
	/** Folders never shown, nor anything inside them (the project itself, which the sandbox copies). */
	never: string[];
}

/** Whether a folder may be shown read-only as a tool's home. */
function allowed(dir: string, s: ToolScope, pathEntries: Set<string>): boolean {
	if (dir.split(sep).filter(Boolean).length < 2) return false; // /, /tmp, /opt, /home
	if (SYSTEM_DIRS.some((d) => under(dir, d))) return false; // there already
	if (under(s.home, dir)) return false; // $HOME or above it
	if (dirname(dir) === s.home && !pathEntries.has(dir)) return false; // ~/.cargo, ~/.config
	if (dir.split(sep).includes(".roundtable")) return false;
	if (s.never.some((n) => under(dir, n) || under(n, dir))) return false;
	// /tmp/x, /var/tmp/x: a folder directly in a shared temporary folder is someone's project.
	if (/^\/(var\/)?tmp\/[^/]+$/.test(dir)) return false;
	return true;
}

/** The host folders (real paths) to show read-only so `programs` and everything on `path` run. */
export function toolFolders(programs: string[], s: ToolScope): string[] {
	const out = new Set<string>();
	const entries = s.path
		.split(":")
		.filter((e) => isAbsolute(e))
		.map(realOrUndefined)
		.filter((e): e is string => e !== undefined);
	const pathEntries = new Set(entries);
	const add = (dir: string | undefined) => {
		if (dir && allowed(dir, s, pathEntries)) out.add(dir);
	};
	for (const entry of entries) {
		// The system's own folders are shown whole already; their links lead within the system.
		if (SYSTEM_DIRS.some((d) => under(entry, d))) continue;
		add(entry);
		let names: string[] = [];
		try {
			names = readdirSync(entry).slice(0, MAX_LINKS_PER_ENTRY);
		} catch {
			continue;
		}
		for (const name of names) {
			const file = join(entry, name);
			if (!lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
			const target = realOrUndefined(file);
			if (target) add(packageOf(target));
		}
	}
	const seen = new Set<string>();
	const follow = (program: string | undefined, depth: number) => {
		if (!program || depth > 3) return;
		const found = program.includes("/") ? program : Bun.which(program, { PATH: s.path });
		const target = found && realOrUndefined(found);
		if (!found || !target || seen.has(target)) return;
		seen.add(target);
		// A program named by a path that is a link (node_modules/.bin/x): the link's folder too.
		if (program.includes("/")) add(realOrUndefined(dirname(found)));
		const pkg = packageOf(target);
		add(pkg);
		if (pkg !== dirname(target)) {
			const deps = new Set<string>();
			dependenciesOf(pkg, deps);
			for (const dep of deps) add(dep);
		}
		follow(interpreterOf(target), depth + 1);
	};
	for (const p of programs) follow(p, 0);
	return [...out].sort();
}
