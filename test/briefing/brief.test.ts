// agent.brief through the dispatcher on a real git repository and SQLite file: an implementer's
// task, claims, two pending proposals (one failing a gate its author can fix, one passing every
// gate), questions to and from it, unread messages and decisions; the order of the next action as
// these change; who may be briefed with a capability; the operator's own briefing. Questions and
// messages are written through the store (their tools are built elsewhere).
import { beforeAll, describe, expect, test } from "bun:test";
import type { Briefing } from "../../src/briefing/build.ts";
import { call } from "../../src/dispatch.ts";
import { nowIso } from "../../src/vocabulary/ids.ts";
import { type Flow, flow } from "../_helpers/flow-helpers.ts";
import { agentContext, diffOf, expectDeclaredOutput } from "../_helpers/helpers.ts";

const f: Flow = await flow({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
let failing: string;
let passing: string;
let heldB: string;

/** A moment `n` ms from a fixed start, so rows sort in the order the test wrote them. */
const at = (n: number) => new Date(Date.parse("2030-01-01T00:00:00.000Z") + n).toISOString();

const ask = (id: string, from: string, to: string, question: string, n: number) =>
	f.p.rt.store.withTransaction("write", (tx) =>
		tx.peers.insert(
			{ id, requester_id: from, assignee_id: to, question_md: question, task_id: f.task, proposal_id: null },
			at(n),
		),
	);

const post = (id: string, from: string, to: string, body: string, n: number) =>
	f.p.rt.store.withTransaction("write", (tx) =>
		tx.messages.insert(
			{ id, sender_id: from, to_agent_id: to, channel: null, thread_id: null, body_md: body },
			at(n),
		),
	);

async function brief(args: Record<string, unknown> = { agent_id: "implementer-1" }, ctx = f.p.ctx) {
	const out = await call(f.p.rt, "agent.brief", args, ctx);
	expectDeclaredOutput("agent.brief", out);
	return out as Briefing;
}

beforeAll(async () => {
	// The task is assigned to no one: the briefing finds it through implementer-1's claims.
	await f.call("task.update_status", { task_id: f.task, status: "in_progress" });
	await f.claim("implementer-1", "a.txt");
	heldB = await f.claim("implementer-1", "b.txt");
	failing = (await f.propose({ title: "Edit b", patch: diffOf(f.p.root, "b.txt", "B\n") })).id;
	passing = (await f.propose({ title: "Edit a", patch: diffOf(f.p.root, "a.txt", "A\n") })).id;
	await f.vote(passing, "reviewer-1");
	await f.vote(passing, "architect-1");
	// Without its claim on b.txt, the first proposal fails the claims gate.
	await f.call("resource.release", { claim_id: heldB, agent_id: "implementer-1" });
	for (const [i, d] of ["Use SQLite", "Keep tokens out of logs", "Rotate keys", "Ship weekly"].entries())
		await f.call("decision.record", {
			decision_id: `D-${i + 1}`,
			decision: d,
			rationale_md: "Because.",
			decided_by: "chair-1",
		});
	await ask("Q-to", "reviewer-1", "implementer-1", "Which token format?\nJWT or opaque.", 1);
	await ask("Q-from", "implementer-1", "operator", "May I touch c.txt?", 2);
	await ask("Q-other", "reviewer-1", "tester-1", "Not yours.", 3);
	await post("M-1", "reviewer-1", "implementer-1", "Read already.", 4);
	await post("M-2", "architect-1", "implementer-1", "See the design note.\nSecond line.", 5);
	await post("M-op", "implementer-1", "operator", "Blocked on review.", 6);
	await f.p.rt.store.withTransaction("write", (tx) => tx.messages.markRead(["M-1"], "implementer-1", at(7)));
});

describe("agent.brief", () => {
	test("an implementer's task, claims, proposals with their gates, questions, messages and decisions", async () => {
		const b = await brief();
		expect(b.agent_id).toBe("implementer-1");
		expect(b.task?.id).toBe(f.task);
		expect(b.claims.map((c) => c.resource_id)).toEqual(["file:a.txt"]);
		const gates = Object.fromEntries(b.pending_proposals.map((p) => [p.proposal.id, p]));
		expect(b.pending_proposals.map((p) => p.proposal.id)).toEqual([passing, failing]);
		expect(gates[failing]).toMatchObject({ valid: false, approvable: false });
		expect(gates[failing]?.failing_gates).toContain("claims");
		expect(gates[passing]).toMatchObject({ valid: true, approvable: true, failing_gates: [] });
		expect(b.questions_to_me.map((q) => q.id)).toEqual(["Q-to"]);
		expect(b.questions_from_me.map((q) => q.id)).toEqual(["Q-from"]);
		expect(b.unread_messages.map((m) => m.id)).toEqual(["M-2"]);
		expect(b.unread_count).toBe(1);
		expect(b.latest_decisions.map((d) => d.id)).toEqual(["D-4", "D-3", "D-2"]);
		expect(b.required_next_action).toBe(
			"Answer Q-to from reviewer-1 with peer.answer: Which token format? You have 1 unread message: read it with message.inbox.",
		);
		// A briefing reads; it marks nothing read.
		expect((await brief()).unread_count).toBe(1);
	});

	test("the next action: a question to answer, then a gate to fix, then the proposal, then the task", async () => {
		const now = nowIso();
		await f.p.rt.store.withTransaction("write", async (tx) => {
			await tx.peers.markAnswered("Q-to", now);
			await tx.messages.markRead(["M-2"], "implementer-1", now);
		});
		let b = await brief();
		expect(b.questions_to_me).toEqual([]);
		expect(b.unread_count).toBe(0);
		expect(b.required_next_action).toBe(
			`Fix the claims gate of proposal ${failing} (Edit b), then check it again with patch.validate.`,
		);
		await f.call("proposal.withdraw", { proposal_id: failing, agent_id: "implementer-1" });
		b = await brief();
		expect(b.required_next_action).toBe(
			`Review proposal ${passing} (Edit a) and address any blocking feedback before revising or resubmitting it.`,
		);
		await f.call("proposal.withdraw", { proposal_id: passing, agent_id: "implementer-1" });
		b = await brief();
		expect(b.pending_proposals).toEqual([]);
		expect(b.required_next_action).toBe(`Resume task ${f.task}: Change things`);
	});

	test("with a capability: agent_id defaults to the caller, another agent's is refused", async () => {
		const me = await agentContext(f.p, "implementer-1");
		expect((await brief({}, me)).agent_id).toBe("implementer-1");
		expect((await brief({ agent_id: "implementer-1" }, me)).task?.id).toBe(f.task);
		const denied = await f.fail("agent.brief", { agent_id: "reviewer-1" }, me);
		expect(denied.code).toBe("permission_denied");
		expect(denied.message).toContain("agent_id must be you (implementer-1)");
	});

	test("the operator's own briefing: its questions and messages, no task; any agent by name", async () => {
		const b = await brief({});
		expect(b.agent_id).toBe("operator");
		expect(b).toMatchObject({ task: null, claims: [], pending_proposals: [], questions_from_me: [] });
		expect(b.questions_to_me.map((q) => q.id)).toEqual(["Q-from"]);
		expect(b.unread_messages.map((m) => m.id)).toEqual(["M-op"]);
		expect(b.required_next_action).toBe(
			"Answer Q-from from implementer-1 with peer.answer: May I touch c.txt? You have 1 unread message: read it with message.inbox.",
		);
		expect((await brief({ agent_id: "tester-1" })).questions_to_me.map((q) => q.id)).toEqual(["Q-other"]);
	});

	test("an unknown agent is not_found, with the nearest id", async () => {
		const err = await f.fail("agent.brief", { agent_id: "implementr-1" });
		expect(err.code).toBe("not_found");
		expect(err.message).toBe("agent implementr-1 not found (did you mean 'implementer-1'?)");
	});
});
