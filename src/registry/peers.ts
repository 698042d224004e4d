// Peers (SPEC §9): addressed questions with retained answers, messages and channels, promotion of a
// message into proposed work, and the one-call briefing. Every tool's actor is `agent_id`: with a
// capability it is the caller; without one the operator names an agent or acts as `operator`.

import { callerId, nonBlank } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import {
	decisionRecord,
	messageRecord,
	peerAnswerRecord,
	peerRequestRecord,
	promotionRecord,
	taskRecord,
} from "../vocabulary/records.ts";
import { PROMOTION_KINDS, REQUEST_STATUSES, RISKS } from "../vocabulary/statuses.ts";
import { briefingRecord, inboxRecord } from "./peer-records.ts";
import { tool } from "./types.ts";

const listLimit = type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000");
const waitMs = type("0 <= number.integer <= 30000").describe("an integer from 0 to 30000");
const channelName = type(/^[a-z0-9-]{1,64}$/).describe("1 to 64 of a-z, 0-9 and -");
const withAnswers = () => type({ request: peerRequestRecord(), answers: peerAnswerRecord().array() });
const ACTOR = "You (default: your own id).";
const PAGE = { limit: "Page size (default 200).", cursor: "Previous next_cursor." } as const;

export const peerTools = [
	tool({
		name: "peer.list",
		family: "peers",
		access: "every",
		title: "List peers",
		description: "Who you can ask or message, and who is live. Next: peer.ask or message.post.",
		details:
			"The agents a question or message can be addressed to (id, role, enabled, whether a live session holds them: one not ended, revoked or expired), and `operator`, the person running the table: role `operator`, always enabled, never live (no session holds it; what is addressed to it waits until the person looks). Sorted by id.",
		args: () => type({ "limit?": listLimit, "cursor?": nonBlank }),
		argDocs: PAGE,
		output: () =>
			type({
				peers: type({ id: "string", role: "string", enabled: "boolean", live: "boolean" }).array(),
				next_cursor: "string | null",
			}),
		mutates: false,
	}),
	tool({
		name: "peer.ask",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		ownId: "request_id",
		title: "Ask a peer",
		description: "Ask one agent (or operator) a question; it stays open until answered. Next: peer.wait.",
		details:
			"An addressed question, kept with its requester and source (task, proposal). It stays with its assignee whatever the assignee works on next. Asking an unknown agent is `not_found`, a disabled one `failed_precondition`, yourself `invalid_argument`.",
		args: () =>
			type({
				"agent_id?": callerId,
				assignee_agent_id: callerId,
				question_md: nonBlank,
				"task_id?": callerId,
				"proposal_id?": callerId,
				"request_id?": callerId,
			}),
		argDocs: {
			agent_id: ACTOR,
			assignee_agent_id: "Who answers (peer.list).",
			question_md: "The question (64 KiB max).",
			task_id: "Task it is about.",
			proposal_id: "Proposal it is about.",
			request_id: "Own id (default new Q-).",
			idempotency_key: "Asks once on retry.",
		},
		output: () => type({ request: peerRequestRecord() }),
		mutates: true,
	}),
	tool({
		name: "peer.request",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Read a request",
		description: "A question you asked or were asked, with every answer. Next: peer.answer or peer.wait.",
		details: "Readable by its requester, its assignee and the operator.",
		args: () => type({ "agent_id?": callerId, request_id: callerId }),
		argDocs: { agent_id: ACTOR, request_id: "From peer.ask." },
		output: withAnswers,
		mutates: false,
	}),
	tool({
		name: "peer.answer",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Answer a request",
		description: "Answer a question addressed to you; answer again to add more. Next: message.inbox.",
		details:
			"The assignee (or the operator) answers; every answer is kept, the first makes the request `answered`. A cancelled request takes peer.reply_late instead.",
		args: () => type({ "agent_id?": callerId, request_id: callerId, answer_md: nonBlank }),
		argDocs: {
			agent_id: ACTOR,
			request_id: "Request to answer.",
			answer_md: "The answer (64 KiB max).",
			idempotency_key: "Answers once on retry.",
			expected_revision: "Request revision you read.",
		},
		output: () => type({ request: peerRequestRecord(), answer: peerAnswerRecord() }),
		mutates: true,
		updates: true,
	}),
	tool({
		name: "peer.wait",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Wait for an answer",
		description:
			"Wait up to wait_ms for an answer or cancellation; the request stays open. Next: peer.request.",
		details:
			"Returns as soon as the request is answered or cancelled, else at the timeout with the request still open (`timed_out: true`): a bounded wait never closes it.",
		args: () => type({ "agent_id?": callerId, request_id: callerId, "wait_ms?": waitMs }),
		argDocs: { agent_id: ACTOR, request_id: "Request to wait on.", wait_ms: "Max wait (default 10000)." },
		output: () => withAnswers().merge({ timed_out: "boolean" }),
		mutates: false,
	}),
	tool({
		name: "peer.cancel",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Cancel a request",
		description: "Withdraw a question you asked; a late reply never reopens it. Next: peer.ask anew.",
		details: "The requester (or the operator) cancels an open or answered request, with a reason.",
		args: () => type({ "agent_id?": callerId, request_id: callerId, reason_md: nonBlank }),
		argDocs: {
			agent_id: ACTOR,
			request_id: "Request to cancel.",
			reason_md: "Why.",
			idempotency_key: "Cancels once on retry.",
			expected_revision: "Request revision you read.",
		},
		output: () => type({ request: peerRequestRecord() }),
		mutates: true,
		updates: true,
		destructive: true,
	}),
	tool({
		name: "peer.reply_late",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Reply to a cancelled request",
		description: "Answer a cancelled request; kept, never reopening it. Next: message.inbox.",
		details:
			"The assignee's reply to a cancelled request: kept with it (`late: true`); the request stays cancelled.",
		args: () => type({ "agent_id?": callerId, request_id: callerId, answer_md: nonBlank }),
		argDocs: {
			agent_id: ACTOR,
			request_id: "Cancelled request.",
			answer_md: "The reply (64 KiB max).",
			idempotency_key: "Replies once on retry.",
		},
		output: () => type({ request: peerRequestRecord(), answer: peerAnswerRecord() }),
		mutates: true,
	}),
	tool({
		name: "message.post",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Post a message",
		description:
			"Message one agent (to_agent_id) or a channel; stored and delivered at once. Next: message.inbox.",
		details:
			"Exactly one target: an agent (or `operator`), or a channel named [a-z0-9-]{1,64}, made by its first post. Posted means delivered: the message is in the addressee's inbox or the channel.",
		args: () =>
			type({
				"agent_id?": callerId,
				"to_agent_id?": callerId,
				"channel?": channelName,
				body_md: nonBlank,
				"thread_id?": callerId,
			}),
		argDocs: {
			agent_id: ACTOR,
			to_agent_id: "Addressee (or channel).",
			channel: "Channel (or to_agent_id).",
			body_md: "The message (64 KiB max).",
			thread_id: "Message it replies to.",
			idempotency_key: "Posts once on retry.",
		},
		output: () => type({ message: messageRecord() }),
		mutates: true,
	}),
	tool({
		name: "message.inbox",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Read your inbox",
		description:
			"Messages to you and open questions for you; waits with wait_ms. Next: peer.answer, message.mark_read.",
		details:
			"Your addressed messages (oldest first, paged) and the open requests addressed to you; the operator's also lists human approvals awaiting a decision. With `wait_ms`, an empty inbox waits for something new. Reading does not mark read.",
		args: () =>
			type({
				"agent_id?": callerId,
				"unread_only?": "boolean",
				"wait_ms?": waitMs,
				"limit?": listLimit,
				"cursor?": nonBlank,
			}),
		argDocs: {
			agent_id: ACTOR,
			unread_only: "Only unread (default true).",
			wait_ms: "Wait when empty (default 0).",
			...PAGE,
		},
		output: inboxRecord,
		mutates: false,
	}),
	tool({
		name: "message.mark_read",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Mark messages read",
		description: "Mark messages to you (or in a channel) read. Next: message.inbox.",
		details: "Read is its own outcome, apart from delivery; a message read before keeps its first read time.",
		args: () =>
			type({ "agent_id?": callerId, message_ids: callerId.array().atLeastLength(1).atMostLength(1000) }),
		argDocs: {
			agent_id: ACTOR,
			message_ids: "Messages read (1-1000).",
			idempotency_key: "Marks once on retry.",
		},
		output: () => type({ messages: messageRecord().array(), marked: "number.integer >= 0" }),
		mutates: true,
	}),
	tool({
		name: "channel.list",
		family: "peers",
		access: "every",
		title: "List channels",
		description: "Channels with their message counts. Next: channel.messages.",
		details: "Every channel, by name, with its message count and latest post.",
		args: () => type({ "limit?": listLimit, "cursor?": nonBlank }),
		argDocs: PAGE,
		output: () =>
			type({
				channels: type({
					channel: "string",
					message_count: "number.integer",
					last_message_at: "string",
				}).array(),
				next_cursor: "string | null",
			}),
		mutates: false,
	}),
	tool({
		name: "channel.messages",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Read a channel",
		description: "A channel's messages, oldest first. Next: message.post to it, or message.promote.",
		details: "Channels are quiet: nothing arrives in an inbox; read one when you choose.",
		args: () =>
			type({ "agent_id?": callerId, channel: channelName, "limit?": listLimit, "cursor?": nonBlank }),
		argDocs: { agent_id: ACTOR, channel: "Channel name.", ...PAGE },
		output: () =>
			type({ channel: "string", messages: messageRecord().array(), next_cursor: "string | null" }),
		mutates: false,
	}),
	tool({
		name: "message.promote",
		family: "peers",
		access: { Architect: {}, Chair: {} },
		actors: ["agent_id"],
		title: "Promote a message",
		description: "Make a message a proposed task or decision; starts nothing. Next: promotion.list.",
		details:
			"A `proposed` task (never assigned, started or added to a run by the Chair; the operator opens it with task.update_status) or a `proposed` decision, linked to the message. Promotion never starts, assigns or accepts work.",
		args: () =>
			type({
				"agent_id?": callerId,
				message_id: callerId,
				as: type.enumerated(...PROMOTION_KINDS),
				"title?": nonBlank,
				"risk?": type.enumerated(...RISKS),
			}),
		argDocs: {
			agent_id: ACTOR,
			message_id: "Message to promote.",
			as: "task or decision.",
			title: "Task title / decision (default: first line).",
			risk: "Task risk (default normal).",
			idempotency_key: "Promotes once on retry.",
		},
		output: () =>
			type({
				promotion: promotionRecord(),
				task: taskRecord().or("null"),
				decision: decisionRecord().or("null"),
			}),
		mutates: true,
	}),
	tool({
		name: "promotion.list",
		family: "peers",
		access: "every",
		title: "List promotions",
		description: "Messages promoted into proposed tasks and decisions. Next: task.get.",
		details: "Every promotion, oldest first, with the message and the task or decision it made.",
		args: () => type({ "message_id?": callerId, "limit?": listLimit, "cursor?": nonBlank }),
		argDocs: { message_id: "Only this message's.", ...PAGE },
		output: () => type({ promotions: promotionRecord().array(), next_cursor: "string | null" }),
		mutates: false,
	}),
	tool({
		name: "agent.brief",
		family: "peers",
		access: "every",
		actors: ["agent_id"],
		title: "Brief me",
		description:
			"Call first: your task, claims, proposals, questions, messages. Next: its next action, e.g. resource.claim.",
		details:
			"In one call what an agent needs to (re)start: its current task, active claims, pending proposals with their gate status, unanswered questions to and from it, unread messages, the latest decisions and the required next action. `roundtable resume` prints the same.",
		args: () => type({ "agent_id?": callerId }),
		argDocs: { agent_id: ACTOR },
		output: briefingRecord,
		mutates: false,
	}),
	tool({
		name: "peer.questions",
		family: "peers",
		visibility: "operator",
		title: "Every agent's questions",
		description: "Peer requests between any agents, oldest first; the open ones by default.",
		details:
			"Peer requests table-wide, whoever asked and whoever is asked, oldest first: the open ones unless `status` says otherwise. Read-only: the dashboard's list of open questions.",
		args: () => type({ "status?": type.enumerated(...REQUEST_STATUSES), "limit?": listLimit }),
		argDocs: { status: "Default open.", limit: "At most (default 200)." },
		output: () => type({ requests: peerRequestRecord().array() }),
		mutates: false,
	}),
	tool({
		name: "message.list",
		family: "peers",
		visibility: "operator",
		title: "Every message",
		description: "The newest messages to anyone or any channel, newest first.",
		details:
			"The newest messages table-wide, to any agent, the operator or any channel, newest first; `read_at` is the operator's own. Read-only: the dashboard's message list.",
		args: () => type({ "limit?": listLimit }),
		argDocs: { limit: "At most (default 50)." },
		output: () => type({ messages: messageRecord().array() }),
		mutates: false,
	}),
] as const;
