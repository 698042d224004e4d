// Where a launched session's files live: `.roundtable/sessions/<id>/` (0700), holding its MCP
// socket and its per-launch client configuration. A socket path longer than the kernel takes
// (sun_path: 108 bytes with its NUL) moves to a private 0700 runtime folder under a short name.

import { chmodSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "../domain/canonical.ts";
import { LAYOUT } from "../layout.ts";

export const SESSIONS_DIR = LAYOUT.sessions;
const MAX_SOCKET_PATH_BYTES = 107;

export const sessionDir = (root: string, id: string) => join(root, SESSIONS_DIR, id);

/** The private folder for sockets whose usual path is too long: per user, 0700. */
export function runtimeDir(): string {
	const base = process.env.XDG_RUNTIME_DIR || tmpdir();
	return join(base, `roundtable-${process.getuid?.() ?? "user"}`);
}

export function sessionSocketPath(root: string, id: string): string {
	const usual = join(sessionDir(root, id), "mcp.sock");
	if (Buffer.byteLength(usual) <= MAX_SOCKET_PATH_BYTES) return usual;
	return join(runtimeDir(), `${sha256(`${root}\0${id}`).slice(0, 24)}.sock`);
}

/** Makes `dir` (and its parents) and leaves it 0700. */
export function privateDir(dir: string): void {
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	chmodSync(dir, 0o700);
}
