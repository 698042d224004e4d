import type { Conn } from "./db.ts";

export type StoredKey =
	| { state: "done"; args_hash: string; result: unknown }
	/** Held by the call running in process `pid`. */
	| { state: "running"; args_hash: string; pid: number };

export const idempotencyQueries = (c: Conn) => ({
	/** What (tool, key) holds, unless it has expired: the first result, or the call still running. */
	async get(tool: string, key: string, now: string): Promise<StoredKey | undefined> {
		const row = c.get<{ args_hash: string; result: string; state: "done" | "running"; pid: number | null }>(
			"SELECT args_hash, result, state, pid FROM idempotency_keys WHERE tool = ? AND key = ? AND expires_at > ?",
			tool,
			key,
			now,
		);
		if (!row) return undefined;
		return row.state === "running"
			? { state: "running", args_hash: row.args_hash, pid: row.pid as number }
			: { state: "done", args_hash: row.args_hash, result: JSON.parse(row.result) };
	},

	/** (tool, key) is held by this process's call from now until `put` or `release`. */
	async hold(tool: string, key: string, argsHash: string, now: string, expiresAt: string) {
		upsert(c, tool, key, argsHash, null, process.pid, now, expiresAt);
	},

	/** The first result, kept until `expiresAt`. */
	async put(tool: string, key: string, argsHash: string, result: unknown, now: string, expiresAt: string) {
		upsert(c, tool, key, argsHash, result, null, now, expiresAt);
		// Expired keys go a few at a time, so no call pays for a large sweep.
		c.run(
			`DELETE FROM idempotency_keys WHERE (tool, key) IN
			 (SELECT tool, key FROM idempotency_keys WHERE expires_at <= ? LIMIT 20)`,
			now,
		);
	},

	/** A held key whose call failed is free again (a retry may run it). */
	async release(tool: string, key: string) {
		c.run(
			"DELETE FROM idempotency_keys WHERE tool = ? AND key = ? AND state = 'running' AND pid = ?",
			tool,
			key,
			process.pid,
		);
	},
});

function upsert(
	c: Conn,
	tool: string,
	key: string,
	argsHash: string,
	result: unknown,
	pid: number | null,
	now: string,
	expiresAt: string,
) {
	c.run(
		`INSERT INTO idempotency_keys (tool, key, args_hash, result, state, pid, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT (tool, key) DO UPDATE SET args_hash = excluded.args_hash, result = excluded.result,
		 state = excluded.state, pid = excluded.pid, created_at = excluded.created_at, expires_at = excluded.expires_at`,
		tool,
		key,
		argsHash,
		JSON.stringify(result),
		pid === null ? "done" : "running",
		pid,
		now,
		expiresAt,
	);
}
