// The runs family's tools (see FAMILIES in ./types.ts): the operator opens runs; the Chair's tick
// is a handful of internal batch calls, each one transaction, so a tick stays a few commits however
// many records it touches.

import { CONVERGENCE } from "../domain/convergence.ts";
import { callerId, nonBlank, nonNegativeInt, positiveInt } from "../domain/scalars.ts";
import { ERROR_CODES } from "../errors.ts";
import { type } from "../vocabulary/arktype.ts";
import { eventRecord, runRecord } from "../vocabulary/records.ts";
import { tool } from "./types.ts";

const runArg = type({ run_id: callerId });

export const runTools = [
	tool({
		name: "run.open",
		family: "runs",
		visibility: "operator",
		title: "Open a run",
		description: "Create a run, continue an active one, or resume an ended one.",
		details:
			"Create a run (active; `run_id` default a new RUN- id), continue an active one (its goal updated when one is given), or with `resume` make an ended one active again (without `run_id`: the latest run). An ended run without `resume` is `failed_precondition`, so a typo never revives one. A `run.created`, `run.updated` or `run.resumed` event. `autopilot` turns the Chair's launching of the run's sessions on or off (a `run.autopilot` event when it changes; on again after a pause). `scope` names the folders and files the run's work lies in (default: the whole repository): the Architect's tasks keep their readable_paths inside it.",
		args: () =>
			type({
				"run_id?": callerId,
				"goal?": "string",
				"scope?": nonBlank.array().atMostLength(100),
				"resume?": "boolean",
				"autopilot?": "boolean",
			}),
		argDocs: {
			run_id: "The run (default a new id; with resume, the latest).",
			goal: "What the run is for.",
			scope: "Folders and files its work lies in (default all).",
			resume: "Make an ended run active again.",
			autopilot: "The Chair starts its sessions (true) or not (false); default as it was.",
			idempotency_key: "Opens once on retry.",
		},
		output: () => type({ run: runRecord(), action: "'created' | 'continued' | 'resumed'" }),
		mutates: true,
	}),
	tool({
		name: "chair.expire",
		family: "runs",
		visibility: "internal",
		title: "Expire leases",
		description: "Record claims whose lease ran out, and expire the run's turns whose lease ended.",
		details:
			"Every claim whose lease ran out becomes `expired` (`claim.expired`); every scheduled or started turn of the run whose lease ended becomes `expired` (`agent.turn_expired`), so the queue moves on.",
		args: () => runArg,
		argDocs: { run_id: "The run ticked.", idempotency_key: "Expires once on retry." },
		output: () => type({ expired_claims: nonNegativeInt, expired_turns: nonNegativeInt }),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "chair.assign_tasks",
		family: "runs",
		visibility: "internal",
		title: "Assign open tasks",
		description: "Give the run's open, unassigned tasks round-robin to the enabled implementers.",
		details:
			"Open, unassigned tasks of the run (or of no run, which the run then adopts) go round-robin to the enabled implementers, from the one after the last agent served (kept across ticks and restarts). Each is `in_progress` with a `task.assigned` event.",
		args: () => runArg,
		argDocs: { run_id: "The run ticked.", idempotency_key: "Assigns once on retry." },
		output: () => type({ assigned: type({ task_id: "string", agent_id: "string" }).array() }),
		mutates: true,
	}),
	tool({
		name: "chair.schedule_turn",
		family: "runs",
		visibility: "internal",
		title: "Schedule the next turn",
		description: "When no turn holds the floor in the run, give it to the oldest request.",
		details:
			"One turn at a time per run: when none is scheduled or started, the oldest requested turn is scheduled with a lease of `turns.lease_seconds` (`agent.turn_scheduled`). Returns its request event id, or null.",
		args: () => runArg,
		argDocs: { run_id: "The run ticked.", idempotency_key: "Schedules once on retry." },
		output: () => type({ scheduled: positiveInt.or("null") }),
		mutates: true,
	}),
	tool({
		name: "chair.request_reviews",
		family: "runs",
		visibility: "internal",
		title: "Request reviews of pending proposals",
		description: "Send every pending proposal of the run to review, in one transaction.",
		details:
			"What `proposal.request_review` does, for every pending proposal of the run (or of no run, through its task) at once: the policy and each stored patch are read once, then each proposal goes `in_review` with a `proposal.review_requested` event. A proposal that cannot be sent (a poison record, a policy that does not load) is returned under `failed` with its error and changes nothing; the others still go.",
		args: () => runArg,
		argDocs: { run_id: "The run ticked.", idempotency_key: "Requests once on retry." },
		output: () =>
			type({
				requested: "string[]",
				failed: type({
					proposal_id: "string",
					code: type.enumerated(...ERROR_CODES),
					message: "string",
				}).array(),
			}),
		mutates: true,
	}),
	tool({
		name: "run.stop",
		family: "runs",
		visibility: "operator",
		title: "Stop a run's autopilot",
		description: "Stop launching sessions for a run and stop the ones it has running.",
		details:
			"The autopilot launches nothing more for the run (its `autopilot` off), and each of the run's headless sessions this owner runs is stopped: its agent gets SIGTERM, SIGKILL 10 s later, and the session closes as at any end. The run stays active; `run.open` with `autopilot` turns launching on again, and a binding that still has a session never gets a second. A `run.stopped` event naming the sessions stopped. What `Ctrl-C` on `roundtable run --autopilot` does.",
		args: () => runArg,
		argDocs: { run_id: "The run.", idempotency_key: "Stops once on retry." },
		output: () => type({ run: runRecord(), stopping: "string[]" }),
		mutates: true,
		idempotent: true,
		destructive: true,
	}),
	tool({
		name: "chair.launch_sessions",
		family: "runs",
		visibility: "internal",
		title: "Decide the sessions a run needs",
		description: "The autopilot's step: which headless sessions to start now, each recorded with why.",
		details:
			"For a run the autopilot drives (`run.open` with `autopilot`, or `chair.autopilot` for every run): reviewers for each proposal in review (distinct enabled agents other than its author and those who voted, enough for the policy's quorum and each required role not yet approved), an implementer for each open task assigned to an enabled agent with no live session on it and no proposal pending, in review or applied, and the Architect, once, for a goal with no tasks. At most `chair.max_sessions` live at once, oldest need first; each decision an `autopilot.launch` event. Past `run.max_sessions_total` or `run.max_wall_seconds` it launches nothing and pauses (`autopilot.paused`, the run's `autopilot_note`); a quorum no pool of agents can meet is said once (`autopilot.quorum_unreachable`). Starts nothing itself: the owner starts what it returns.",
		args: () => runArg,
		argDocs: { run_id: "The run ticked.", idempotency_key: "Decides once on retry." },
		output: () =>
			type({
				launch: type({
					agent_id: "string",
					"task_id?": "string",
					"proposal_id?": "string",
					run_id: "string",
					why: "string",
				}).array(),
				paused: "string | null",
			}),
		mutates: true,
	}),
	tool({
		name: "run.converge",
		family: "runs",
		visibility: "internal",
		title: "Check convergence",
		description: "Count a tick of the run and say where it stands; end it when nothing is left.",
		details:
			"Counts the tick and records where the run stands (reference §10.2): a run with nothing left to do completes, one where only blocked tasks remain is blocked (`orchestrator.completed` / `orchestrator.blocked`); anything else stays active with the reason.",
		args: () => runArg,
		argDocs: { run_id: "The run ticked.", idempotency_key: "Counts once on retry." },
		output: () => type({ convergence: type.enumerated(...CONVERGENCE), run: runRecord() }),
		mutates: true,
	}),
	tool({
		name: "chair.report_error",
		family: "runs",
		visibility: "internal",
		title: "Report a failed step",
		description: "Record that a step of a tick failed on one record, so the tick can go on.",
		details:
			"A `chair.error` event: which step failed on which record, with the error's code and message. The Chair reports each distinct failure once.",
		args: () =>
			type({ run_id: callerId, step: nonBlank, subject: nonBlank, code: nonBlank, message: "string" }),
		argDocs: {
			run_id: "The run ticked.",
			step: "The tick's step.",
			subject: "The record it failed on.",
			code: "The error's code.",
			message: "The error's message.",
			idempotency_key: "Reports once on retry.",
		},
		output: () => type({ event: eventRecord() }),
		mutates: true,
	}),
	tool({
		name: "run.tick_failed",
		family: "runs",
		visibility: "internal",
		title: "Record a failed tick",
		description: "Record a tick that failed as a whole: a retry to come, or the run given up.",
		details:
			"An `orchestrator.retry` event with the attempt and the delay before the next; with `give_up`, the run (if still active) becomes `failed` with an `orchestrator.failed` event.",
		args: () =>
			type({
				run_id: callerId,
				attempt: positiveInt,
				max_attempts: positiveInt,
				error: "string",
				give_up: "boolean",
				next_retry_delay_ms: nonNegativeInt,
			}),
		argDocs: {
			run_id: "The run whose tick failed.",
			attempt: "Consecutive failures so far.",
			max_attempts: "When it is given up.",
			error: "What failed.",
			give_up: "Fail the run.",
			next_retry_delay_ms: "Wait before the next try.",
			idempotency_key: "Records once on retry.",
		},
		output: () => type({ run: runRecord().or("null"), event: eventRecord() }),
		mutates: true,
	}),
] as const;
