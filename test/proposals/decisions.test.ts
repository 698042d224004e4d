// decision.record through the real dispatcher and database: the record, its links, its event, and that
// decisions are append-only.
import { describe, expect, test } from "bun:test";
import type { DecisionRecord, EventRecord } from "../../src/vocabulary/records.ts";
import {
	addRun,
	allEvents,
	expectDeclaredOutput,
	makeProject,
	type Project,
	RFC3339_MS_UTC,
	UUID7,
} from "../_helpers/helpers.ts";

async function decide(p: Project, args: Record<string, unknown>): Promise<DecisionRecord> {
	const out = await p.call("decision.record", {
		decision: "use SQLite FTS5",
		rationale_md: "It ranks and stems.",
		decided_by: "architect-1",
		...args,
	});
	expectDeclaredOutput("decision.record", out);
	return out.decision as DecisionRecord;
}

/** The stored decision, read straight from the store (there is no decision read tool yet). */
const stored = (p: Project, id: string) => p.rt.store.withTransaction("read", (tx) => tx.decisions.get(id));

const events = async (p: Project) => (await allEvents(p)) as unknown as EventRecord[];
const decisionEvents = async (p: Project) => (await events(p)).filter((e) => e.type === "decision.recorded");

describe("decision.record", () => {
	test("returns the stored record with a D- id, null links, revision 1 and RFC 3339 timestamps", async () => {
		const p = await makeProject();
		const d = await decide(p, {
			decision: "adopt idempotency keys",
			rationale_md: "Clients retry after lost responses.",
			decided_by: "operator",
		});
		expect(d.id).toMatch(new RegExp(`^D-${UUID7}$`));
		expect(d).toMatchObject({
			decision: "adopt idempotency keys",
			rationale_md: "Clients retry after lost responses.",
			decided_by: "operator",
			proposal_id: null,
			task_id: null,
			run_id: null,
			revision: 1,
		});
		expect(d.created_at).toMatch(RFC3339_MS_UTC);
		expect(d.updated_at).toBe(d.created_at);
		expect(await stored(p, d.id)).toEqual(d);
	});

	test("links a task and a run that exist", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-d");
		await p.call("task.create", { task_id: "T-d", title: "t", body_md: "b" });
		const d = await decide(p, { task_id: "T-d", run_id: "RUN-d" });
		expect(d).toMatchObject({ task_id: "T-d", run_id: "RUN-d", proposal_id: null });
		expect(await stored(p, d.id)).toEqual(d);
	});

	test("appends decision.recorded with decided_by in the payload", async () => {
		const p = await makeProject();
		await addRun(p, "RUN-e");
		await p.call("task.create", { task_id: "T-e", title: "t", body_md: "b" });
		const d = await decide(p, {
			decision: "ship it",
			decided_by: "chair-1",
			task_id: "T-e",
			run_id: "RUN-e",
		});
		const evs = await decisionEvents(p);
		expect(evs).toHaveLength(1);
		const ev = evs[0] as EventRecord;
		expect(ev.actor_id).toBe("operator");
		expect(ev.task_id).toBe("T-e");
		expect(ev.run_id).toBe("RUN-e");
		expect(ev.created_at).toBe(d.created_at);
		expect(ev.payload).toEqual({
			decision_id: d.id,
			decision: "ship it",
			decided_by: "chair-1",
			proposal_id: null,
		});
	});

	test("a caller decision_id is used", async () => {
		const p = await makeProject();
		const d = await decide(p, { decision_id: "ADR-0001" });
		expect(d.id).toBe("ADR-0001");
		expect((await decisionEvents(p))[0]?.payload.decision_id).toBe("ADR-0001");
	});

	test("decisions are never overwritten: a reused decision_id is already_exists and the first stays", async () => {
		const p = await makeProject();
		const first = await decide(p, { decision_id: "ADR-7", decision: "use tabs" });
		const before = (await events(p)).length;
		const err = await p.fail("decision.record", {
			decision_id: "ADR-7",
			decision: "use spaces",
			rationale_md: "Changed my mind.",
			decided_by: "reviewer-1",
		});
		expect(err.code).toBe("already_exists");
		expect(err.message).toBe("decision ADR-7 already exists");
		expect(err.details).toEqual({ decision_id: "ADR-7" });
		expect(await stored(p, "ADR-7")).toEqual(first);
		expect((await events(p)).length).toBe(before);
	});

	test("two decisions with the same text are two records", async () => {
		const p = await makeProject();
		const a = await decide(p, {});
		const b = await decide(p, {});
		expect(a.id).not.toBe(b.id);
		expect(await stored(p, a.id)).toEqual(a);
		expect(await stored(p, b.id)).toEqual(b);
		expect(await decisionEvents(p)).toHaveLength(2);
	});

	test("a missing task, run or proposal is not_found and records nothing", async () => {
		const p = await makeProject();
		const cases: [Record<string, unknown>, string, Record<string, unknown>][] = [
			[{ task_id: "T-gone" }, "task T-gone not found", { task_id: "T-gone" }],
			[{ run_id: "RUN-gone" }, "run RUN-gone not found", { run_id: "RUN-gone" }],
			[{ proposal_id: "P-1" }, "proposal P-1 not found", { proposal_id: "P-1" }],
		];
		for (const [extra, message, details] of cases) {
			const before = (await events(p)).length;
			const err = await p.fail("decision.record", {
				decision_id: "D-try",
				decision: "x",
				rationale_md: "y",
				decided_by: "operator",
				...extra,
			});
			expect(err.code).toBe("not_found");
			expect(err.message).toBe(message);
			expect(err.details).toEqual(details);
			expect(await stored(p, "D-try")).toBeUndefined();
			expect((await events(p)).length).toBe(before);
		}
		// The id was never taken, so it is still free.
		expect((await decide(p, { decision_id: "D-try" })).id).toBe("D-try");
	});

	test("required fields may not be missing or blank; decided_by must be an id", async () => {
		const p = await makeProject();
		const full = { decision: "d", rationale_md: "r", decided_by: "operator" };
		for (const field of ["decision", "rationale_md", "decided_by"] as const) {
			const { [field]: _, ...without } = full;
			const missing = await p.fail("decision.record", without);
			expect(missing.code).toBe("invalid_argument");
			expect(missing.message).toBe(`missing required argument '${field}'`);
			const blank = await p.fail("decision.record", { ...full, [field]: "  " });
			expect(blank.code).toBe("invalid_argument");
			expect(blank.details).toEqual({ field });
		}
		const spaced = await p.fail("decision.record", { ...full, decided_by: "the architect" });
		expect(spaced.details).toEqual({ field: "decided_by" });
		expect(await decisionEvents(p)).toEqual([]);
	});

	test("decision.record takes no expected_revision: it never updates", async () => {
		const p = await makeProject();
		const err = await p.fail("decision.record", {
			decision: "d",
			rationale_md: "r",
			decided_by: "operator",
			expected_revision: 1,
		});
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toBe("unknown argument 'expected_revision'");
	});
});
