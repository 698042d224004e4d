import type { Conn } from "./db.ts";

export interface StoredResult {
	args_hash: string;
	result: unknown;
}

export const idempotencyQueries = (c: Conn) => ({
	/** The stored first result for (tool, key), unless it has expired. */
	async get(tool: string, key: string, now: string): Promise<StoredResult | undefined> {
		const row = c.get<{ args_hash: string; result: string }>(
			"SELECT args_hash, result FROM idempotency_keys WHERE tool = ? AND key = ? AND expires_at > ?",
			tool,
			key,
			now,
		);
		return row && { args_hash: row.args_hash, result: JSON.parse(row.result) };
	},

	async put(tool: string, key: string, argsHash: string, result: unknown, now: string, expiresAt: string) {
		c.run(
			`INSERT INTO idempotency_keys (tool, key, args_hash, result, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
			 ON CONFLICT (tool, key) DO UPDATE SET args_hash = excluded.args_hash, result = excluded.result,
			 created_at = excluded.created_at, expires_at = excluded.expires_at`,
			tool,
			key,
			argsHash,
			JSON.stringify(result),
			now,
			expiresAt,
		);
		// Expired keys go a few at a time, so no call pays for a large sweep.
		c.run(
			`DELETE FROM idempotency_keys WHERE (tool, key) IN
			 (SELECT tool, key FROM idempotency_keys WHERE expires_at <= ? LIMIT 20)`,
			now,
		);
	},
});
