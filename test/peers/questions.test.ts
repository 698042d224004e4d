// Peer questions through the real dispatcher and database: asking (kept with its requester and
// source), answering (every answer kept, the first makes it answered), cancelling, replying late
// (kept, still cancelled), the refusals (unknown, disabled, oneself, missing sources, 64 KiB,
// revisions) with nothing written, the events, and that a request never changes hands.
import { describe, expect, test } from "bun:test";
import { MAX_BODY_BYTES } from "../../src/peers/actor.ts";
import type { PeerAnswerRecord, PeerRequestRecord } from "../../src/vocabulary/records.ts";
import { addRun, disableAgent, RFC3339_MS_UTC, UUID7 } from "../_helpers/helpers.ts";
import {
	ASSIGNEE,
	expectStored,
	peerEvents,
	peersProject,
	REQUESTER,
	readRequest,
	THIRD,
} from "../_helpers/peer-helpers.ts";

describe("peer.ask", () => {
	test("an open request kept with its requester, assignee and source, and a peer.asked event", async () => {
		const { p, ask } = await peersProject();
		await addRun(p, "RUN-q");
		await p.call("task.create", { task_id: "T-q", title: "t", body_md: "b", run_id: "RUN-q" });
		const r = await ask({ task_id: "T-q", question_md: "Which port does the bridge use?" });
		expect(r.id).toMatch(new RegExp(`^Q-${UUID7}$`));
		expect(r).toMatchObject({
			requester_id: REQUESTER,
			assignee_id: ASSIGNEE,
			question_md: "Which port does the bridge use?",
			task_id: "T-q",
			proposal_id: null,
			status: "open",
			answered_at: null,
			cancelled_by: null,
			cancel_reason_md: null,
			cancelled_at: null,
			revision: 1,
		});
		expect(r.created_at).toMatch(RFC3339_MS_UTC);
		expect((await readRequest(p, r.id)).request).toEqual(r);
		const [event] = await peerEvents(p);
		expect(event).toMatchObject({
			type: "peer.asked",
			actor_id: REQUESTER,
			task_id: "T-q",
			payload: { request_id: r.id, requester_id: REQUESTER, assignee_id: ASSIGNEE, proposal_id: null },
		});
		// The task's run, so a watch of that run shows the question.
		const inRun = (await p.call("table.watch", { run_id: "RUN-q", after_event_id: 0 })) as {
			events: { type: string }[];
		};
		expect(inRun.events.map((e) => e.type)).toContain("peer.asked");
	});

	test("the operator asks as itself, or names an agent to ask as; a chosen request_id is kept", async () => {
		const { p } = await peersProject();
		const mine = (await p.call("peer.ask", { assignee_agent_id: ASSIGNEE, question_md: "q" }))
			.request as PeerRequestRecord;
		expect(mine.requester_id).toBe("operator");
		const named = (
			await p.call("peer.ask", {
				agent_id: REQUESTER,
				assignee_agent_id: "operator",
				question_md: "q",
				request_id: "Q-chosen",
			})
		).request as PeerRequestRecord;
		expect(named).toMatchObject({ id: "Q-chosen", requester_id: REQUESTER, assignee_id: "operator" });
		const taken = await p.fail("peer.ask", {
			assignee_agent_id: ASSIGNEE,
			question_md: "q",
			request_id: "Q-chosen",
		});
		expect(taken.code).toBe("already_exists");
		const unknown = await p.fail("peer.ask", {
			agent_id: "implementer-9",
			assignee_agent_id: ASSIGNEE,
			question_md: "q",
		});
		expect(unknown.code).toBe("not_found");
		expect(unknown.details).toMatchObject({ field: "agent_id", did_you_mean: expect.any(String) });
		await expectStored(p, { requests: 2, answers: 0 });
	});

	test("unknown, disabled and oneself as assignee, and missing sources, are refused with nothing written", async () => {
		const { p, requester, failAs } = await peersProject();
		await disableAgent(p, "tester-1");
		const cases: [Record<string, unknown>, string, Record<string, unknown>][] = [
			[{ assignee_agent_id: "implementr-2" }, "not_found", { did_you_mean: ASSIGNEE }],
			[{ assignee_agent_id: "tester-1" }, "failed_precondition", { agent_id: "tester-1" }],
			[{ assignee_agent_id: REQUESTER }, "invalid_argument", { field: "assignee_agent_id" }],
			[{ assignee_agent_id: ASSIGNEE, task_id: "T-none" }, "not_found", { task_id: "T-none" }],
			[{ assignee_agent_id: ASSIGNEE, proposal_id: "P-none" }, "not_found", { proposal_id: "P-none" }],
		];
		for (const [args, code, details] of cases) {
			const err = await failAs(requester, "peer.ask", { question_md: "q", ...args });
			expect({ args, code: err.code, details: err.details }).toMatchObject({ args, code, details });
		}
		// The operator asking itself is asking oneself too.
		expect((await p.fail("peer.ask", { assignee_agent_id: "operator", question_md: "q" })).code).toBe(
			"invalid_argument",
		);
		await expectStored(p, { requests: 0, answers: 0 });
		expect(await peerEvents(p)).toEqual([]);
	});

	test("a capability cannot ask as another agent", async () => {
		const { requester, failAs } = await peersProject();
		const err = await failAs(requester, "peer.ask", {
			agent_id: THIRD,
			assignee_agent_id: ASSIGNEE,
			question_md: "q",
		});
		expect(err.code).toBe("permission_denied");
		expect(err.details).toMatchObject({ field: "agent_id" });
	});
});

describe("64 KiB bodies", () => {
	const exactly = "x".repeat(MAX_BODY_BYTES);
	// Counted in bytes of UTF-8: 32,768 two-byte characters are exactly 64 KiB, one more is over.
	const wide = "é".repeat(MAX_BODY_BYTES / 2);

	test("exactly 64 KiB is taken; one byte (or one wide character) more is invalid_argument, nothing written", async () => {
		const { p, ask, as, failAs, assignee, requester } = await peersProject();
		const r = await ask({ question_md: exactly });
		await ask({ question_md: wide });
		for (const over of [`${exactly}x`, `${wide}é`]) {
			const err = await failAs(requester, "peer.ask", { assignee_agent_id: ASSIGNEE, question_md: over });
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toMatchObject({ field: "question_md", max_bytes: MAX_BODY_BYTES });
		}
		const overAnswer = await failAs(assignee, "peer.answer", { request_id: r.id, answer_md: `${exactly}x` });
		expect(overAnswer.details).toMatchObject({ field: "answer_md" });
		await as(assignee, "peer.answer", { request_id: r.id, answer_md: exactly });
		const overReason = await failAs(requester, "peer.cancel", { request_id: r.id, reason_md: `${exactly}x` });
		expect(overReason.details).toMatchObject({ field: "reason_md" });
		await as(requester, "peer.cancel", { request_id: r.id, reason_md: "moot" });
		const overLate = await failAs(assignee, "peer.reply_late", {
			request_id: r.id,
			answer_md: `${exactly}x`,
		});
		expect(overLate.details).toMatchObject({ field: "answer_md" });
		await expectStored(p, { requests: 2, answers: 1 });
		expect((await peerEvents(p)).map((e) => e.type)).toEqual([
			"peer.asked",
			"peer.asked",
			"peer.answered",
			"peer.cancelled",
		]);
	});
});

describe("the life of a request", () => {
	test("answered: the first answer makes it answered, a second is kept too, oldest first", async () => {
		const { p, ask, as, assignee, requester } = await peersProject();
		const r = await ask();
		const first = (await as(assignee, "peer.answer", {
			request_id: r.id,
			answer_md: "7117",
			expected_revision: 1,
		})) as { request: PeerRequestRecord; answer: PeerAnswerRecord };
		expect(first.answer.id).toMatch(new RegExp(`^QA-${UUID7}$`));
		expect(first.answer).toMatchObject({
			request_id: r.id,
			author_id: ASSIGNEE,
			answer_md: "7117",
			late: false,
		});
		expect(first.request).toMatchObject({ status: "answered", revision: 2 });
		expect(first.request.answered_at).toMatch(RFC3339_MS_UTC);

		const second = (await as(assignee, "peer.answer", {
			request_id: r.id,
			answer_md: "or 7118 over TLS",
		})) as {
			request: PeerRequestRecord;
			answer: PeerAnswerRecord;
		};
		// Later answers are kept beside the request, which does not change again.
		expect(second.request).toEqual(first.request);
		const read = await as(requester, "peer.request", { request_id: r.id });
		expect(read).toEqual({ request: first.request, answers: [first.answer, second.answer] });

		const events = await peerEvents(p);
		expect(events.map((e) => [e.type, e.actor_id, e.payload])).toEqual([
			["peer.asked", REQUESTER, expect.objectContaining({ request_id: r.id })],
			[
				"peer.answered",
				ASSIGNEE,
				{
					request_id: r.id,
					requester_id: REQUESTER,
					assignee_id: ASSIGNEE,
					answer_id: first.answer.id,
					first: true,
				},
			],
			[
				"peer.answered",
				ASSIGNEE,
				{
					request_id: r.id,
					requester_id: REQUESTER,
					assignee_id: ASSIGNEE,
					answer_id: second.answer.id,
					first: false,
				},
			],
		]);
	});

	test("cancelled: answering is refused toward peer.reply_late; a late reply is kept and it stays cancelled", async () => {
		const { p, ask, as, failAs, assignee, requester } = await peersProject();
		const r = await ask();
		const cancelled = (
			await as(requester, "peer.cancel", {
				request_id: r.id,
				reason_md: "found it in the README",
				expected_revision: 1,
			})
		).request as PeerRequestRecord;
		expect(cancelled).toMatchObject({
			status: "cancelled",
			cancelled_by: REQUESTER,
			cancel_reason_md: "found it in the README",
			answered_at: null,
			revision: 2,
		});
		expect(cancelled.cancelled_at).toMatch(RFC3339_MS_UTC);

		const refused = await failAs(assignee, "peer.answer", { request_id: r.id, answer_md: "7117" });
		expect(refused.code).toBe("failed_precondition");
		expect(refused.message).toContain("peer.reply_late");
		expect(refused.details).toMatchObject({ next: "peer.reply_late" });
		const again = await failAs(requester, "peer.cancel", { request_id: r.id, reason_md: "again" });
		expect(again.code).toBe("failed_precondition");

		const late = (await as(assignee, "peer.reply_late", {
			request_id: r.id,
			answer_md: "7117, for the record",
		})) as {
			request: PeerRequestRecord;
			answer: PeerAnswerRecord;
		};
		expect(late.answer).toMatchObject({ author_id: ASSIGNEE, late: true });
		expect(late.request).toEqual(cancelled);
		expect(await readRequest(p, r.id)).toEqual({ request: cancelled, answers: [late.answer] });

		const events = await peerEvents(p);
		expect(events.map((e) => e.type)).toEqual(["peer.asked", "peer.cancelled", "peer.replied_late"]);
		expect(events[1]?.actor_id).toBe(REQUESTER);
		expect(events[2]).toMatchObject({ actor_id: ASSIGNEE, payload: { answer_id: late.answer.id } });
	});

	test("a late reply only to a cancelled request: open or answered points to peer.answer", async () => {
		const { ask, as, failAs, assignee } = await peersProject();
		const r = await ask();
		const open = await failAs(assignee, "peer.reply_late", { request_id: r.id, answer_md: "a" });
		expect(open.code).toBe("failed_precondition");
		expect(open.details).toMatchObject({ status: "open", next: "peer.answer" });
		await as(assignee, "peer.answer", { request_id: r.id, answer_md: "a" });
		const answered = await failAs(assignee, "peer.reply_late", { request_id: r.id, answer_md: "b" });
		expect(answered.details).toMatchObject({ status: "answered", next: "peer.answer" });
	});

	test("an answered request may still be cancelled; answers stay", async () => {
		const { p, ask, as, assignee, requester } = await peersProject();
		const r = await ask();
		await as(assignee, "peer.answer", { request_id: r.id, answer_md: "a" });
		const { request } = (await as(requester, "peer.cancel", {
			request_id: r.id,
			reason_md: "done with it",
		})) as {
			request: PeerRequestRecord;
		};
		expect(request).toMatchObject({ status: "cancelled", revision: 3 });
		expect(request.answered_at).not.toBeNull();
		expect((await readRequest(p, r.id)).answers).toHaveLength(1);
	});

	test("a stale expected_revision is conflict with the current revision, and changes nothing", async () => {
		const { p, ask, as, failAs, assignee, requester } = await peersProject();
		const r = await ask();
		const early = await failAs(assignee, "peer.answer", {
			request_id: r.id,
			answer_md: "a",
			expected_revision: 2,
		});
		expect(early.code).toBe("conflict");
		expect(early.details).toEqual({ id: r.id, expected_revision: 2, actual_revision: 1 });
		await as(assignee, "peer.answer", { request_id: r.id, answer_md: "a", expected_revision: 1 });
		const stale = await failAs(requester, "peer.cancel", {
			request_id: r.id,
			reason_md: "r",
			expected_revision: 1,
		});
		expect(stale.details).toEqual({ id: r.id, expected_revision: 1, actual_revision: 2 });
		expect((await readRequest(p, r.id)).request).toMatchObject({ status: "answered", revision: 2 });
		await expectStored(p, { requests: 1, answers: 1 });
	});

	test("an unknown request is not_found for every tool", async () => {
		const { failAs, assignee } = await peersProject();
		for (const [tool, args] of [
			["peer.request", {}],
			["peer.answer", { answer_md: "a" }],
			["peer.wait", { wait_ms: 0 }],
			["peer.cancel", { reason_md: "r" }],
			["peer.reply_late", { answer_md: "a" }],
		] as const) {
			const err = await failAs(assignee, tool, { request_id: "Q-none", ...args });
			expect({ tool, code: err.code, details: err.details }).toEqual({
				tool,
				code: "not_found",
				details: { request_id: "Q-none" },
			});
		}
	});

	test("focus never reroutes: the request stays with its assignee whatever task it works on next", async () => {
		const { p, ask, as, assignee } = await peersProject();
		await p.call("task.create", { task_id: "T-1", title: "t", body_md: "b", assigned_agent_id: ASSIGNEE });
		const r = await ask({ task_id: "T-1" });
		// The task moves to another agent, and the assignee moves on to other work.
		await p.call("task.update_status", { task_id: "T-1", assigned_agent_id: THIRD });
		await p.call("task.create", { task_id: "T-2", title: "t", body_md: "b", assigned_agent_id: ASSIGNEE });
		await p.call("task.update_status", { task_id: "T-2", status: "in_progress" });
		expect((await readRequest(p, r.id)).request).toMatchObject({ assignee_id: ASSIGNEE, task_id: "T-1" });
		// Still the assignee's to answer, and not the task's new holder's.
		await as(assignee, "peer.answer", { request_id: r.id, answer_md: "a" });
	});
});
