// The dashboard's event stream (`/api/events`, SSE) over real HTTP: an event committed by another
// process arrives without a reload; a reconnect with Last-Event-ID (or ?after=N) resumes right after
// that event, with no gap and no repeat, across pages; a stream ends with its session and with the
// owner; bad cursors and missing sessions are refused; the number of streams is bounded.
import { describe, expect, test } from "bun:test";
import { readOperatorToken } from "../../src/config/operator-token.ts";
import { Browser, EventReader, serveDashboard } from "../_helpers/dashboard-helpers.ts";
import { atBarrier, makeProject, type Project } from "../_helpers/helpers.ts";

const p = await makeProject();
const { base } = serveDashboard(p);
const token = readOperatorToken(p.root) as string;

async function signedIn(at = base): Promise<Browser> {
	const b = new Browser(at);
	await b.login(token);
	return b;
}

const newest = async (q: Project = p) =>
	((await q.call("table.watch", { limit: 1 })) as { next_after_event_id: number }).next_after_event_id;

const createTasks = async (n: number, label: string) => {
	for (let i = 0; i < n; i++) await p.call("task.create", { title: `${label} ${i}`, body_md: "b" });
};

/** The ids table.watch has after `after`, oldest first, every page of them. */
async function idsAfter(after: number): Promise<number[]> {
	const ids: number[] = [];
	for (let cursor = after, more = true; more; ) {
		const page = (await p.call("table.watch", { after_event_id: cursor, limit: 200 })) as {
			events: { id: number }[];
			next_after_event_id: number;
			has_more_events: boolean;
		};
		ids.push(...page.events.map((e) => e.id));
		cursor = page.next_after_event_id;
		more = page.has_more_events;
	}
	return ids;
}

describe("GET /api/events", () => {
	test("an event another process commits arrives on the open stream; older ones are not replayed", async () => {
		await createTasks(2, "before");
		const start = await newest();
		const stream = await EventReader.open(await signedIn());
		try {
			const children = await atBarrier("create-tasks.ts", [[p.root, "1", "from-another-process"]]);
			await children.go();
			const seen = await stream.until((e) => e.data.type === "task.created");
			expect(seen[0]?.id).toBe(start + 1);
			const created = seen.at(-1);
			expect(created).toMatchObject({ event: "table", data: { type: "task.created", actor_id: "operator" } });
			expect(created?.id).toBe(created?.data.id);
			expect(stream.comments).toContain("retry: 1000");
		} finally {
			stream.close();
		}
	}, 30_000);

	test("a reconnect with Last-Event-ID resumes right after it: no gap, no repeat, across pages", async () => {
		const browser = await signedIn();
		const from = await newest();
		await createTasks(3, "first");
		const first = await EventReader.open(browser, `/api/events?after=${from}`);
		const got = await first.until((e) => e.id === from + 3);
		first.close();
		expect(got.map((e) => e.id)).toEqual(await idsAfter(from));
		const last = got.at(-1)?.id as number;

		// Missed while away: more than one page of table.watch (200).
		await createTasks(230, "missed");
		const end = await newest();
		const resumed = await EventReader.open(browser, "/api/events", { "last-event-id": String(last) });
		try {
			const again = await resumed.until((e) => e.id === end, 30_000);
			expect(again.map((e) => e.id)).toEqual(await idsAfter(last));
			expect(again.map((e) => e.id)).toEqual(Array.from({ length: end - last }, (_, i) => last + 1 + i));
		} finally {
			resumed.close();
		}
	}, 60_000);

	test("Last-Event-ID wins over ?after; a cursor that is not an event id is 400", async () => {
		const browser = await signedIn();
		const at = await newest();
		await createTasks(2, "cursor");
		const both = await EventReader.open(browser, "/api/events?after=0", { "last-event-id": String(at + 1) });
		try {
			expect((await both.next())?.id).toBe(at + 2);
		} finally {
			both.close();
		}
		for (const [path, headers] of [
			["/api/events?after=-1", {}],
			["/api/events?after=abc", {}],
			["/api/events", { "last-event-id": "1e3" }],
			["/api/events", { "last-event-id": "9".repeat(20) }],
		] as [string, Record<string, string>][]) {
			const res = await browser.get(path, headers);
			expect({ path, headers, status: res.status }).toEqual({ path, headers, status: 400 });
			expect(await res.json()).toMatchObject({ error: { code: "invalid_argument" } });
		}
		expect((await new Browser(base).get("/api/events")).status).toBe(401);
	});

	test("a stream ends with its session: after logout the next event is not sent", async () => {
		const browser = await signedIn();
		const stream = await EventReader.open(browser);
		await createTasks(1, "seen");
		expect((await stream.next())?.data.type).toBe("task.created");
		expect((await browser.post("/api/logout")).status).toBe(204);
		await createTasks(1, "unseen");
		await stream.ended();
	}, 30_000);

	test("streams end when the owner stops, and there are at most 32 at once", async () => {
		const q = await makeProject();
		const other = serveDashboard(q);
		const browser = new Browser(other.base);
		await browser.login(readOperatorToken(q.root) as string);
		const streams: EventReader[] = [];
		for (let i = 0; i < 32; i++) streams.push(await EventReader.open(browser));
		const over = await browser.get("/api/events");
		expect(over.status).toBe(503);
		expect(await over.json()).toMatchObject({ error: { code: "resource_exhausted" } });
		// One ends: there is room again.
		(streams.pop() as EventReader).close();
		let reopened: Response | undefined;
		for (let tries = 0; tries < 100 && reopened?.status !== 200; tries++) {
			await reopened?.body?.cancel();
			await Bun.sleep(20);
			reopened = await browser.get("/api/events");
		}
		expect(reopened?.status).toBe(200);
		await reopened?.body?.cancel();

		other.server.stopAccepting();
		await Promise.all(streams.map((s) => s.ended(10_000)));
	}, 30_000);
});
