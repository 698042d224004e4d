import { type } from "arktype";
import { callerId, nonBlank, safeInt } from "../domain/scalars.ts";
import { RISKS, TASK_STATUSES } from "../domain/statuses.ts";
import { taskRecord } from "./records.ts";
import { tool } from "./types.ts";

const taskStatus = type.enumerated(...TASK_STATUSES);
const listLimit = type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000");
const cursor = nonBlank;

export const taskTools = [
	tool({
		name: "task.create",
		family: "tasks",
		title: "Create a task",
		description:
			"Create a task (status `open`). Optionally assign it, attach it to a run, and list the repository paths its assignee may read.",
		args: type({
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
			body_md: "What to do, in Markdown.",
			task_id: "Choose the id yourself; by default one is minted (T-…). An id in use is `already_exists`.",
			priority: "Lower runs first; default 100.",
			risk: "low, normal (default), high or critical; high and critical bring a security review and a human gate.",
			assigned_agent_id: "An agent id from the table (e.g. implementer-1).",
			run_id: "The run this task belongs to.",
			readable_paths:
				"Repository-relative paths or globs the assignee may read. Credential and configuration locations (.git/, .roundtable/, .env*, keys and certificates, .ssh, .aws, .npmrc) and paths outside the repository are refused.",
		},
		output: type({ task: taskRecord }),
		mutates: true,
	}),
	tool({
		name: "task.get",
		family: "tasks",
		title: "Get a task",
		description: "Fetch one task by id.",
		args: type({ task_id: callerId }),
		output: type({ task: taskRecord }),
		mutates: false,
	}),
	tool({
		name: "task.list",
		family: "tasks",
		title: "List tasks",
		description:
			"List tasks ordered by priority, then creation time, then id. Filter by status, assignee or run. Pages: pass `next_cursor` back as `cursor`; it is null on the last page.",
		args: type({
			"status?": taskStatus,
			"assigned_agent_id?": callerId,
			"run_id?": callerId,
			"limit?": listLimit,
			"cursor?": cursor,
		}),
		argDocs: {
			limit: "Tasks per page: default 200, at most 1000.",
			cursor: "The `next_cursor` of the previous page.",
		},
		output: type({ tasks: taskRecord.array(), next_cursor: "string | null" }),
		mutates: false,
	}),
	tool({
		name: "task.update_status",
		family: "tasks",
		title: "Update a task",
		description:
			"Change a task's status, assignee or run. Pass null to clear the assignee or the run. Fields you leave out keep their value; a call that changes nothing returns the task as it is and records no event.",
		args: type({
			task_id: callerId,
			"status?": taskStatus,
			"assigned_agent_id?": callerId.or("null"),
			"run_id?": callerId.or("null"),
			"reason_md?": nonBlank,
		}),
		argDocs: {
			assigned_agent_id: "New assignee, or null to clear it.",
			run_id: "New run, or null to detach the task from its run.",
			reason_md: "Why; recorded in the task.updated event.",
		},
		output: type({ task: taskRecord }),
		mutates: true,
		updates: true,
		destructive: true,
		idempotent: true,
	}),
] as const;
