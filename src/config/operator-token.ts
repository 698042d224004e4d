// The operator's bearer token for HTTP: `.roundtable/operator.token`, 0600, made by `init` (and by
// an owner starting in a project initialized before it existed). The CLI, the stdio bridge and the
// dashboard read it by themselves; ROUNDTABLE_MCP_TOKEN, when set, is the operator's token too (for
// a remote owner). It is never an argument, a config value or a log line.

import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { LAYOUT } from "../layout.ts";

/** The token in the file, if it exists and holds one. */
export function readOperatorToken(root: string): string | undefined {
	try {
		const token = readFileSync(join(root, LAYOUT.operatorToken), "utf8").trim();
		return token === "" ? undefined : token;
	} catch {
		return undefined;
	}
}

/** The token, made now (32 random bytes, base64url, mode 0600) when there is none. */
export function ensureOperatorToken(root: string): string {
	const path = join(root, LAYOUT.operatorToken);
	const existing = readOperatorToken(root);
	if (existing !== undefined) {
		chmodSync(path, 0o600);
		return existing;
	}
	const token = randomBytes(32).toString("base64url");
	let fd: number;
	try {
		// O_EXCL: of two processes making it at once, one writes and the other reads what it wrote.
		fd = openSync(path, "wx", 0o600);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
		return readOperatorToken(root) ?? ensureAfterEmpty(path, token);
	}
	try {
		writeSync(fd, `${token}\n`);
	} finally {
		closeSync(fd);
	}
	return token;
}

/** An empty file left by a crash between create and write: fill it. */
function ensureAfterEmpty(path: string, token: string): string {
	const fd = openSync(path, "w", 0o600);
	try {
		writeSync(fd, `${token}\n`);
	} finally {
		closeSync(fd);
	}
	chmodSync(path, 0o600);
	return token;
}

/** Every token that makes an HTTP caller the operator: the environment's, and the file's. */
export function operatorTokens(root: string): string[] {
	const env = process.env.ROUNDTABLE_MCP_TOKEN;
	return [env, readOperatorToken(root)].filter((t): t is string => t !== undefined && t !== "");
}
