// The floor of the "write" figures: bare bun:sqlite inserting one task-shaped row (10 columns, one
// primary key) per transaction, WAL with synchronous=FULL. Also run as its own process behind a bare
// socket server (the ceiling, ./write-ceiling.ts), so both do exactly the same database work.
import { Database } from "bun:sqlite";
import { join } from "node:path";

export function openFloor(dir: string) {
	const db = new Database(join(dir, "floor.db"), { create: true, strict: true });
	db.run("PRAGMA busy_timeout = 5000");
	db.run("PRAGMA journal_mode = WAL");
	db.run("PRAGMA synchronous = FULL");
	db.run(`CREATE TABLE tasks (id TEXT PRIMARY KEY, run_id TEXT, title TEXT NOT NULL, body_md TEXT NOT NULL,
		status TEXT NOT NULL, priority INTEGER NOT NULL, risk TEXT NOT NULL, assigned_agent_id TEXT,
		readable_paths TEXT NOT NULL, created_at TEXT NOT NULL)`);
	const begin = db.prepare("BEGIN IMMEDIATE");
	const commit = db.prepare("COMMIT");
	const insert = db.prepare("INSERT INTO tasks VALUES (?, NULL, ?, ?, 'open', 100, 'low', NULL, '[]', ?)");
	/** One row, one durable commit; returns the row's id. */
	const row = (title: string, body: string): string => {
		const id = `T-${Bun.randomUUIDv7()}`;
		begin.run();
		insert.run(id, title, body, new Date().toISOString());
		commit.run();
		return id;
	};
	let n = 0;
	return {
		row,
		/** `calls` rows one after another; rows/s. */
		window(calls: number): number {
			const start = performance.now();
			for (let i = 0; i < calls; i++) row(`task ${n++}`, "a body of ordinary length for a task");
			return calls / ((performance.now() - start) / 1000);
		},
		close: () => db.close(),
	};
}
