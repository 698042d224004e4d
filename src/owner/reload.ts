// Hot reload in the owner: `.roundtable/config.yaml` and `POLICIES.ROUNDTABLE.md` are watched, and
// a new version is validated before it replaces the running one (`rt.config`, `rt.policy`). A bad
// edit changes nothing and is logged; each applied revision is a `config.reloaded` event.
//
// Watching is a poll of each file's stat (inode, size, mtime, ctime in nanoseconds) every 500 ms,
// not fs.watch: editors save by writing a temp file and renaming it over the original, which ends a
// watch on the file itself; a watch on the directory sees every SQLite -wal/-shm write in
// .roundtable/ and is unreliable on network and container mounts; a stat poll sees an in-place
// write, a rename over, a delete and a re-create alike, for two stat calls per interval. File times
// are coarse (a kernel tick; a second or two on some filesystems), so two same-size writes can share
// a stat: while a file was modified in the last RACY_MS, its content hash is part of what is
// compared. Debounce: a change is read only once it is the same on two polls in a row (quiet for an
// interval), so a save in several writes is read once, whole. Content identical to what runs (a
// touch, an edit undone) is no revision.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/defaults.ts";
import { CONFIG_PATH, ConfigError, parseConfig } from "../config/load.ts";
import { systemContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { sha256 } from "../domain/canonical.ts";
import { isPlainObject } from "../domain/yaml-source.ts";
import { defaultPolicy, POLICY_PATH, PolicyError, parsePolicy } from "../policy/index.ts";
import type { Policy } from "../policy/types.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";

/**
 * Config sections the owner binds when it starts (the database, the listeners and their limits):
 * a change to them is logged as needing a restart and the running values stay.
 */
const RESTART_SECTIONS = ["storage", "mcp", "limits"] as const;

export interface ReloaderOptions {
	/** Where a rejected edit, a restart notice and each applied revision are reported (stderr). */
	log: (line: string) => void;
	/** How often each file's stat is polled (default 500 ms). */
	intervalMs?: number;
}

export interface Reloader {
	/** Polls once now (tests; the timer does the same); nothing once stopped. */
	poll(): Promise<void>;
	/** Resolves once the first load is done: `rt.policy` is set, and a config changed since open applied. */
	ready: Promise<void>;
	/** Stops polling and waits for a reload in progress. */
	stop(): Promise<void>;
}

interface Watched {
	file: string;
	path: string;
	/** The stat signature last acted on; "" when the file is missing. */
	seen: string;
	/** A new signature waiting for the next poll to confirm the file stopped changing. */
	pending: string | undefined;
	/** sha256 of the content running; null: there is no file (policy defaults). */
	sha: string | null | undefined;
	/** false during the load at start, which records no revision. */
	started: boolean;
	apply(text: string | undefined, sha: string | null): Promise<void>;
}

/** How long after a modification a file's stat alone is not trusted to show the next one. */
const RACY_MS = 2500;

/** What a poll compares: the stat, and while the file is fresh its content hash too. */
function signature(path: string): string {
	try {
		const s = statSync(path, { bigint: true });
		const stat = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
		const fresh = Date.now() - Number(s.mtimeNs / 1_000_000n) < RACY_MS;
		return fresh ? `${stat}:${sha256(readFileSync(path, "utf8"))}` : stat;
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
		throw err;
	}
}

function readText(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw err;
	}
}

/** Dotted keys whose values differ, down to the leaves (lists compare whole). */
function changedLeaves(a: unknown, b: unknown, prefix = ""): string[] {
	if (isPlainObject(a) && isPlainObject(b)) {
		const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
		return keys.flatMap((k) => changedLeaves(a[k], b[k], prefix ? `${prefix}.${k}` : k));
	}
	return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

/** The top-level keys whose values differ. */
const changedTopLevel = (a: object, b: object) => [
	...new Set(changedLeaves(a, b).map((k) => k.split(".")[0] as string)),
];

const needsRestart = (key: string) => RESTART_SECTIONS.some((s) => key === s || key.startsWith(`${s}.`));

/**
 * Starts watching. The policy is loaded now into `rt.policy` (a PolicyError when it does not load:
 * the policy gate then fails with its message until a valid version is saved); the config running is
 * the one `rt` opened with, and a file that changed since is reloaded at the first poll.
 */
export function startReloader(rt: Runtime, options: ReloaderOptions): Reloader {
	const { log } = options;
	const intervalMs = options.intervalMs ?? 500;
	/** The last config the file gave, restart-only sections included (what changed_keys compares to). */
	let fileConfig: Config = rt.config;

	const record = async (payload: Args<"config.record_reload">) => {
		try {
			await call(rt, "config.record_reload", payload, systemContext());
		} catch (err) {
			log(`roundtable: could not record the ${payload.file} reload: ${(err as Error).message}`);
		}
	};

	const config: Watched = {
		file: CONFIG_PATH,
		path: join(rt.root, CONFIG_PATH),
		seen: "",
		pending: undefined,
		sha: undefined,
		started: false,
		async apply(text, sha) {
			const keep = (why: string) => log(`roundtable: config not reloaded, the running config stays: ${why}`);
			if (text === undefined) return keep(`${CONFIG_PATH} is gone`);
			let next: Config;
			try {
				next = parseConfig(text, CONFIG_PATH);
			} catch (err) {
				if (!(err instanceof ConfigError)) throw err;
				return keep(err.message);
			}
			const changed = changedTopLevel(fileConfig, next);
			const restart = changedLeaves(rt.config, next).filter(needsRestart);
			const previous = this.sha ?? null;
			this.sha = sha;
			fileConfig = next;
			// At start, a file that still says what the runtime opened with is no revision.
			if (!this.started && changed.length === 0) return;
			const applied = { ...next };
			for (const section of RESTART_SECTIONS) Object.assign(applied, { [section]: rt.config[section] });
			rt.config = applied;
			log(
				`roundtable: reloaded ${CONFIG_PATH} (${(sha as string).slice(0, 12)}): ${changed.length > 0 ? `changed ${changed.join(", ")}` : "no setting changed"}`,
			);
			if (restart.length > 0) {
				log(
					`roundtable: ${CONFIG_PATH}: ${restart.join(", ")} changed; that needs a restart (the running value stays until then)`,
				);
			}
			await record({
				file: CONFIG_PATH,
				sha256: sha,
				previous_sha256: previous,
				changed_keys: changed,
				needs_restart: restart,
			});
			try {
				const report = await call(rt, "config.sync_agents", {}, systemContext());
				const parts = Object.entries(report).filter(([, ids]) => ids.length > 0);
				if (parts.length > 0)
					log(`roundtable: agents synced: ${parts.map(([k, ids]) => `${k} ${ids.join(" ")}`).join("; ")}`);
			} catch (err) {
				log(`roundtable: agents not synced after the config reload: ${(err as Error).message}`);
			}
		},
	};

	const policy: Watched = {
		file: POLICY_PATH,
		path: join(rt.root, POLICY_PATH),
		seen: "",
		pending: undefined,
		sha: undefined,
		started: false,
		async apply(text, sha) {
			let next: Policy;
			try {
				next = text === undefined ? defaultPolicy() : parsePolicy(text, POLICY_PATH);
			} catch (err) {
				if (!(err instanceof PolicyError)) throw err;
				if (rt.policy === undefined || rt.policy instanceof PolicyError) {
					// No valid policy to keep: the gate reports the file's current problem.
					rt.policy = err;
					this.sha = sha;
					log(`roundtable: the policy does not load, so the policy gate fails: ${err.message}`);
				} else {
					log(`roundtable: policy not reloaded, the running policy stays: ${err.message}`);
				}
				return;
			}
			const previous = this.sha ?? null;
			const changed =
				rt.policy === undefined || rt.policy instanceof PolicyError ? [] : changedTopLevel(rt.policy, next);
			const wasBroken = rt.policy instanceof PolicyError;
			rt.policy = next;
			this.sha = sha;
			if (!this.started) return;
			log(
				`roundtable: reloaded ${POLICY_PATH} (${sha === null ? "gone: the defaults apply" : sha.slice(0, 12)})${wasBroken ? ": it loads again" : ""}`,
			);
			await record({ file: POLICY_PATH, sha256: sha, previous_sha256: previous, changed_keys: changed });
		},
	};

	const watched = [config, policy];

	/** Reads the file and applies it unless it is what runs. */
	const load = async (w: Watched) => {
		let text: string | undefined;
		try {
			text = readText(w.path);
		} catch (err) {
			const why = `cannot read: ${(err as Error).message}`;
			if (w === policy && (rt.policy === undefined || rt.policy instanceof PolicyError)) {
				rt.policy = new PolicyError(POLICY_PATH, 0, why); // as loadPolicy reports it
			}
			log(`roundtable: ${w.file} not reloaded: ${why}`);
			return;
		}
		const sha = text === undefined ? null : sha256(text);
		if (sha === w.sha) return;
		await w.apply(text, sha);
	};

	const first = async (w: Watched) => {
		try {
			w.seen = signature(w.path);
			await load(w);
		} catch (err) {
			log(`roundtable: ${w.file} not loaded: ${(err as Error).message}`);
		}
		w.started = true;
	};
	const ready = Promise.all(watched.map(first)).then(() => undefined);

	let running: Promise<void> = ready;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let stopped = false;

	const pollOnce = async () => {
		for (const w of watched) {
			let sig: string;
			try {
				sig = signature(w.path);
			} catch (err) {
				log(`roundtable: cannot stat ${w.file}: ${(err as Error).message}`);
				continue;
			}
			if (sig === w.seen) {
				w.pending = undefined;
				continue;
			}
			if (sig !== w.pending) {
				w.pending = sig; // changed: wait for the next poll to see it settled
				continue;
			}
			w.seen = sig;
			w.pending = undefined;
			try {
				await load(w);
			} catch (err) {
				log(`roundtable: ${w.file} not reloaded: ${(err as Error).message}`);
			}
		}
	};

	const poll = () => {
		if (stopped) return running;
		running = running.then(pollOnce, pollOnce);
		return running;
	};

	const schedule = () => {
		if (stopped) return;
		timer = setTimeout(() => {
			poll().finally(schedule);
		}, intervalMs);
		timer.unref?.();
	};
	schedule();

	return {
		ready,
		poll,
		async stop() {
			stopped = true;
			clearTimeout(timer);
			await running.catch(() => undefined);
		},
	};
}
