// The store: migrations and pragmas on real SQLite files, concurrent opens from real processes, and
// withTransaction's promises (atomic, one at a time, no queries after the end) and eventsCommitted.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openStore, type Store, type Tx } from "../../src/store/index.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { REPO, tempDir } from "../_helpers/helpers.ts";
import { insertTask } from "../_helpers/store-rows.ts";

const OPEN_STORE_SCRIPT = join(REPO, "test/fixtures-scripts/open-store.ts");

const newDbPath = () => join(tempDir("rt-store-"), "nested", "roundtable.db");

interface MigrationRow {
	version: number;
	name: string;
	applied_at: string;
}

/** Reads the file directly, outside the store, so the store's own code cannot colour the answer. */
function inspect<T>(path: string, fn: (db: Database) => T): T {
	const db = new Database(path, { readonly: true });
	try {
		return fn(db);
	} finally {
		db.close();
	}
}

const migrationRows = (path: string) =>
	inspect(path, (db) =>
		db
			.query<MigrationRow, []>("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
			.all(),
	);

const count = (path: string, table: string) =>
	inspect(path, (db) => db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? -1);

/** A store on a fresh database file; closed when the test ends. */
function freshStore(): { store: Store; path: string; [Symbol.dispose](): void } {
	const path = newDbPath();
	const store = openStore(path);
	return { store, path, [Symbol.dispose]: () => store.close() };
}

const now = () => new Date().toISOString();

const appendEvent = (tx: Tx, marker: string) =>
	tx.events.append({ type: "test.marker", actor_id: "tester", payload: { marker } }, now());

const markers = (path: string) =>
	inspect(path, (db) =>
		db
			.query<{ payload: string }, []>("SELECT payload FROM events WHERE type = 'test.marker' ORDER BY id")
			.all()
			.map((r) => (JSON.parse(r.payload) as { marker: string }).marker),
	);

describe("opening a database", () => {
	test("a new database records every migration once and sets WAL and foreign keys", () => {
		using s = freshStore();
		const rows = migrationRows(s.path);
		expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
		expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
		for (const r of rows) expect(r.applied_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

		// journal_mode is persistent in the file: any connection sees it.
		expect(
			inspect(s.path, (db) => db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()),
		).toEqual({
			journal_mode: "wal",
		});
	});

	test("foreign keys are enforced on the store's connection", async () => {
		using s = freshStore();
		const insertOrphan = s.store.withTransaction("write", (tx) =>
			tx.tasks.insert(
				{
					id: "T-orphan",
					run_id: "RUN-does-not-exist",
					title: "orphan",
					body_md: "",
					status: "open",
					priority: 1,
					risk: "low",
					assigned_agent_id: null,
					readable_paths: [],
				},
				now(),
			),
		);
		await expect(insertOrphan).rejects.toThrow(/FOREIGN KEY/i);
		expect(count(s.path, "tasks")).toBe(0);
	});

	test("opening an existing database again applies nothing twice", async () => {
		const path = newDbPath();
		openStore(path).close();
		const first = migrationRows(path);

		const again = openStore(path);
		// The data written before survives a reopen and the schema still works.
		await again.withTransaction("write", (tx) => appendEvent(tx, "after reopen"));
		again.close();
		openStore(path).close();

		expect(migrationRows(path)).toEqual(first);
		expect(markers(path)).toEqual(["after reopen"]);
	});

	test("a database from a newer roundtable is refused with a message to upgrade", () => {
		const path = newDbPath();
		openStore(path).close();
		const db = new Database(path);
		db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from the future', ?)", [
			now(),
		]);
		db.close();

		let error: unknown;
		try {
			openStore(path).close();
		} catch (err) {
			error = err;
		}
		expect(error).toBeInstanceOf(Error);
		const message = (error as Error).message;
		expect(message).toContain("999");
		expect(message).toMatch(/upgrad/i);
		// Refusing touches nothing: the future row is still the newest and nothing was re-applied.
		expect(migrationRows(path).map((r) => r.version)).toEqual([...MIGRATIONS.map((m) => m.version), 999]);
	});

	test("processes opening the same new database at the same instant all succeed; migrations recorded once", async () => {
		// Several rounds, each on a brand-new file, to give a race a real chance to show; the last rounds
		// start more than two openers.
		for (let round = 0; round < 30; round++) {
			const path = newDbPath();
			const children = Array.from({ length: round < 25 ? 2 : 4 }, () =>
				Bun.spawn([process.execPath, OPEN_STORE_SCRIPT, path], {
					stdin: "pipe",
					stdout: "pipe",
					stderr: "pipe",
				}),
			);
			const readers = children.map((c) => lineReader(c.stdout));
			// Barrier: every child has loaded its code and waits for "go" before touching the file.
			for (const r of readers) expect(await r.next()).toBe("ready");
			for (const c of children) c.stdin.write("go\n");
			for (const c of children) c.stdin.flush();

			const results = await Promise.all(
				children.map(async (c, i) => {
					const line = await readers[i]?.next();
					const code = await c.exited;
					const stderr = await new Response(c.stderr).text();
					return { code, line, stderr };
				}),
			);
			for (const r of results) {
				expect({ round, ...r }).toMatchObject({
					round,
					code: 0,
					line: JSON.stringify({ ok: true, last_event_id: 0 }),
				});
			}
			expect(migrationRows(path).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
			expect(
				inspect(path, (db) => db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()),
			).toEqual({
				journal_mode: "wal",
			});
		}
	});
});

describe("withTransaction", () => {
	test("a transaction whose function throws leaves no trace, and the error reaches the caller", async () => {
		using s = freshStore();
		const boom = new Error("boom after writing");
		const attempt = s.store.withTransaction("write", async (tx) => {
			await insertTask(tx, "T-rolled-back");
			await appendEvent(tx, "rolled back");
			throw boom;
		});
		await expect(attempt).rejects.toBe(boom);
		expect(count(s.path, "tasks")).toBe(0);
		expect(count(s.path, "events")).toBe(0);
		// The store stays usable after a rollback.
		expect(await s.store.withTransaction("read", (tx) => tx.tasks.get("T-rolled-back"))).toBeUndefined();
	});

	test("a transaction whose function resolves commits every row, and returns its value", async () => {
		using s = freshStore();
		const result = await s.store.withTransaction("write", async (tx) => {
			const task = await insertTask(tx, "T-kept");
			const event = await appendEvent(tx, "kept");
			return { task, event };
		});
		expect(result.task.id).toBe("T-kept");
		expect(result.event.id).toBeGreaterThan(0);
		// Visible to another connection: it is committed, not just cached.
		expect(count(s.path, "tasks")).toBe(1);
		expect(markers(s.path)).toEqual(["kept"]);
		expect(await s.store.withTransaction("read", (tx) => tx.tasks.get("T-kept"))).toEqual(result.task);
	});

	test("a Tx used after its transaction committed throws and writes nothing", async () => {
		using s = freshStore();
		const leaked: { tx?: Tx } = {};
		await s.store.withTransaction("write", async (tx) => {
			leaked.tx = tx;
			await appendEvent(tx, "inside");
		});
		const tx = leaked.tx;
		if (!tx) throw new Error("the transaction function never ran");
		await expect(appendEvent(tx, "after commit")).rejects.toThrow("store query after its transaction ended");
		await expect(insertTask(tx, "T-late")).rejects.toThrow("store query after its transaction ended");
		await expect(tx.events.lastId()).rejects.toThrow("store query after its transaction ended");
		expect(markers(s.path)).toEqual(["inside"]);
		expect(count(s.path, "tasks")).toBe(0);
	});

	test("a Tx used after its transaction rolled back throws and writes nothing", async () => {
		using s = freshStore();
		const leaked: { tx?: Tx } = {};
		await expect(
			s.store.withTransaction("write", async (tx) => {
				leaked.tx = tx;
				throw new Error("abandon");
			}),
		).rejects.toThrow("abandon");
		if (!leaked.tx) throw new Error("the transaction function never ran");
		await expect(appendEvent(leaked.tx, "after rollback")).rejects.toThrow(
			"store query after its transaction ended",
		);
		expect(count(s.path, "events")).toBe(0);
	});

	test("a stale Tx cannot write into a later transaction that is open at the time", async () => {
		using s = freshStore();
		const stale: { tx?: Tx } = {};
		await s.store.withTransaction("write", async (tx) => {
			stale.tx = tx;
		});
		const staleTx = stale.tx;
		if (!staleTx) throw new Error("the transaction function never ran");
		let staleError: unknown;
		await s.store.withTransaction("write", async (tx) => {
			await appendEvent(tx, "current");
			try {
				await appendEvent(staleTx, "smuggled");
			} catch (err) {
				staleError = err;
			}
		});
		expect((staleError as Error | undefined)?.message).toBe("store query after its transaction ended");
		expect(markers(s.path)).toEqual(["current"]);
	});

	test("transactions in one process run one at a time, in call order", async () => {
		using s = freshStore();
		const log: string[] = [];
		const body = (name: string) => async (tx: Tx) => {
			log.push(`${name}:enter`);
			await appendEvent(tx, `${name}-1`);
			// Yield to the event loop: another transaction would start here if they were not serialized.
			await Bun.sleep(15);
			await appendEvent(tx, `${name}-2`);
			log.push(`${name}:exit`);
			return name;
		};
		const results = await Promise.all([
			s.store.withTransaction("write", body("a")),
			s.store.withTransaction("read", async (tx) => {
				log.push("r:enter");
				const seen = (await tx.events.newest(null, 10)).length;
				await Bun.sleep(15);
				log.push("r:exit");
				return seen;
			}),
			s.store.withTransaction("write", body("b")),
		]);
		expect(log).toEqual(["a:enter", "a:exit", "r:enter", "r:exit", "b:enter", "b:exit"]);
		// The read ran between the writes and saw exactly a's committed events.
		expect(results).toEqual(["a", 2, "b"]);
		expect(markers(s.path)).toEqual(["a-1", "a-2", "b-1", "b-2"]);
	});

	test("a failing transaction does not stop the ones queued behind it", async () => {
		using s = freshStore();
		const log: string[] = [];
		const failing = s.store.withTransaction("write", async (tx) => {
			log.push("fail:enter");
			await appendEvent(tx, "doomed");
			await Bun.sleep(10);
			log.push("fail:exit");
			throw new Error("doomed");
		});
		const next = s.store.withTransaction("write", async (tx) => {
			log.push("next:enter");
			await appendEvent(tx, "survivor");
			log.push("next:exit");
			return "ok";
		});
		await expect(failing).rejects.toThrow("doomed");
		expect(await next).toBe("ok");
		expect(log).toEqual(["fail:enter", "fail:exit", "next:enter", "next:exit"]);
		expect(markers(s.path)).toEqual(["survivor"]);
	});
});

describe("eventsCommitted", () => {
	test("resolves soon after this process commits an event", async () => {
		using s = freshStore();
		const started = performance.now();
		const waiting = s.store.eventsCommitted(5000);
		setTimeout(() => void s.store.withTransaction("write", (tx) => appendEvent(tx, "wake")), 100);
		await waiting;
		const elapsed = performance.now() - started;
		expect(elapsed).toBeGreaterThanOrEqual(90);
		expect(elapsed).toBeLessThan(1000);
	});

	test("resolves after the given time when nothing is committed", async () => {
		using s = freshStore();
		const started = performance.now();
		await s.store.eventsCommitted(250);
		const elapsed = performance.now() - started;
		expect(elapsed).toBeGreaterThanOrEqual(240);
		expect(elapsed).toBeLessThan(1500);
	});

	test("a commit without events, or a rolled-back event, does not wake it", async () => {
		using s = freshStore();
		let resolvedAt = 0;
		const started = performance.now();
		const waiting = s.store.eventsCommitted(400).then(() => {
			resolvedAt = performance.now();
		});
		await Bun.sleep(20);
		await s.store.withTransaction("write", (tx) => insertTask(tx, "T-no-event"));
		await expect(
			s.store.withTransaction("write", async (tx) => {
				await appendEvent(tx, "rolled back");
				throw new Error("roll back");
			}),
		).rejects.toThrow("roll back");
		await Bun.sleep(50);
		expect(resolvedAt).toBe(0);
		await waiting;
		expect(resolvedAt - started).toBeGreaterThanOrEqual(390);
	});

	test("an abort signal ends the wait early", async () => {
		using s = freshStore();
		const abort = new AbortController();
		const started = performance.now();
		setTimeout(() => abort.abort(), 100);
		await s.store.eventsCommitted(5000, abort.signal);
		expect(performance.now() - started).toBeLessThan(1000);
	});
});

/** Line-at-a-time reading of a child's stdout. */
function lineReader(stream: ReadableStream<Uint8Array>) {
	const reader = stream.getReader();
	const decoder = new TextDecoder();
	let buffered = "";
	return {
		async next(): Promise<string | undefined> {
			for (;;) {
				const nl = buffered.indexOf("\n");
				if (nl !== -1) {
					const line = buffered.slice(0, nl);
					buffered = buffered.slice(nl + 1);
					return line;
				}
				const { value, done } = await reader.read();
				if (done) return buffered === "" ? undefined : buffered;
				buffered += decoder.decode(value, { stream: true });
			}
		},
	};
}
