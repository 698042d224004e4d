// Where the live owner is: .roundtable/owner.json (pid, real HTTP URL, socket path, start time),
// written atomically once the owner listens and removed when it stops. Clients read it to find the
// owner, so a port the OS picked (`:0`) works; a file whose process is gone is stale and ignored.

import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fsutil.ts";
import { LAYOUT } from "../layout.ts";
import { isAlive } from "../os/process.ts";

export const OWNER_LOCK_PATH = LAYOUT.ownerLock;
const OWNER_FILE_PATH = LAYOUT.ownerFile;

export interface OwnerInfo {
	pid: number;
	/** Null for `mcp serve`, which serves the socket alone. */
	http_url: string | null;
	socket_path: string | null;
	/** How often its Chair ticks the active runs; null when it runs no Chair (`mcp serve`). */
	chair_interval_ms: number | null;
	/** Where a process that commits says so (src/os/wake.ts): a UDP port on 127.0.0.1. */
	wake_port?: number;
	started_at: string;
	version: string;
}

export function publishOwner(root: string, info: OwnerInfo): void {
	writeFileAtomic(join(root, OWNER_FILE_PATH), `${JSON.stringify(info, null, 2)}\n`, 0o600);
}

/** Removes the file if it is still ours (a later owner may have replaced it). */
export function withdrawOwner(root: string, pid = process.pid): void {
	const path = join(root, OWNER_FILE_PATH);
	if (readOwnerFile(path)?.pid === pid) rmSync(path, { force: true });
}

function readOwnerFile(path: string): OwnerInfo | undefined {
	try {
		const info = JSON.parse(readFileSync(path, "utf8")) as OwnerInfo;
		return Number.isSafeInteger(info.pid) ? info : undefined;
	} catch {
		return undefined;
	}
}

/** The live owner of the project at `root`, or undefined when none runs (or its file is stale). */
export function findOwner(root: string): OwnerInfo | undefined {
	const info = readOwnerFile(join(root, OWNER_FILE_PATH));
	return info && isAlive(info.pid) ? info : undefined;
}
