// The shapes message.inbox and agent.brief return: views over several records, not records of their own.
import { type } from "../vocabulary/arktype.ts";
import {
	approvalRecord,
	claimRecord,
	decisionRecord,
	messageRecord,
	peerRequestRecord,
	proposalRecord,
	taskRecord,
} from "../vocabulary/records.ts";

export const inboxRecord = () =>
	type({
		agent_id: "string",
		messages: messageRecord().array(),
		/** Open requests addressed to the actor, oldest first. */
		requests: peerRequestRecord().array(),
		/** The operator's: human approvals awaiting a decision (empty for an agent). */
		approvals: approvalRecord().array(),
		unread_count: "number.integer >= 0",
		next_cursor: "string | null",
	});

export const briefingRecord = () =>
	type({
		agent_id: "string",
		task: taskRecord().or("null"),
		claims: claimRecord().array(),
		pending_proposals: type({
			proposal: proposalRecord(),
			valid: "boolean",
			approvable: "boolean",
			failing_gates: "string[]",
		}).array(),
		questions_to_me: peerRequestRecord().array(),
		questions_from_me: peerRequestRecord().array(),
		unread_messages: messageRecord().array(),
		unread_count: "number.integer >= 0",
		latest_decisions: decisionRecord().array(),
		required_next_action: "string",
	});
