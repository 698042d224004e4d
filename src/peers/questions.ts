// A peer question's life, each step one transaction: asked (open), answered (the first answer makes
// it `answered`, later ones are kept too), cancelled by its requester, and replied to late (kept
// with the cancelled request, which stays cancelled). Nothing here ever changes a request's
// assignee: the question stays with whom it was asked of, whatever that agent works on next.

import { failedPrecondition } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { checkRevision, newRecordId, requireProposal, requireTask } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";
import type { PeerAnswerRecord, PeerRequestRecord } from "../vocabulary/records.ts";
import { actorIn, checkBody, notSelf, requireAddressee } from "./actor.ts";
import {
	appendPeerEvent,
	mustBeAssignee,
	mustBeRequester,
	mustRead,
	requireRequest,
	withAnswers,
} from "./requests.ts";

export async function ask(tx: Tx, a: Args<"peer.ask">, env: Env): Promise<{ request: PeerRequestRecord }> {
	const actor = await actorIn(tx, env, a.agent_id);
	checkBody("question_md", a.question_md);
	notSelf(actor, a.assignee_agent_id, "assignee_agent_id");
	const assignee = await requireAddressee(tx, a.assignee_agent_id, "assignee_agent_id");
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	if (a.proposal_id !== undefined) await requireProposal(tx, a.proposal_id);
	const id = await newRecordId(
		"request",
		{ field: "request_id", value: a.request_id, label: "request" },
		(id) => tx.peers.get(id),
	);
	const request = await tx.peers.insert(
		{
			id,
			requester_id: actor,
			assignee_id: assignee,
			question_md: a.question_md,
			task_id: a.task_id ?? null,
			proposal_id: a.proposal_id ?? null,
		},
		env.now,
	);
	await appendPeerEvent(tx, env, "peer.asked", actor, request, { proposal_id: request.proposal_id });
	return { request };
}

/** peer.request: the request and its answers, for its requester, its assignee and the operator. */
export async function request(tx: Tx, a: Args<"peer.request">, env: Env) {
	const actor = await actorIn(tx, env, a.agent_id);
	const request = await requireRequest(tx, a.request_id);
	mustRead(env, actor, request);
	return withAnswers(tx, request);
}

export async function answer(
	tx: Tx,
	a: Args<"peer.answer">,
	env: Env,
): Promise<{ request: PeerRequestRecord; answer: PeerAnswerRecord }> {
	const actor = await actorIn(tx, env, a.agent_id);
	let request = await requireRequest(tx, a.request_id);
	mustBeAssignee(env, actor, request, "answer");
	if (request.status === "cancelled") {
		throw failedPrecondition(
			`request ${request.id} was cancelled; reply to it with peer.reply_late (kept with it, it stays cancelled)`,
			{ request_id: request.id, status: request.status, next: "peer.reply_late" },
		);
	}
	checkRevision(request, a.expected_revision);
	checkBody("answer_md", a.answer_md);
	const first = request.status === "open";
	const answer = await tx.peers.addAnswer(
		{ id: mintId("answer"), request_id: request.id, author_id: actor, answer_md: a.answer_md, late: false },
		env.now,
	);
	// Only the first answer changes the request; later ones are kept beside it.
	if (first) request = await tx.peers.markAnswered(request.id, env.now);
	await appendPeerEvent(tx, env, "peer.answered", actor, request, { answer_id: answer.id, first });
	return { request, answer };
}

export async function cancel(
	tx: Tx,
	a: Args<"peer.cancel">,
	env: Env,
): Promise<{ request: PeerRequestRecord }> {
	const actor = await actorIn(tx, env, a.agent_id);
	const found = await requireRequest(tx, a.request_id);
	mustBeRequester(env, actor, found);
	if (found.status === "cancelled") {
		throw failedPrecondition(`request ${found.id} is already cancelled`, {
			request_id: found.id,
			status: found.status,
		});
	}
	checkRevision(found, a.expected_revision);
	checkBody("reason_md", a.reason_md);
	const request = await tx.peers.cancel(found.id, actor, a.reason_md, env.now);
	await appendPeerEvent(tx, env, "peer.cancelled", actor, request);
	return { request };
}

export async function replyLate(
	tx: Tx,
	a: Args<"peer.reply_late">,
	env: Env,
): Promise<{ request: PeerRequestRecord; answer: PeerAnswerRecord }> {
	const actor = await actorIn(tx, env, a.agent_id);
	const request = await requireRequest(tx, a.request_id);
	mustBeAssignee(env, actor, request, "reply late to");
	if (request.status !== "cancelled") {
		throw failedPrecondition(
			`request ${request.id} is ${request.status}, not cancelled; answer it with peer.answer`,
			{ request_id: request.id, status: request.status, next: "peer.answer" },
		);
	}
	checkBody("answer_md", a.answer_md);
	// Kept with the request, marked late; the request itself stays as it is: cancelled.
	const answer = await tx.peers.addAnswer(
		{ id: mintId("answer"), request_id: request.id, author_id: actor, answer_md: a.answer_md, late: true },
		env.now,
	);
	await appendPeerEvent(tx, env, "peer.replied_late", actor, request, { answer_id: answer.id });
	return { request, answer };
}
