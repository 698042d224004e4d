// Savepoints: a part of a transaction that fails alone. A batch that handles many records in one
// transaction (the Chair's review requests) runs each record in a savepoint, so a record that fails
// leaves none of its rows behind while the others still commit together.
import type { Conn } from "./db.ts";

/**
 * The transaction itself ended under a record (SQLITE_FULL, IOERR, …: SQLite rolled it all back).
 * No later record may run: outside a transaction each statement would commit on its own.
 */
export class TransactionLost extends Error {
	constructor(cause: unknown) {
		super(`the transaction ended under a record: ${String((cause as Error)?.message ?? cause)}`, { cause });
		this.name = "TransactionLost";
	}
}

export const savepointQueries = (c: Conn) => ({
	/** Runs `fn`: all of its writes stay, or (when it throws) none, and the transaction goes on. */
	async atomic<T>(fn: () => Promise<T>): Promise<T> {
		c.run("SAVEPOINT record");
		try {
			const result = await fn();
			c.run("RELEASE record");
			return result;
		} catch (err) {
			try {
				c.run("ROLLBACK TO record");
				c.run("RELEASE record");
			} catch {
				// No savepoint to go back to: SQLite already rolled the whole transaction back.
				throw new TransactionLost(err);
			}
			throw err;
		}
	},
});
