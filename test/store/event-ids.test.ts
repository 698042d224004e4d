// Event ids are the watch cursor: migration 14 drops AUTOINCREMENT (one page less per commit), so
// the rule that keeps ids from ever being reused is now "no event is ever deleted", held by a
// trigger. A database in use at version 13 migrates with its events and their references whole.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { tempDir } from "../_helpers/helpers.ts";

const T0 = "2026-12-01T10:00:00.000Z";

function databaseAtVersion13(path: string): void {
	const db = new Database(path, { create: true, strict: true });
	db.run("PRAGMA journal_mode = WAL");
	db.run("PRAGMA foreign_keys = ON");
	db.run(
		"CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
	);
	for (const m of MIGRATIONS.filter((m) => m.version <= 13)) {
		db.run(m.sql);
		db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
			m.version,
			m.name,
			T0,
		);
	}
	for (const type of ["a.one", "a.two", "a.three"]) {
		db.query(
			"INSERT INTO events (run_id, type, actor_id, payload, created_at) VALUES (NULL, ?, 'operator', '{}', ?)",
		).run(type, T0);
	}
	db.run(
		`INSERT INTO memory_entries (id, scope, kind, title, body_md, source_event_id, importance, status, created_at, updated_at)
		 VALUES ('M-1', 'repo', 'fact', 't', 'b', 2, 1, 'active', ?, ?)`,
		[T0, T0],
	);
	db.close();
}

const append = (store: ReturnType<typeof openStore>, type: string) =>
	store.withTransaction("write", (tx) => tx.events.append({ type, actor_id: "operator", payload: {} }, T0));

test("events migrate whole, are never deleted, and a new event's id is above every id before it", async () => {
	const path = join(tempDir("rt-event-ids-"), "roundtable.db");
	databaseAtVersion13(path);
	let store = openStore(path);
	const side = new Database(path, { strict: true });
	side.run("PRAGMA foreign_keys = ON");
	try {
		expect(side.query("SELECT id, type FROM events ORDER BY id").all()).toEqual([
			{ id: 1, type: "a.one" },
			{ id: 2, type: "a.two" },
			{ id: 3, type: "a.three" },
		]);
		expect(side.query("SELECT source_event_id AS e FROM memory_entries").get()).toEqual({ e: 2 });
		expect(side.query("PRAGMA foreign_key_check").all()).toEqual([]);
		const table = side
			.query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE name = 'events'")
			.get();
		expect(table?.sql).toContain("id INTEGER PRIMARY KEY");
		expect(table?.sql).not.toContain("AUTOINCREMENT");
		expect(side.query("SELECT name FROM sqlite_sequence WHERE name = 'events'").all()).toEqual([]);

		expect((await append(store, "b.four")).id).toBe(4);
		// The newest event is the one whose deletion would free its id for reuse: refused, by anyone.
		expect(() => side.run("DELETE FROM events WHERE id = 4")).toThrow(/events are never deleted/);
		expect(() => side.run("DELETE FROM events")).toThrow(/events are never deleted/);
		store.close();
		store = openStore(path);
		expect((await append(store, "b.five")).id).toBe(5);
		// References to events are still enforced after the rebuild.
		expect(() =>
			side.run(
				`INSERT INTO memory_entries (id, scope, kind, title, body_md, source_event_id, importance, status, created_at, updated_at)
				 VALUES ('M-2', 'repo', 'fact', 't', 'b', 999, 1, 'active', '${T0}', '${T0}')`,
			),
		).toThrow(/FOREIGN KEY/);
	} finally {
		side.close();
		store.close();
	}
});
