import { callerId, nonBlank, safeInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { taskRecord } from "../vocabulary/records.ts";
import { RISKS, TASK_STATUSES } from "../vocabulary/statuses.ts";
import { tool } from "./types.ts";

const taskStatus = type.enumerated(...TASK_STATUSES);
const listLimit = type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000");
const cursor = nonBlank;

export const taskTools = [
	tool({
		name: "task.create",
		family: "tasks",
		access: {
			Chair: { bound: "run", needs: ["run_id"], only: { readable_paths: [] } },
			Architect: { bound: "run", needs: ["run_id"], inRunScope: ["readable_paths"] },
		},
		ownId: "task_id",
		title: "Create a task",
		description:
			"Create an open task to hand out work. Next: the assignee reads it with task.get and claims with resource.claim.",
		details:
			"Create a task (status `open`). Optionally assign it, attach it to a run, and list the repository paths its assignee may read. The Architect, bound to a run, creates tasks of that run `proposed`, their readable_paths inside the run's scope (run.open): the operator opens or cancels them (task.update_status), and nothing starts on one until it is open.",
		args: () =>
			type({
				title: nonBlank,
				body_md: nonBlank,
				"task_id?": callerId,
				"priority?": safeInt,
				"risk?": type.enumerated(...RISKS),
				"assigned_agent_id?": callerId,
				"run_id?": callerId,
				"readable_paths?": nonBlank.array(),
			}),
		argDocs: {
			title: "Short title.",
			body_md: "What to do.",
			task_id: "Own id (default new T-).",
			priority: "Lower first (default 100).",
			risk: "high/critical add security and human gates.",
			assigned_agent_id: "Agent to do it.",
			run_id: "Run it belongs to.",
			readable_paths: "Paths or globs the assignee may read.",
			idempotency_key: "No second task on retry.",
		},
		output: () => type({ task: taskRecord() }),
		mutates: true,
	}),
	tool({
		name: "task.get",
		family: "tasks",
		access: "every",
		title: "Get a task",
		description:
			"A task's status, assignee and readable paths; read yours on start or resume. Next: resource.claim what you will change.",
		details: "Fetch one task by id.",
		args: () => type({ task_id: callerId }),
		argDocs: {
			task_id: "Task to fetch.",
		},
		output: () => type({ task: taskRecord() }),
		mutates: false,
	}),
	tool({
		name: "task.list",
		family: "tasks",
		access: "every",
		title: "List tasks",
		description: "Tasks by priority, to find work. Next: task.get one.",
		details:
			"List tasks ordered by priority, then creation time, then id. Filter by status, assignee or run. Pages: pass `next_cursor` back as `cursor`; it is null on the last page.",
		args: () =>
			type({
				"status?": taskStatus,
				"assigned_agent_id?": callerId,
				"run_id?": callerId,
				"limit?": listLimit,
				"cursor?": cursor,
			}),
		argDocs: {
			status: "Only this status.",
			assigned_agent_id: "Only this assignee's.",
			run_id: "Only this run's.",
			limit: "Page size (default 200).",
			cursor: "Previous next_cursor.",
		},
		output: () => type({ tasks: taskRecord().array(), next_cursor: "string | null" }),
		mutates: false,
	}),
	tool({
		name: "task.update_status",
		family: "tasks",
		access: {
			Implementer: {
				bound: "task",
				only: {
					status: ["open", "in_progress", "blocked", "review", "cancelled", "failed"],
					assigned_agent_id: [],
					run_id: [],
				},
			},
			Chair: { bound: "run" },
		},
		title: "Update a task",
		description:
			"Change a task's status, assignee or run. Next: set in_progress on start, review once proposed, done after patch.apply.",
		details:
			"Change a task's status, assignee or run. Pass null to clear the assignee or the run. Fields you leave out keep their value; a call that changes nothing returns the task as it is and records no event.",
		args: () =>
			type({
				task_id: callerId,
				"status?": taskStatus,
				"assigned_agent_id?": callerId.or("null"),
				"run_id?": callerId.or("null"),
				"reason_md?": nonBlank,
			}),
		argDocs: {
			task_id: "Task to change.",
			status: "New status.",
			assigned_agent_id: "New assignee; null clears.",
			run_id: "New run; null clears.",
			reason_md: "Why, for the event.",
			idempotency_key: "Changes once on retry.",
			expected_revision: "Task revision you read.",
		},
		output: () => type({ task: taskRecord() }),
		mutates: true,
		updates: true,
		destructive: true,
		idempotent: true,
	}),
] as const;
