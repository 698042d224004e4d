// Idempotency of the peer mutations (the dispatcher's, SPEC §4): the same key and arguments give
// the first result and no second effect, in this process and from another one (a retry after a
// lost response, made by a spawned bun process on the same project); other arguments are conflict.
import { describe, expect, test } from "bun:test";
import type { PeerAnswerRecord, PeerRequestRecord } from "../../src/vocabulary/records.ts";
import { atBarrier } from "../_helpers/helpers.ts";
import { ASSIGNEE, expectStored, peerEvents, peersProject, readRequest } from "../_helpers/peer-helpers.ts";

describe("peer mutations with an idempotency key", () => {
	test("each replays its first result in this process, with one effect; other arguments are conflict", async () => {
		const { p, ask, as, failAs, requester, assignee } = await peersProject();
		const asked = { assignee_agent_id: ASSIGNEE, question_md: "q", idempotency_key: "ask-1" };
		const first = await as(requester, "peer.ask", asked);
		expect(await as(requester, "peer.ask", asked)).toEqual(first);
		const conflicting = await failAs(requester, "peer.ask", { ...asked, question_md: "other" });
		expect(conflicting.code).toBe("conflict");
		const id = (first.request as PeerRequestRecord).id;

		const answer = { request_id: id, answer_md: "a", idempotency_key: "ans-1" };
		const answered = await as(assignee, "peer.answer", answer);
		expect(await as(assignee, "peer.answer", answer)).toEqual(answered);
		expect((await readRequest(p, id)).answers).toHaveLength(1);

		const cancel = { request_id: id, reason_md: "r", idempotency_key: "can-1" };
		const cancelled = await as(requester, "peer.cancel", cancel);
		// Without the key a second cancel is refused; with it, the first result comes back.
		expect(await as(requester, "peer.cancel", cancel)).toEqual(cancelled);
		expect((await failAs(requester, "peer.cancel", { request_id: id, reason_md: "r" })).code).toBe(
			"failed_precondition",
		);

		const late = { request_id: id, answer_md: "late", idempotency_key: "late-1" };
		const replied = await as(assignee, "peer.reply_late", late);
		expect(await as(assignee, "peer.reply_late", late)).toEqual(replied);

		await ask(); // a second request, without a key
		await expectStored(p, { requests: 2, answers: 2 });
		expect((await peerEvents(p)).map((e) => e.type)).toEqual([
			"peer.asked",
			"peer.answered",
			"peer.cancelled",
			"peer.replied_late",
			"peer.asked",
		]);
	});

	test("a retry from another process returns the first result and acts once", async () => {
		const { p, as, requester, assignee } = await peersProject();
		const asked = { assignee_agent_id: ASSIGNEE, question_md: "q", idempotency_key: "ask-x" };
		const first = await as(requester, "peer.ask", asked);
		const id = (first.request as PeerRequestRecord).id;
		const answer = { request_id: id, answer_md: "a", idempotency_key: "ans-x" };
		const answered = (await as(assignee, "peer.answer", answer)) as { answer: PeerAnswerRecord };

		// Two other processes retry each call as the same agent, at once (both see the same line).
		const retry = async (tool: string, args: object, principal: unknown) => {
			const children = await atBarrier("peer-call.ts", [[p.root], [p.root]]);
			const lines = await children.go(`${JSON.stringify({ tool, args, principal })}\n`);
			return lines.map((l) => JSON.parse(l) as { ok: boolean; result: unknown });
		};
		for (const replay of await retry("peer.ask", asked, requester.principal))
			expect(replay).toMatchObject({ ok: true, result: first });
		for (const replay of await retry("peer.answer", answer, assignee.principal))
			expect(replay).toMatchObject({ ok: true, result: answered });

		await expectStored(p, { requests: 1, answers: 1 });
		expect((await peerEvents(p)).map((e) => e.type)).toEqual(["peer.asked", "peer.answered"]);
	});
});
