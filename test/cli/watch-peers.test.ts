// `roundtable watch` on peer question and message events: each line says which request or message it
// is about and between whom. The events are appended through the store with the payloads the peer
// and message tools write (those tools are built elsewhere); the CLI runs in process.
import { expect, test } from "bun:test";
import { nowIso } from "../../src/vocabulary/ids.ts";
import { cliHere } from "../_helpers/cli.ts";
import { makeProject } from "../_helpers/helpers.ts";

const p = await makeProject();

const EVENTS: [type: string, actor: string, payload: Record<string, unknown>][] = [
	[
		"peer.asked",
		"reviewer-1",
		{ request_id: "Q-1", requester_id: "reviewer-1", assignee_id: "implementer-1", proposal_id: null },
	],
	[
		"peer.answered",
		"implementer-1",
		{
			request_id: "Q-1",
			requester_id: "reviewer-1",
			assignee_id: "implementer-1",
			answer_id: "A-1",
			first: true,
		},
	],
	[
		"peer.cancelled",
		"reviewer-1",
		{ request_id: "Q-2", requester_id: "reviewer-1", assignee_id: "operator" },
	],
	[
		"peer.replied_late",
		"operator",
		{ request_id: "Q-2", requester_id: "reviewer-1", assignee_id: "operator", answer_id: "A-2" },
	],
	[
		"message.posted",
		"architect-1",
		{ message_id: "M-1", sender_id: "architect-1", to_agent_id: "implementer-1", thread_id: null },
	],
	[
		"message.posted",
		"architect-1",
		{ message_id: "M-2", sender_id: "architect-1", channel: "design", thread_id: "M-1" },
	],
	[
		"message.read",
		"implementer-1",
		{ reader_id: "implementer-1", message_ids: ["M-1", "M-3", "M-4", "M-5", "M-6"] },
	],
	[
		"message.promoted",
		"operator",
		{
			promotion_id: "PR-1",
			message_id: "M-2",
			kind: "task",
			task_id: "T-9",
			decision_id: null,
			promoted_by: "operator",
		},
	],
	[
		"message.promoted",
		"operator",
		{
			promotion_id: "PR-2",
			message_id: "M-1",
			kind: "decision",
			task_id: null,
			decision_id: "D-9",
			promoted_by: "operator",
		},
	],
];

test("watch prints who asked, answered, posted, read and promoted what", async () => {
	await p.rt.store.withTransaction("write", async (tx) => {
		for (const [type, actor_id, payload] of EVENTS)
			await tx.events.append({ type, actor_id, payload }, nowIso());
	});
	const r = await cliHere(["watch", "--limit", String(EVENTS.length), "--root", p.root]);
	expect([r.code, r.stderr]).toEqual([0, ""]);
	const lines = r.stdout.split("\n").filter((l) => l.startsWith("EVENT "));
	expect(lines.map((l) => l.replace(/^EVENT \d+ /, ""))).toEqual([
		"peer.asked reviewer-1 - Q-1 reviewer-1 → implementer-1",
		"peer.answered implementer-1 - Q-1 reviewer-1 → implementer-1 answer A-1",
		"peer.cancelled reviewer-1 - Q-2 reviewer-1 → operator",
		"peer.replied_late operator - Q-2 reviewer-1 → operator late answer A-2",
		"message.posted architect-1 - M-1 architect-1 → implementer-1",
		"message.posted architect-1 - M-2 architect-1 → #design in thread M-1",
		"message.read implementer-1 - implementer-1 read M-1, M-3, M-4 (+2 more)",
		"message.promoted operator - M-2 → task T-9",
		"message.promoted operator - M-1 → decision D-9",
	]);
});

test("a payload missing a field shows ? in its place, and other events are as before", async () => {
	await p.rt.store.withTransaction("write", async (tx) => {
		await tx.events.append({ type: "peer.asked", actor_id: "reviewer-1", payload: {} }, nowIso());
		await tx.events.append({ type: "task.created", actor_id: "operator", payload: { x: 1 } }, nowIso());
	});
	const r = await cliHere(["watch", "--limit", "2", "--root", p.root]);
	const lines = r.stdout.split("\n").filter((l) => l.startsWith("EVENT "));
	expect(lines.map((l) => l.replace(/^EVENT \d+ /, ""))).toEqual([
		"peer.asked reviewer-1 - ? ? → ?",
		"task.created operator -",
	]);
});
