// memory.record, memory.query (SQLite FTS5), memory.summarize and memory.mark_stale through the real
// dispatcher and a real database.
import { describe, expect, test } from "bun:test";
import type { EventRecord, MemoryRecord } from "../../src/vocabulary/records.ts";
import {
	allEvents,
	expectDeclaredOutput,
	makeProject,
	type Project,
	RFC3339_MS_UTC,
	UUID7,
} from "../_helpers/helpers.ts";

type Hit = MemoryRecord & { score: number; snippet: string };

async function record(p: Project, args: Record<string, unknown>): Promise<MemoryRecord> {
	const out = await p.call("memory.record", {
		scope: "project",
		kind: "fact",
		title: "A fact",
		body_md: "Something true.",
		...args,
	});
	expectDeclaredOutput("memory.record", out);
	return out.entry as MemoryRecord;
}

async function query(p: Project, args: Record<string, unknown>): Promise<Hit[]> {
	const out = await p.call("memory.query", args);
	expectDeclaredOutput("memory.query", out);
	return out.entries as Hit[];
}

async function summarize(p: Project, args: Record<string, unknown> = {}) {
	const out = await p.call("memory.summarize", args);
	expectDeclaredOutput("memory.summarize", out);
	return out as unknown as { entries: MemoryRecord[]; summary_md: string; entry_count: number };
}

async function markStale(p: Project, args: Record<string, unknown>): Promise<MemoryRecord> {
	const out = await p.call("memory.mark_stale", args);
	expectDeclaredOutput("memory.mark_stale", out);
	return out.entry as MemoryRecord;
}

async function memoryRows(p: Project): Promise<MemoryRecord[]> {
	const state = await p.call("table.get_state");
	return state.memory as MemoryRecord[];
}

const events = async (p: Project) => (await allEvents(p)) as unknown as EventRecord[];
const eventsOfType = async (p: Project, t: string) => (await events(p)).filter((e) => e.type === t);

/** Calls a tool that must fail and proves the failure changed no memory row and appended no event. */
async function failsWithoutEffect(p: Project, tool: string, args: Record<string, unknown>) {
	const rowsBefore = await memoryRows(p);
	const eventsBefore = (await events(p)).length;
	const err = await p.fail(tool, args);
	expect(await memoryRows(p)).toEqual(rowsBefore);
	expect((await events(p)).length).toBe(eventsBefore);
	return err;
}

/** Unrelated entries, so that the words a test searches for are rare in the corpus. */
async function filler(p: Project, n = 8) {
	const words = ["kettle", "harbor", "violin", "meadow", "pencil", "glacier", "lantern", "orchid", "saddle"];
	for (let i = 0; i < n; i++) {
		const w = words[i % words.length];
		await record(p, { title: `Note about ${w}`, body_md: `The ${w} is stored in room ${i}.`, scope: "misc" });
	}
}

describe("memory.record", () => {
	test("applies defaults: importance 50, status active, null links, M- id, revision 1", async () => {
		const p = await makeProject();
		const entry = await record(p, {
			scope: "src/store",
			kind: "convention",
			title: "Only the store writes SQL",
			body_md: "Queries live under `src/store/`.",
		});
		expect(entry.id).toMatch(new RegExp(`^M-${UUID7}$`));
		expect(entry).toMatchObject({
			scope: "src/store",
			kind: "convention",
			title: "Only the store writes SQL",
			body_md: "Queries live under `src/store/`.",
			importance: 50,
			status: "active",
			stale_reason: null,
			source_event_id: null,
			task_id: null,
			proposal_id: null,
			revision: 1,
		});
		expect(entry.created_at).toMatch(RFC3339_MS_UTC);
		expect(entry.updated_at).toBe(entry.created_at);
		expect(await memoryRows(p)).toEqual([entry]);
	});

	test("keeps an explicit importance, including 0 and 100, and refuses one outside 0..100", async () => {
		const p = await makeProject();
		expect((await record(p, { importance: 0 })).importance).toBe(0);
		expect((await record(p, { importance: 100 })).importance).toBe(100);
		for (const importance of [-1, 101, 2.5, "50"]) {
			const err = await p.fail("memory.record", {
				scope: "s",
				kind: "k",
				title: "t",
				body_md: "b",
				importance,
			});
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "importance" });
		}
		expect(await memoryRows(p)).toHaveLength(2);
	});

	test("a caller memory_id is used; reusing it is already_exists and the first entry stays", async () => {
		const p = await makeProject();
		const first = await record(p, { memory_id: "mem.conventions:1", title: "First" });
		expect(first.id).toBe("mem.conventions:1");
		const err = await failsWithoutEffect(p, "memory.record", {
			memory_id: "mem.conventions:1",
			scope: "project",
			kind: "fact",
			title: "Second",
			body_md: "Replace it?",
		});
		expect(err.code).toBe("already_exists");
		expect(err.message).toBe("memory entry mem.conventions:1 already exists");
		expect(err.details).toEqual({ memory_id: "mem.conventions:1" });
		expect(await memoryRows(p)).toEqual([first]);
	});

	test("source_event_id must name an existing event", async () => {
		const p = await makeProject();
		const task = (await p.call("task.create", { title: "t", body_md: "b" })).task as { id: string };
		const created = (await eventsOfType(p, "task.created"))[0] as EventRecord;
		const entry = await record(p, { source_event_id: created.id, task_id: task.id });
		expect(entry.source_event_id).toBe(created.id);

		const err = await failsWithoutEffect(p, "memory.record", {
			scope: "s",
			kind: "k",
			title: "t",
			body_md: "b",
			source_event_id: 999_999,
		});
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("event 999999 not found");
		expect(err.details).toEqual({ source_event_id: 999_999 });
	});

	test("task_id must name an existing task", async () => {
		const p = await makeProject();
		const err = await failsWithoutEffect(p, "memory.record", {
			scope: "s",
			kind: "k",
			title: "t",
			body_md: "b",
			task_id: "T-x",
		});
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("task T-x not found");
		expect(err.details).toEqual({ task_id: "T-x" });

		await p.call("task.create", { task_id: "T-x", title: "t", body_md: "b" });
		expect((await record(p, { task_id: "T-x" })).task_id).toBe("T-x");
	});

	test("proposal_id is not_found: no proposal exists yet", async () => {
		const p = await makeProject();
		const err = await failsWithoutEffect(p, "memory.record", {
			scope: "s",
			kind: "k",
			title: "t",
			body_md: "b",
			proposal_id: "P-1",
		});
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("proposal P-1 not found");
		expect(err.details).toEqual({ proposal_id: "P-1" });
	});

	test("appends memory.recorded by the operator", async () => {
		const p = await makeProject();
		await p.call("task.create", { task_id: "T-m", title: "t", body_md: "b" });
		const entry = await record(p, {
			scope: "T-m",
			kind: "lesson",
			title: "Retry the flaky step",
			body_md: "It needs two tries.",
			importance: 80,
			task_id: "T-m",
		});
		const evs = await eventsOfType(p, "memory.recorded");
		expect(evs).toHaveLength(1);
		const ev = evs[0] as EventRecord;
		expect(ev.actor_id).toBe("operator");
		expect(ev.task_id).toBe("T-m");
		expect(ev.created_at).toBe(entry.created_at);
		expect(ev.payload).toEqual({
			memory_id: entry.id,
			scope: "T-m",
			kind: "lesson",
			title: "Retry the flaky step",
			importance: 80,
		});
	});

	test("required fields may not be missing, empty or blank", async () => {
		const p = await makeProject();
		const full = { scope: "s", kind: "k", title: "t", body_md: "b" };
		for (const field of ["scope", "kind", "title", "body_md"] as const) {
			const { [field]: _, ...without } = full;
			const missing = await p.fail("memory.record", without);
			expect(missing.code).toBe("invalid_argument");
			expect(missing.message).toBe(`missing required argument '${field}'`);
			expect(missing.details).toEqual({ field });
			for (const blank of ["", "  \n\t"]) {
				const err = await p.fail("memory.record", { ...full, [field]: blank });
				expect(err.code).toBe("invalid_argument");
				expect(err.details).toEqual({ field });
			}
		}
		expect(await memoryRows(p)).toEqual([]);
	});
});

describe("memory.query", () => {
	test("returns hits with a numeric score and a string snippet", async () => {
		const p = await makeProject();
		const entry = await record(p, {
			title: "Widget cache",
			body_md: "The widget cache holds rendered widgets.",
		});
		const hits = await query(p, { query: "widget" });
		expect(hits).toHaveLength(1);
		const hit = hits[0] as Hit;
		const { score, snippet, ...rest } = hit;
		expect(rest).toEqual(entry);
		expect(typeof score).toBe("number");
		expect(Number.isFinite(score)).toBe(true);
		expect(typeof snippet).toBe("string");
		expect(snippet.toLowerCase()).toContain("widget");
	});

	test("a query matching nothing returns an empty array", async () => {
		const p = await makeProject();
		await record(p, { title: "Widget cache", body_md: "Holds widgets." });
		expect(await query(p, { query: "zeppelin" })).toEqual([]);
	});

	test("a title match ranks above a body-only match", async () => {
		const p = await makeProject();
		await filler(p);
		// Length normalization alone would favour the short body over the long title: the title must weigh more.
		const body = await record(p, { title: "Log", body_md: "Checkpoint tuned." });
		const title = await record(p, {
			title: "Why the checkpoint interval of the write ahead log was tuned",
			body_md: "Durability.",
		});
		const hits = await query(p, { query: "checkpoint" });
		expect(hits.map((h) => h.id)).toEqual([title.id, body.id]);
		expect((hits[0] as Hit).score).toBeGreaterThan((hits[1] as Hit).score);
	});

	test("a title match ranks first even in a tiny table", async () => {
		const p = await makeProject();
		const body = await record(p, { title: "Storage notes", body_md: "About the checkpoint interval." });
		const title = await record(p, { title: "Checkpoint interval", body_md: "About storage notes." });
		const hits = await query(p, { query: "checkpoint" });
		expect(hits.map((h) => h.id)).toEqual([title.id, body.id]);
	});

	test("an entry matching more of the query's words ranks higher", async () => {
		const p = await makeProject();
		await filler(p);
		const one = await record(p, { title: "Deploy notes", body_md: "The rollout uses a canary stage first." });
		const two = await record(p, {
			title: "Deploy notes",
			body_md: "The rollout uses a canary and a mirror.",
		});
		const three = await record(p, {
			title: "Deploy notes",
			body_md: "The canary, the mirror and the beacon.",
		});
		const hits = await query(p, { query: "canary mirror beacon" });
		expect(hits.map((h) => h.id)).toEqual([three.id, two.id, one.id]);
		const scores = hits.map((h) => h.score);
		expect(scores[0]).toBeGreaterThan(scores[1] as number);
		expect(scores[1]).toBeGreaterThan(scores[2] as number);
	});

	test("words match by stem: 'searching' finds 'search' and 'searched'", async () => {
		const p = await makeProject();
		const a = await record(p, { title: "Search", body_md: "How search works." });
		const b = await record(p, { title: "History", body_md: "We searched the logs." });
		await record(p, { title: "Unrelated", body_md: "Nothing here." });
		const ids = (await query(p, { query: "searching" })).map((h) => h.id).sort();
		expect(ids).toEqual([a.id, b.id].sort());
		const ids2 = (await query(p, { query: "searches" })).map((h) => h.id).sort();
		expect(ids2).toEqual([a.id, b.id].sort());
	});

	test("the last word matches as a prefix", async () => {
		const p = await makeProject();
		const a = await record(p, { title: "Auth", body_md: "Authentication uses bearer tokens." });
		await record(p, { title: "Other", body_md: "Authors are listed in the README." });
		const hits = await query(p, { query: "authent" });
		expect(hits.map((h) => h.id)).toEqual([a.id]);
		expect((await query(p, { query: "bearer authent" })).map((h) => h.id)).toEqual([a.id]);
	});

	test("a query sharing no word with an entry finds nothing: short words are whole words", async () => {
		const p = await makeProject();
		await record(p, { title: "zeta note", body_md: "Notes on zeta, nothing else." });
		expect(await query(p, { query: "no-such-memory-qq" })).toEqual([]);
		// A last word of 1 or 2 letters is a whole word too, not a prefix of "note" or "zeta".
		expect(await query(p, { query: "no" })).toEqual([]);
		expect(await query(p, { query: "ze" })).toEqual([]);
	});

	test("only the last word is a prefix, and only from 3 letters", async () => {
		const p = await makeProject();
		const e = await record(p, { title: "Checkpoint interval", body_md: "Tuned for the write ahead log." });
		// Not the last word: a whole word only.
		expect(await query(p, { query: "checkp zzz" })).toEqual([]);
		expect((await query(p, { query: "zzz checkp" })).map((h) => h.id)).toEqual([e.id]);
		// Three letters are enough to be a prefix; two are not.
		expect((await query(p, { query: "int" })).map((h) => h.id)).toEqual([e.id]);
		expect(await query(p, { query: "in" })).toEqual([]);
		// Whole words still match wherever they are, by stem.
		expect((await query(p, { query: "intervals zzz" })).map((h) => h.id)).toEqual([e.id]);
	});

	test("scope and kind words are searched too", async () => {
		const p = await makeProject();
		const e = await record(p, {
			scope: "billing",
			kind: "convention",
			title: "Money",
			body_md: "Use cents.",
		});
		expect((await query(p, { query: "billing" })).map((h) => h.id)).toEqual([e.id]);
		expect((await query(p, { query: "convention" })).map((h) => h.id)).toEqual([e.id]);
	});

	test("matching ignores case", async () => {
		const p = await makeProject();
		const e = await record(p, { title: "SQLite WAL mode", body_md: "Readers never block writers." });
		expect((await query(p, { query: "sqlite wal" })).map((h) => h.id)).toEqual([e.id]);
		expect((await query(p, { query: "READERS" })).map((h) => h.id)).toEqual([e.id]);
	});

	test("equal matches are ordered by importance", async () => {
		const p = await makeProject();
		const low = await record(p, { title: "Same text", body_md: "Identical body.", importance: 10 });
		const high = await record(p, { title: "Same text", body_md: "Identical body.", importance: 90 });
		const mid = await record(p, { title: "Same text", body_md: "Identical body.", importance: 50 });
		expect((await query(p, { query: "identical" })).map((h) => h.id)).toEqual([high.id, mid.id, low.id]);
	});

	test("scope and kind filters are exact and case-sensitive", async () => {
		const p = await makeProject();
		const a = await record(p, { scope: "src/store", kind: "fact", title: "Index one", body_md: "x" });
		const b = await record(p, { scope: "src/store/x", kind: "fact", title: "Index two", body_md: "x" });
		const c = await record(p, { scope: "src/store", kind: "lesson", title: "Index three", body_md: "x" });
		const ids = async (args: Record<string, unknown>) =>
			(await query(p, { query: "index", ...args })).map((h) => h.id).sort();
		expect(await ids({})).toEqual([a.id, b.id, c.id].sort());
		expect(await ids({ scope: "src/store" })).toEqual([a.id, c.id].sort());
		expect(await ids({ scope: "src" })).toEqual([]);
		expect(await ids({ scope: "SRC/STORE" })).toEqual([]);
		expect(await ids({ kind: "fact" })).toEqual([a.id, b.id].sort());
		expect(await ids({ kind: "Fact" })).toEqual([]);
		expect(await ids({ scope: "src/store", kind: "lesson" })).toEqual([c.id]);
	});

	test("stale entries are left out unless include_stale is true", async () => {
		const p = await makeProject();
		const live = await record(p, { title: "Port number", body_md: "The server listens on 7117." });
		const old = await record(p, { title: "Port number", body_md: "The server listened on 8080." });
		await markStale(p, { memory_id: old.id, reason_md: "Moved to 7117." });
		expect((await query(p, { query: "port" })).map((h) => h.id)).toEqual([live.id]);
		expect((await query(p, { query: "port", include_stale: false })).map((h) => h.id)).toEqual([live.id]);
		const all = await query(p, { query: "port", include_stale: true });
		expect(all.map((h) => h.id).sort()).toEqual([live.id, old.id].sort());
		expect(all.find((h) => h.id === old.id)).toMatchObject({
			status: "stale",
			stale_reason: "Moved to 7117.",
		});
	});

	test("limit defaults to 10, may go up to 200, and is refused beyond", async () => {
		const p = await makeProject();
		for (let i = 0; i < 13; i++) await record(p, { title: `Gadget ${i}`, body_md: "A gadget." });
		expect(await query(p, { query: "gadget" })).toHaveLength(10);
		expect(await query(p, { query: "gadget", limit: 3 })).toHaveLength(3);
		expect(await query(p, { query: "gadget", limit: 200 })).toHaveLength(13);
		for (const limit of [0, 201, 1.5]) {
			const err = await p.fail("memory.query", { query: "gadget", limit });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "limit" });
			expect(err.message).toContain("must be an integer from 1 to 200");
		}
	});

	test("a query with no word characters is invalid_argument on field query", async () => {
		const p = await makeProject();
		await record(p, {});
		for (const q of ["!!!", "*", "-", '"" ()', "..."]) {
			const err = await p.fail("memory.query", { query: q });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toBe("argument 'query' has no words to search for");
			expect(err.details).toEqual({ field: "query" });
		}
		for (const q of ["", "   "]) {
			const err = await p.fail("memory.query", { query: q });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toEqual({ field: "query" });
		}
		const missing = await p.fail("memory.query", {});
		expect(missing.message).toBe("missing required argument 'query'");
	});

	test("FTS syntax in a query is read as words, never as syntax", async () => {
		const p = await makeProject();
		const e = await record(p, { title: "Queue draining", body_md: "Drain before stopping." });
		for (const q of [
			'"a" OR (b',
			"drain AND",
			"NOT drain",
			"drain*",
			"title:drain",
			"drain NEAR(x",
			'"unterminated',
			"^drain",
			"drain + - : { }",
			"x'); DROP TABLE memory_entries; --",
		]) {
			const hits = await query(p, { query: q });
			expect(Array.isArray(hits)).toBe(true);
		}
		// The words still match: "title:drain" looks for the words "title" and "drain".
		expect((await query(p, { query: "title:drain" })).map((h) => h.id)).toEqual([e.id]);
		expect((await query(p, { query: "NOT drain" })).map((h) => h.id)).toEqual([e.id]);
		expect(await memoryRows(p)).toHaveLength(1);
	});

	test("a word that is only underscores or non-Latin letters does not throw", async () => {
		const p = await makeProject();
		const e = await record(p, { title: "Café menü", body_md: "日本語 text and snake_case_name." });
		for (const q of ["_", "___", "ü"]) expect(Array.isArray(await query(p, { query: q }))).toBe(true);
		expect((await query(p, { query: "café" })).map((h) => h.id)).toEqual([e.id]);
	});
});

describe("memory.summarize", () => {
	test("summary_md opens with the '# Memory Summary' heading", async () => {
		const p = await makeProject();
		await record(p, {});
		expect((await summarize(p)).summary_md.split("\n")[0]).toBe("# Memory Summary");
		expect((await summarize(p, { scope: "none" })).summary_md.split("\n")[0]).toBe("# Memory Summary");
	});

	test("an empty table gives the no-match line and entry_count 0", async () => {
		const p = await makeProject();
		const out = await summarize(p);
		expect(out.entries).toEqual([]);
		expect(out.entry_count).toBe(0);
		expect(out.summary_md.split("\n").slice(1, 5)).toEqual([
			"",
			"Scope: project",
			"",
			"No active memory entries matched.",
		]);
	});

	test("lists only active entries, most important first, one line each", async () => {
		const p = await makeProject();
		const low = await record(p, { kind: "fact", title: "Low", body_md: "low body", importance: 10 });
		const high = await record(p, {
			kind: "convention",
			title: "High",
			body_md: "high\nbody",
			importance: 90,
		});
		const gone = await record(p, { kind: "fact", title: "Gone", body_md: "gone body", importance: 100 });
		const mid = await record(p, { kind: "lesson", title: "Mid", body_md: "mid body", importance: 50 });
		await markStale(p, { memory_id: gone.id, reason_md: "Outdated." });

		const out = await summarize(p);
		expect(out.entries.map((e) => e.id)).toEqual([high.id, mid.id, low.id]);
		expect(out.entry_count).toBe(3);
		const lines = out.summary_md.split("\n");
		expect(lines.slice(1, 4)).toEqual(["", "Scope: project", ""]);
		expect(lines.filter((l) => l.startsWith("- "))).toEqual([
			"- [convention] High: high body",
			"- [lesson] Mid: mid body",
			"- [fact] Low: low body",
		]);
		expect(out.summary_md).not.toContain("Gone");
	});

	test("filters by exact scope and names it in the header", async () => {
		const p = await makeProject();
		const a = await record(p, { scope: "src/api", title: "Api" });
		await record(p, { scope: "src/api/v2", title: "Api v2" });
		await record(p, { scope: "project", title: "Whole" });
		const out = await summarize(p, { scope: "src/api" });
		expect(out.entries.map((e) => e.id)).toEqual([a.id]);
		expect(out.summary_md.split("\n")[2]).toBe("Scope: src/api");
	});

	test("task_id matches entries recorded with that task or scoped to its id", async () => {
		const p = await makeProject();
		await p.call("task.create", { task_id: "T-7", title: "t", body_md: "b" });
		await p.call("task.create", { task_id: "T-8", title: "t", body_md: "b" });
		const linked = await record(p, { scope: "project", title: "Linked", task_id: "T-7", importance: 70 });
		const scoped = await record(p, { scope: "T-7", title: "Scoped", importance: 60 });
		await record(p, { scope: "T-8", title: "Other task", task_id: "T-8" });
		await record(p, { scope: "project", title: "Unrelated" });
		const out = await summarize(p, { task_id: "T-7" });
		expect(out.entries.map((e) => e.id)).toEqual([linked.id, scoped.id]);
		expect(out.entry_count).toBe(2);
		expect(out.summary_md.split("\n")[2]).toBe("Task: T-7");
	});

	test("task_id and scope together must both hold", async () => {
		const p = await makeProject();
		await p.call("task.create", { task_id: "T-9", title: "t", body_md: "b" });
		const both = await record(p, { scope: "src/x", title: "Both", task_id: "T-9" });
		await record(p, { scope: "project", title: "Task only", task_id: "T-9" });
		await record(p, { scope: "src/x", title: "Scope only" });
		const out = await summarize(p, { task_id: "T-9", scope: "src/x" });
		expect(out.entries.map((e) => e.id)).toEqual([both.id]);
	});

	test("proposal_id matches entries scoped to the proposal id", async () => {
		const p = await makeProject();
		const scoped = await record(p, { scope: "P-42", title: "About the proposal" });
		await record(p, { scope: "P-43", title: "Another proposal" });
		const out = await summarize(p, { proposal_id: "P-42" });
		expect(out.entries.map((e) => e.id)).toEqual([scoped.id]);
		expect(out.summary_md.split("\n")[2]).toBe("Proposal: P-42");
	});

	test("a filter matching nothing gives the no-match line", async () => {
		const p = await makeProject();
		await record(p, { scope: "project" });
		const out = await summarize(p, { scope: "nowhere" });
		expect(out.entries).toEqual([]);
		expect(out.entry_count).toBe(0);
		expect(out.summary_md).toContain("\nNo active memory entries matched.");
		expect(out.summary_md.split("\n")[2]).toBe("Scope: nowhere");
	});

	test("limit caps the entries and entry_count", async () => {
		const p = await makeProject();
		for (let i = 0; i < 5; i++) await record(p, { title: `E${i}`, importance: i * 10 });
		const out = await summarize(p, { limit: 2 });
		expect(out.entries.map((e) => e.title)).toEqual(["E4", "E3"]);
		expect(out.entry_count).toBe(2);
	});

	test("writes nothing", async () => {
		const p = await makeProject();
		await record(p, {});
		const before = (await events(p)).length;
		await summarize(p);
		expect((await events(p)).length).toBe(before);
	});
});

describe("memory.mark_stale", () => {
	test("sets status stale and stale_reason, keeps the body, bumps the revision, appends an event", async () => {
		const p = await makeProject();
		const entry = await record(p, { title: "Old port", body_md: "Listens on 8080." });
		await Bun.sleep(3);
		const stale = await markStale(p, { memory_id: entry.id, reason_md: "Now 7117." });
		expect(stale).toEqual({
			...entry,
			status: "stale",
			stale_reason: "Now 7117.",
			revision: 2,
			updated_at: stale.updated_at,
		});
		expect(stale.body_md).toBe("Listens on 8080.");
		expect(Date.parse(stale.updated_at)).toBeGreaterThan(Date.parse(entry.updated_at));
		expect(await memoryRows(p)).toEqual([stale]);

		const evs = await eventsOfType(p, "memory.marked_stale");
		expect(evs).toHaveLength(1);
		const ev = evs[0] as EventRecord;
		expect(ev.actor_id).toBe("operator");
		expect(ev.payload).toEqual({ memory_id: entry.id, reason_md: "Now 7117.", revision: 2 });
	});

	test("the event carries the entry's task", async () => {
		const p = await makeProject();
		await p.call("task.create", { task_id: "T-s", title: "t", body_md: "b" });
		const entry = await record(p, { task_id: "T-s" });
		await markStale(p, { memory_id: entry.id, reason_md: "No longer true." });
		const [ev] = await eventsOfType(p, "memory.marked_stale");
		expect(ev?.task_id).toBe("T-s");
	});

	test("an entry already stale is failed_precondition and keeps its first reason", async () => {
		const p = await makeProject();
		const entry = await record(p, {});
		const stale = await markStale(p, { memory_id: entry.id, reason_md: "First reason." });
		const err = await failsWithoutEffect(p, "memory.mark_stale", {
			memory_id: entry.id,
			reason_md: "Second reason.",
		});
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toBe(`memory entry ${entry.id} is already stale`);
		expect(err.details).toEqual({ memory_id: entry.id });
		expect(await memoryRows(p)).toEqual([stale]);
	});

	test("an unknown id is not_found", async () => {
		const p = await makeProject();
		const err = await p.fail("memory.mark_stale", { memory_id: "M-none", reason_md: "why" });
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("memory entry M-none not found");
		expect(err.details).toEqual({ memory_id: "M-none" });
	});

	test("expected_revision: a match marks it, a mismatch is conflict and changes nothing", async () => {
		const p = await makeProject();
		const a = await record(p, {});
		const b = await record(p, {});
		const err = await failsWithoutEffect(p, "memory.mark_stale", {
			memory_id: a.id,
			reason_md: "r",
			expected_revision: 2,
		});
		expect(err.code).toBe("conflict");
		expect(err.message).toBe(`${a.id} is at revision 1, not 2`);
		expect(err.details).toEqual({ id: a.id, expected_revision: 2, actual_revision: 1 });
		expect((await markStale(p, { memory_id: b.id, reason_md: "r", expected_revision: 1 })).status).toBe(
			"stale",
		);
	});

	test("reason_md is required and may not be blank", async () => {
		const p = await makeProject();
		const entry = await record(p, {});
		const missing = await p.fail("memory.mark_stale", { memory_id: entry.id });
		expect(missing.message).toBe("missing required argument 'reason_md'");
		const blank = await p.fail("memory.mark_stale", { memory_id: entry.id, reason_md: " " });
		expect(blank.code).toBe("invalid_argument");
		expect(blank.details).toEqual({ field: "reason_md" });
		expect((await memoryRows(p))[0]?.status).toBe("active");
	});
});
