// A runtime is one project opened: its root, its config and its store. Opening one has no side
// effects beyond creating and migrating the database: no agent sync, no Chair, no listeners.
import { realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Config } from "./config/defaults.ts";
import { loadConfig } from "./config/load.ts";
import { openStore, type Store } from "./store/index.ts";

export interface Runtime {
	/** Absolute, symlinks resolved. */
	root: string;
	config: Config;
	store: Store;
	close(): void;
}

export function databasePath(root: string, config: Config): string {
	const p = config.storage.sqlite_path;
	return isAbsolute(p) ? p : join(root, p);
}

export function openRuntime(rootDir: string): Runtime {
	const root = realpathSync(rootDir);
	const config = loadConfig(root);
	const store = openStore(databasePath(root, config));
	return { root, config, store, close: () => store.close() };
}
