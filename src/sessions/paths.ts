// Where a launched session's files live: `.roundtable/sessions/<id>/` (0700), holding its MCP
// socket and its per-launch client configuration. A socket path longer than the kernel takes
// (sun_path: 108 bytes with its NUL) moves to a private 0700 folder of its own under a short name.

import { chmodSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "../domain/canonical.ts";
import { LAYOUT } from "../layout.ts";

export const SESSIONS_DIR = LAYOUT.sessions;
const MAX_SOCKET_PATH_BYTES = 107;

export const sessionDir = (root: string, id: string) => join(root, SESSIONS_DIR, id);

/** A headless session's transcript: what its agent wrote, kept after its folder is gone. */
export const transcriptPath = (root: string, sessionId: string) =>
	join(root, LAYOUT.transcripts, `${sessionId}.log`);

/** The private folder for sockets whose usual path is too long: per user, 0700. */
export function runtimeDir(): string {
	const base = process.env.XDG_RUNTIME_DIR || tmpdir();
	return join(base, `roundtable-${process.getuid?.() ?? "user"}`);
}

/**
 * The session's socket: in its folder, or — when that path is too long — in a folder of its own
 * (0700, made by whoever serves it) under the runtime folder, never beside another session's: a
 * sandbox is shown its own socket file and nothing else, and the proxy socket sits in the same place.
 */
export function sessionSocketPath(root: string, id: string): string {
	const usual = join(sessionDir(root, id), "mcp.sock");
	if (Buffer.byteLength(usual) <= MAX_SOCKET_PATH_BYTES - "proxy".length) return usual;
	return join(runtimeDir(), sha256(`${root}\0${id}`).slice(0, 24), "mcp.sock");
}

/** Makes `dir` (and its parents) and leaves it 0700. */
export function privateDir(dir: string): void {
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	chmodSync(dir, 0o700);
}
