// Opening the SQLite file: pragmas, then migrations. Safe when several processes open the same new
// database at once: the busy timeout is set first and each migration re-checks under the write lock.
import { Database, type SQLQueryBindings } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { MIGRATIONS } from "./migrations.ts";

export const BUSY_TIMEOUT_MS = 5000;

export function openDatabase(path: string): Database {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	const db = new Database(path, { create: true, strict: true });
	try {
		db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
		useWal(db);
		// FULL: a commit that returned survives power loss, which the audit trail promises.
		db.run("PRAGMA synchronous = FULL");
		db.run("PRAGMA foreign_keys = ON");
		// Every write call runs in a savepoint, whose undo pages SQLite keeps in memory only up to
		// 64 KiB and then in a temporary file on disk: the Chair assigning 1,000 tasks in one call
		// spent half its time writing that file. In memory it costs what the pages take. A sort that
		// outgrows the page cache stays in memory too: a paged query's sort keeps only its page, and
		// an unpaged one hands every row to JS anyway.
		db.run("PRAGMA temp_store = MEMORY");
		migrate(db);
		return db;
	} catch (err) {
		db.close();
		throw err;
	}
}

const isBusy = (err: unknown) => String((err as { code?: unknown }).code ?? "").startsWith("SQLITE_BUSY");

/**
 * WAL is persistent, so only the first opener of a new file switches to it. Switching needs a lock
 * the busy timeout does not wait for, so when several processes open a new file at once, the
 * losers retry with a short random pause until the winner is done.
 */
function useWal(db: Database): void {
	const deadline = Date.now() + BUSY_TIMEOUT_MS;
	for (;;) {
		try {
			const mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
			if (mode !== "wal") db.run("PRAGMA journal_mode = WAL");
			return;
		} catch (err) {
			if (!isBusy(err) || Date.now() > deadline) throw err;
			Bun.sleepSync(5 + Math.random() * 20);
		}
	}
}

const hasMigrationsTable = (db: Database) =>
	db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== null;

function appliedVersions(db: Database): Set<number> {
	if (!hasMigrationsTable(db)) return new Set();
	return new Set(
		db
			.query<{ version: number }, []>("SELECT version FROM schema_migrations")
			.all()
			.map((r) => r.version),
	);
}

export function migrate(db: Database): void {
	const known = MIGRATIONS.at(-1)?.version ?? 0;
	const newest = Math.max(0, ...appliedVersions(db));
	if (newest > known) {
		throw new Error(
			`the database has schema version ${newest}, newer than this roundtable knows (${known}); upgrade roundtable`,
		);
	}
	for (const m of MIGRATIONS) {
		if (m.version <= newest) continue;
		// PRAGMA foreign_keys is a no-op inside a transaction, so it is set around it.
		if (m.rebuilds) db.run("PRAGMA foreign_keys = OFF");
		db.run("BEGIN IMMEDIATE");
		try {
			db.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
				version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
			// Another process may have applied it while we waited for the lock.
			if (!appliedVersions(db).has(m.version)) {
				db.run(m.sql);
				if (m.rebuilds && db.query("PRAGMA foreign_key_check").all().length > 0) {
					throw new Error(`migration ${m.version} would leave rows whose references do not resolve`);
				}
				db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
					m.version,
					m.name,
					new Date().toISOString(),
				);
			}
			db.run("COMMIT");
		} catch (err) {
			if (db.inTransaction) db.run("ROLLBACK");
			throw err;
		} finally {
			if (m.rebuilds) db.run("PRAGMA foreign_keys = ON");
		}
	}
}

export type Params = SQLQueryBindings[];

/**
 * The connection as the store's queries see it: one per store, active only while a transaction is
 * open. Queries outside a transaction are a bug (an un-awaited promise would otherwise write outside
 * any transaction), so they throw; a Tx that ended reaches a Conn that is never active (see
 * SqliteStore), so its queries throw even while a later transaction is open.
 */
export class Conn {
	active = true;
	/** Set when the transaction appended events, so waiting watchers can be woken after commit. */
	wroteEvents = false;

	constructor(private readonly db: Database) {}

	private check(): Database {
		if (!this.active) throw new Error("store query after its transaction ended");
		return this.db;
	}

	all<T>(sql: string, ...params: Params): T[] {
		return this.check()
			.query<T, Params>(sql)
			.all(...params);
	}

	get<T>(sql: string, ...params: Params): T | undefined {
		return (
			this.check()
				.query<T, Params>(sql)
				.get(...params) ?? undefined
		);
	}

	run(sql: string, ...params: Params): { changes: number; lastInsertRowid: number | bigint } {
		return this.check()
			.query<unknown, Params>(sql)
			.run(...params);
	}
}
