// A runtime is one project opened: its root, its config and its store. Opening one has no side
// effects beyond creating and migrating the database: no agent sync, no Chair, no listeners.
import { realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Config } from "./config/defaults.ts";
import { loadConfig } from "./config/load.ts";
import { WakeSender } from "./os/wake.ts";
import { findOwner } from "./owner/presence.ts";
import type { PolicyError } from "./policy/errors.ts";
import type { Policy } from "./policy/types.ts";
import { openStore, type Store } from "./store/index.ts";

export interface Runtime {
	/** Absolute, symlinks resolved. */
	root: string;
	/** The config in effect; the owner's reloader replaces it when config.yaml changes. */
	config: Config;
	/**
	 * The policy the owner holds: its reloader loads it at start and replaces it only with a valid
	 * edit; a PolicyError while no valid policy was ever loaded. Unset in a runtime without a
	 * reloader, where each use reads the file (`policyOf` in src/gates/check.ts).
	 */
	policy?: Policy | PolicyError;
	store: Store;
	/**
	 * Headless sessions, run by the owner (session.start, session.stop): set by the owner, which wires
	 * in the launcher; unset in any other process, where starting one is refused.
	 */
	sessions?: HeadlessSessions;
	close(): void;
}

export interface HeadlessSessions {
	/** Mints the session and starts its agent; resolves once the session exists, with its id. */
	start(o: {
		agent: string;
		binding: { task_id?: string; proposal_id?: string; run_id?: string };
		adapter?: string;
		prompt?: string;
	}): Promise<string>;
	/** Stops one this owner runs (SIGTERM, SIGKILL 10 s later); false when it runs none of that id. */
	stop(sessionId: string): boolean;
}

export function databasePath(root: string, config: Config): string {
	const p = config.storage.sqlite_path;
	return isAbsolute(p) ? p : join(root, p);
}

export function openRuntime(rootDir: string): Runtime {
	const root = realpathSync(rootDir);
	const config = loadConfig(root);
	const store = openStore(databasePath(root, config));
	// Each commit is told to the project's owner, if another process owns it (src/os/wake.ts).
	const wake = new WakeSender(ownerWakePort(root));
	const stop = store.onCommit(() => wake.send());
	return {
		root,
		config,
		store,
		close: () => {
			stop();
			wake.close();
			store.close();
		},
	};
}

/** How often a process looks again at where the owner listens for wakes (it may have restarted). */
const OWNER_RECHECK_MS = 1000;

/** The owner's wake port, looked up at most once a second; undefined while this process owns it or none does. */
function ownerWakePort(root: string): () => number | undefined {
	let port: number | undefined;
	let checked = Number.NEGATIVE_INFINITY;
	return () => {
		const now = performance.now();
		if (now - checked >= OWNER_RECHECK_MS) {
			checked = now;
			const owner = findOwner(root);
			port = owner && owner.pid !== process.pid ? owner.wake_port : undefined;
		}
		return port;
	};
}
