// table.watch cursor pages: latency with 1,000 and with 200,000 events in the table.
import { Database } from "bun:sqlite";
import { databasePath } from "../src/runtime.ts";
import { fmt, freshProject, percentile } from "./lib.ts";

const PAGES = 500;

async function pageLatency(events: number): Promise<{ p50: number; p95: number; p99: number }> {
	const p = await freshProject();
	// Seed the events table directly: the dispatcher would take minutes for 200,000 rows.
	const db = new Database(databasePath(p.rt.root, p.rt.config), { strict: true });
	db.run("PRAGMA busy_timeout = 5000");
	const insert = db.query(
		"INSERT INTO events (run_id, type, actor_id, task_id, payload, created_at) VALUES (NULL, 'task.created', 'operator', ?, ?, ?)",
	);
	db.transaction(() => {
		for (let i = 0; i < events; i++)
			insert.run(
				`T-${i}`,
				JSON.stringify({ task_id: `T-${i}`, title: `task ${i}` }),
				new Date().toISOString(),
			);
	})();
	db.close();
	const total = events + 8; // plus the agent events init wrote
	for (let i = 0; i < 20; i++) await p.call("table.watch", { after_event_id: i * 10, limit: 50 }); // warm-up

	const times: number[] = [];
	for (let i = 0; i < PAGES; i++) {
		const cursor = Math.floor(Math.random() * (total - 50));
		const start = performance.now();
		const page = (await p.call("table.watch", { after_event_id: cursor, limit: 50 })) as {
			events: unknown[];
		};
		times.push(performance.now() - start);
		if (page.events.length !== 50) throw new Error(`expected a full page at cursor ${cursor}`);
	}
	p.done();
	times.sort((a, b) => a - b);
	return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99) };
}

export async function run(): Promise<void> {
	console.log(`table.watch cursor pages of 50 events, ${PAGES} pages at random cursors:`);
	for (const n of [1_000, 200_000]) {
		const r = await pageLatency(n);
		console.log(
			`  ${fmt(n).padStart(7)} events   p50 ${fmt(r.p50, 3)} ms   p95 ${fmt(r.p95, 3)} ms   p99 ${fmt(r.p99, 3)} ms`,
		);
	}
}
