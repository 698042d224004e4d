// Two writers on one database at the same time: nothing lost, nothing doubled, no error.
import { expect, test } from "bun:test";
import { allEvents, atBarrier, makeProject, runCli } from "../_helpers/helpers.ts";

interface Report {
	start: number;
	end: number;
	errors: string[];
}

async function countTasks(p: Awaited<ReturnType<typeof makeProject>>, prefix: string) {
	const { tasks } = (await p.call("task.list", { limit: 1000 })) as { tasks: { title: string }[] };
	return tasks.filter((t) => t.title.startsWith(prefix)).length;
}

test("two processes × 300 task.create through the dispatcher, released together", async () => {
	const p = await makeProject();
	// Start barrier: both have opened the database before either starts writing.
	const writers = await atBarrier("create-tasks.ts", [
		[p.root, "300", "A"],
		[p.root, "300", "B"],
	]);
	const reports = (await writers.go()).map((l) => JSON.parse(l) as Report);

	const [a, b] = reports as [Report, Report];
	expect(a.errors).toEqual([]);
	expect(b.errors).toEqual([]);
	// The two windows overlap, so the writers really contended for the database.
	expect(a.start < b.end && b.start < a.end).toBe(true);
	expect(await countTasks(p, "A ")).toBe(300);
	expect(await countTasks(p, "B ")).toBe(300);
	let events = 0;
	let cursor = 0;
	for (;;) {
		const page = (await p.call("table.watch", { after_event_id: cursor, limit: 200 })) as {
			events: { type: string }[];
			next_after_event_id: number;
			has_more_events: boolean;
		};
		events += page.events.filter((e) => e.type === "task.created").length;
		cursor = page.next_after_event_id;
		if (!page.has_more_events) break;
	}
	expect(events).toBe(600);
}, 60_000);

test("two lanes × 30 `mcp call` processes at the same time", async () => {
	const p = await makeProject();
	const windows: { start: number; end: number; failures: string[] }[] = [];
	const lane = async (label: string) => {
		const w = { start: Date.now(), end: 0, failures: [] as string[] };
		windows.push(w);
		for (let i = 0; i < 30; i++) {
			const args = JSON.stringify({ title: `${label} ${i}`, body_md: "from the CLI" });
			const r = await runCli(["mcp", "call", "--tool", "task.create", "--args", args, "--root", p.root]);
			if (r.code !== 0) w.failures.push(r.stderr);
		}
		w.end = Date.now();
	};
	await Promise.all([lane("X"), lane("Y")]);
	const [x, y] = windows as [(typeof windows)[0], (typeof windows)[0]];
	expect(x.failures).toEqual([]);
	expect(y.failures).toEqual([]);
	expect(x.start < y.end && y.start < x.end).toBe(true);
	expect(await countTasks(p, "X ")).toBe(30);
	expect(await countTasks(p, "Y ")).toBe(30);
	const events = (await allEvents(p)).filter((e) => e.type === "task.created");
	expect(events.length).toBe(60);
}, 120_000);
