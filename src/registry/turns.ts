import { callerId, nonBlank, positiveInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { eventRecord, turnRecord } from "../vocabulary/records.ts";
import { tool } from "./types.ts";

const lifecycle = type({ run_id: callerId, agent_id: callerId, request_event_id: positiveInt });
const lifecycleOutput = type({ event: eventRecord(), request_event_id: positiveInt, status: "string" });

export const turnTools = [
	tool({
		name: "agent.turn_request",
		family: "turns",
		access: { Implementer: { bound: "task" }, Chair: { bound: "run" } },
		actors: ["agent_id"],
		title: "Request a turn",
		description:
			"Queue for a turn in an active run (FIFO, one request per agent). Next: table.watch for your agent.turn_scheduled, then agent.turn_start.",
		details:
			"Queue a request for a turn in an active run (FIFO by event id; one outstanding request per agent per run). Returns the request's event id and queue position; a repeated request returns the outstanding one with `duplicate: true`. Then watch for the matching agent.turn_scheduled event. A scheduled turn holds a lease of `turns.lease_seconds`: not started within it, or started and not completed within it, it expires (agent.turn_expired), the queue moves on and the agent may request again.",
		args: () => type({ run_id: callerId, agent_id: callerId, reason_md: nonBlank }),
		argDocs: {
			run_id: "Run to take a turn in.",
			agent_id: "The requester: you.",
			reason_md: "What you will do.",
			idempotency_key: "No second request on retry.",
		},
		output: () =>
			type({
				request_event_id: positiveInt,
				agent_id: "string",
				queued: "boolean",
				duplicate: "boolean",
				queue_position: positiveInt,
			}),
		mutates: true,
	}),
	tool({
		name: "agent.turn_start",
		family: "turns",
		access: { Implementer: { bound: "task" }, Chair: { bound: "run" } },
		actors: ["agent_id"],
		title: "Start a scheduled turn",
		description:
			"Start your scheduled turn; its lease restarts. Next: do the work, then agent.turn_complete before the lease ends.",
		details:
			"Acknowledge a turn the Chair scheduled for you (after its agent.turn_scheduled event); the lease starts again from now.",
		args: () => lifecycle,
		argDocs: {
			run_id: "Run of the turn.",
			agent_id: "The turn's agent: you.",
			request_event_id: "From agent.turn_request.",
			idempotency_key: "Starts once on retry.",
		},
		output: () => lifecycleOutput,
		mutates: true,
	}),
	tool({
		name: "agent.turn_complete",
		family: "turns",
		access: { Implementer: { bound: "task" }, Chair: { bound: "run" } },
		actors: ["agent_id"],
		title: "Complete a turn",
		description: "End your started turn so the queue moves on. Next: agent.turn_request for another.",
		details: "Finish a started turn; the Chair schedules the next request on its next tick.",
		args: () => lifecycle,
		argDocs: {
			run_id: "Run of the turn.",
			agent_id: "The turn's agent: you.",
			request_event_id: "From agent.turn_request.",
			idempotency_key: "Completes once on retry.",
		},
		output: () => lifecycleOutput,
		mutates: true,
	}),
	tool({
		name: "turn.queue",
		family: "turns",
		visibility: "operator",
		title: "The turn queue",
		description: "Outstanding turn requests, oldest first, with their leases.",
		details:
			"Every outstanding turn request (requested, scheduled or started), oldest first, of every run or of one, with its status and lease. Read-only: the dashboard's view of the queue.",
		args: () => type({ "run_id?": callerId }),
		argDocs: { run_id: "Only this run's." },
		output: () => type({ turns: turnRecord().array() }),
		mutates: false,
	}),
] as const;
