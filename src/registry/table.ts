import { callerId, nonNegativeInt, safeInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import {
	agentRecord,
	approvalRecord,
	claimRecord,
	eventRecord,
	memoryRecord,
	proposalRecord,
	runRecord,
	securityReviewRecord,
	taskRecord,
	transactionRecord,
} from "../vocabulary/records.ts";
import { tool } from "./types.ts";

export const tableTools = [
	tool({
		name: "table.get_state",
		family: "table",
		access: "every",
		title: "Get table state",
		description:
			"Snapshot of runs, agents, tasks, claims, proposals, approvals, reviews and memory; call it first and on resume. Next: table.watch after its last_event_id.",
		details:
			"One consistent snapshot of the shared table: runs, agents, tasks, live claims (active or suspended), proposals, transactions, human approvals, security reviews and memory. `last_event_id` is the newest event in the snapshot: pass it to table.watch as `after_event_id` to follow on without missing anything. Votes and decisions are not included; read them with their own tools.",
		args: () => type({}),
		argDocs: {},
		output: () =>
			type({
				runs: runRecord().array(),
				agents: agentRecord().array(),
				tasks: taskRecord().array(),
				claims: claimRecord().array(),
				proposals: proposalRecord().array(),
				transactions: transactionRecord().array(),
				human_approvals: approvalRecord().array(),
				security_reviews: securityReviewRecord().array(),
				memory: memoryRecord().array(),
				last_event_id: "number.integer >= 0",
			}),
		mutates: false,
	}),
	tool({
		name: "table.watch",
		family: "table",
		access: "every",
		title: "Watch the table",
		description:
			"Events after a cursor, plus blocked tasks, pending proposals and approvals; use it to follow the table. Next: act on them, e.g. agent.turn_start on agent.turn_scheduled.",
		details:
			"Events plus a summary of work that needs attention. With `after_event_id` (cursor mode) it returns events after that id in ascending order, up to `limit`, with `has_more_events`; pass `next_after_event_id` back on the next call and no event is ever skipped. Without `after_event_id` it returns the newest `limit` events. `wait_ms` (up to 30000) waits for a matching event when there is none yet, then returns as soon as one exists. The summary (blocked tasks, pending proposals, required approvals, counts) covers the whole table; `run_id` filters only the events.",
		args: () =>
			type({
				"run_id?": callerId,
				"limit?": safeInt,
				"after_event_id?": nonNegativeInt,
				"wait_ms?": type("0 <= number.integer <= 30000").describe("an integer from 0 to 30000"),
			}),
		argDocs: {
			run_id: "Only this run's events.",
			limit: "Events per call (default 10).",
			after_event_id: "Cursor: 0, then next_after_event_id. Omit for the newest.",
			wait_ms: "Wait this long for an event.",
		},
		output: () =>
			type({
				run_id: "string | null",
				events: eventRecord().array(),
				next_after_event_id: nonNegativeInt,
				has_more_events: "boolean",
				transactions: transactionRecord().array(),
				blocked_tasks: taskRecord().array(),
				pending_proposals: proposalRecord().array(),
				required_approvals: approvalRecord().array(),
				active_claims: nonNegativeInt,
				suspended_claims: nonNegativeInt,
				open_tasks: nonNegativeInt,
				active_agents: nonNegativeInt,
			}),
		mutates: false,
	}),
] as const;
