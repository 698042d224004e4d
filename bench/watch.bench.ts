// table.watch cursor pages as a user meets them: over the owner's socket, the owner in its own
// process, with ~1,000 and with ~100,000 open tasks (none blocked) and their task.created events.
// The 1,000 figure is the floor; the ratio's goal is ≤ 1.2 (issue 22). Beside it, not a figure: the
// first page of task.list for status open, which an agent asks for more than anything else, on the
// same two owners.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config/load.ts";
import { databasePath } from "../src/runtime.ts";
import { callSocket } from "../src/transports/socket-client.ts";
import { type Figure, fmt, initOnAnyPort, percentile, startOwner } from "./lib.ts";

const PAGES = Number(process.env.BENCH_PAGES ?? 500);
const LIMIT = 50;

interface Figures {
	p50: number;
	p95: number;
	p99: number;
}

/**
 * `n` open tasks and one task.created event each, written straight into the project's database in
 * one transaction before the owner opens it (the dispatcher would take minutes for 100,000).
 */
function seed(root: string, n: number): void {
	const db = new Database(databasePath(root, loadConfig(root)), { strict: true });
	db.run("PRAGMA busy_timeout = 5000");
	const task = db.query(
		`INSERT INTO tasks (id, run_id, title, body_md, status, priority, risk, assigned_agent_id, readable_paths,
		 created_at, updated_at) VALUES (?, NULL, ?, 'seeded', 'open', ?, 'normal', NULL, '[]', ?, ?)`,
	);
	const event = db.query(
		"INSERT INTO events (run_id, type, actor_id, task_id, payload, created_at) VALUES (NULL, 'task.created', 'operator', ?, ?, ?)",
	);
	const base = Date.parse("2026-01-01T00:00:00.000Z");
	db.transaction(() => {
		for (let i = 0; i < n; i++) {
			const id = `T-bench-${i}`;
			const at = new Date(base + i).toISOString();
			task.run(id, `task ${i}`, i % 5, at, at);
			event.run(id, JSON.stringify({ task_id: id, title: `task ${i}` }), at);
		}
	})();
	db.close();
}

/** How long each of `n` calls of `once`, one after another, took, in ms. */
async function timed(n: number, once: () => Promise<void>): Promise<number[]> {
	const times: number[] = [];
	for (let i = 0; i < n; i++) {
		const start = performance.now();
		await once();
		times.push(performance.now() - start);
	}
	return times;
}

/** A project seeded with `tasks` open tasks, its owner started; `page` reads one cursor page. */
async function ownerWith(tasks: number) {
	const project = mkdtempSync(join(tmpdir(), "rt-bench-watch-"));
	initOnAnyPort(project);
	seed(project, tasks);
	const owner = await startOwner(project);
	const { socket } = owner;
	const watch = async (after: number) => {
		const reply = await callSocket(socket, "table.watch", { after_event_id: after, limit: LIMIT });
		if (!reply.ok) throw new Error(`table.watch failed: ${reply.error}`);
		return reply.result as { events: unknown[]; open_tasks: number };
	};
	const first = await watch(0);
	if (first.open_tasks < tasks)
		throw new Error(`expected ${tasks} open tasks, the view has ${first.open_tasks}`);
	for (let i = 0; i < 50; i++) await watch(i * 10); // warm-up
	return {
		/** The time of `n` first pages of the open tasks, each in ms. */
		lists: (n: number) =>
			timed(n, async () => {
				const reply = await callSocket(socket, "task.list", { status: "open" });
				if (!reply.ok || (reply.result as { tasks: unknown[] }).tasks.length !== 200)
					throw new Error(`expected a full page of open tasks: ${reply.error ?? "a short page"}`);
			}),
		/** The time of `pages` pages at random cursors, each in ms. */
		window: (pages: number) =>
			timed(pages, async () => {
				const cursor = Math.floor(Math.random() * (tasks - LIMIT));
				const page = await watch(cursor);
				if (page.events.length !== LIMIT) throw new Error(`expected a full page at cursor ${cursor}`);
			}),
		async stop() {
			await owner.stop();
			rmSync(project, { recursive: true, force: true });
		},
	};
}

const figures = (times: number[]): Figures => {
	const sorted = [...times].sort((a, b) => a - b);
	return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
};

const line = (tasks: number, f: Figures) =>
	`  ${fmt(tasks).padStart(7)} open tasks + events   p50 ${fmt(f.p50, 3)} ms   p95 ${fmt(f.p95, 3)} ms   p99 ${fmt(f.p99, 3)} ms`;

/** Both owners run at once and take turns, window by window, so the machine's drift hits both. */
export async function run(): Promise<Figure> {
	console.log(
		`table.watch over the owner's socket, cursor pages of ${LIMIT} events, ${PAGES} pages each at random cursors, in alternating windows:`,
	);
	const small = await ownerWith(1_000);
	const large = await ownerWith(100_000);
	try {
		const times = { small: [] as number[], large: [] as number[] };
		const WINDOW = 25;
		for (let done = 0; done < PAGES; done += WINDOW) {
			times.small.push(...(await small.window(WINDOW)));
			times.large.push(...(await large.window(WINDOW)));
		}
		const floor = figures(times.small);
		const big = figures(times.large);
		console.log(line(1_000, floor));
		console.log(line(100_000, big));
		console.log(`  p50 ratio 100k ÷ 1k: ${fmt(big.p50 / floor.p50, 2)} (goal ≤ 1.2)`);
		const lists = { small: [] as number[], large: [] as number[] };
		for (let done = 0; done < PAGES / 5; done += WINDOW) {
			lists.small.push(...(await small.lists(WINDOW)));
			lists.large.push(...(await large.lists(WINDOW)));
		}
		const [listSmall, listLarge] = [figures(lists.small).p50, figures(lists.large).p50];
		console.log(
			`  task.list status open, first page of 200: p50 ${fmt(listSmall, 3)} ms with 1,000, ${fmt(listLarge, 3)} ms with 100,000 (ratio ${fmt(listLarge / listSmall, 2)})`,
		);
		return { name: "watch", ratio: big.p50 / floor.p50, goal: { op: "≤", value: 1.2 } };
	} finally {
		await small.stop();
		await large.stop();
	}
}

if (import.meta.main) await run();
