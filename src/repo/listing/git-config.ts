// The three settings a listing needs from git's configuration: core.excludesFile, core.ignoreCase and
// the object format (the width of the index's hashes). Git itself answers (includes, conditional
// includes and quoting are its business), once; the answer is kept until one of the files it came
// from, or one of the usual places a new one would appear, changes.
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { GitRepo } from "./git-dir.ts";

export interface GitSettings {
	/** The user's ignore file (core.excludesFile, or git's default place for it). */
	excludesFile: string;
	ignoreCase: boolean;
	hashBytes: 20 | 32;
}

interface Known {
	settings: GitSettings;
	/** Each file the answer depends on, with its stamp when it was read ("-": missing). */
	stamps: Map<string, string>;
}

const MAX_KNOWN = 32;
const known = new Map<string, Known>();

function stamp(path: string): string {
	const s = statSync(path, { throwIfNoEntry: false, bigint: true });
	return s === undefined ? "-" : `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

const home = () => process.env.HOME ?? homedir();
const xdg = () => process.env.XDG_CONFIG_HOME || join(home(), ".config");

/** Where git looks for configuration even when nothing is there yet. */
function usualPlaces(repo: GitRepo): string[] {
	const env = process.env;
	return [
		env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig",
		...(env.GIT_CONFIG_GLOBAL
			? [env.GIT_CONFIG_GLOBAL]
			: [join(home(), ".gitconfig"), join(xdg(), "git", "config")]),
		join(repo.commonDir, "config"),
		join(repo.gitDir, "config.worktree"),
	];
}

const isTrue = (v: string | undefined) => v !== undefined && /^(true|yes|on|1|)$/i.test(v.trim());

/** git config's own path expansion for the one path setting read here. */
function expandPath(value: string, top: string): string {
	const path = value.startsWith("~/") ? join(home(), value.slice(2)) : value;
	return isAbsolute(path) ? path : resolve(top, path);
}

/** `git config --list --show-origin -z`: origin NUL key LF value NUL, the last value of a key wins. */
async function askGit(
	repo: GitRepo,
): Promise<{ values: Map<string, string>; origins: string[] } | undefined> {
	let proc: ReturnType<typeof Bun.spawn>;
	try {
		proc = Bun.spawn(["git", "config", "--list", "--show-origin", "-z"], {
			cwd: repo.top,
			stdin: "ignore",
			stdout: "pipe",
			stderr: "ignore",
			env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
		});
	} catch {
		return undefined; // no git on this machine: git's defaults
	}
	const [out, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), proc.exited]);
	if (code !== 0) return undefined;
	const values = new Map<string, string>();
	const origins: string[] = [];
	const fields = out.split("\0");
	for (let i = 0; i + 1 < fields.length; i += 2) {
		const origin = fields[i] as string;
		if (origin.startsWith("file:")) origins.push(resolve(repo.top, origin.slice(5)));
		const entry = fields[i + 1] as string;
		const lf = entry.indexOf("\n");
		values.set(lf === -1 ? entry : entry.slice(0, lf), lf === -1 ? "" : entry.slice(lf + 1));
	}
	return { values, origins };
}

export async function gitSettings(repo: GitRepo): Promise<GitSettings> {
	const key = `${repo.top}\0${repo.gitDir}`;
	const cached = known.get(key);
	if (cached && [...cached.stamps].every(([path, was]) => stamp(path) === was)) return cached.settings;
	const places = usualPlaces(repo);
	const before = places.map(stamp);
	const answer = await askGit(repo);
	const values = answer?.values ?? new Map<string, string>();
	const excludes = values.get("core.excludesfile");
	const settings: GitSettings = {
		excludesFile: excludes ? expandPath(excludes, repo.top) : join(xdg(), "git", "ignore"),
		ignoreCase: isTrue(values.get("core.ignorecase")),
		hashBytes: values.get("extensions.objectformat")?.toLowerCase() === "sha256" ? 32 : 20,
	};
	// Stamps taken before git read the files: a change while it ran is seen next time.
	const stamps = new Map(places.map((p, i) => [p, before[i] as string]));
	for (const origin of answer?.origins ?? []) if (!stamps.has(origin)) stamps.set(origin, stamp(origin));
	known.delete(key);
	known.set(key, { settings, stamps });
	if (known.size > MAX_KNOWN) known.delete(known.keys().next().value as string);
	return settings;
}
