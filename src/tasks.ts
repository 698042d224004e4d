// task.create, task.get, task.list, task.update_status (with the rules of a proposed task).
import { actorId } from "./context.ts";
import { checkReadablePaths } from "./domain/paths.ts";
import { failedPrecondition, invalidArgument, ToolError } from "./errors.ts";
import type { Env } from "./handlers/env.ts";
import { cursorKey, page } from "./handlers/paging.ts";
import {
	checkRevision,
	newRecordId,
	requireEnabledAgent,
	requireRun,
	requireTask,
} from "./handlers/records.ts";
import type { Args } from "./registry/index.ts";
import type { Tx } from "./store/index.ts";
import type { TaskChanges } from "./store/tasks.ts";
import type { TaskRecord } from "./vocabulary/records.ts";

export async function create(tx: Tx, a: Args<"task.create">, env: Env) {
	const readable_paths = checkReadablePaths(a.readable_paths ?? []);
	const id = await newRecordId("task", { field: "task_id", value: a.task_id, label: "task" }, (id) =>
		tx.tasks.get(id),
	);
	if (a.run_id !== undefined) await requireRun(tx, a.run_id);
	if (a.assigned_agent_id !== undefined)
		await requireEnabledAgent(tx, a.assigned_agent_id, "assigned_agent_id");

	const task = await tx.tasks.insert(
		{
			id,
			run_id: a.run_id ?? null,
			title: a.title,
			body_md: a.body_md,
			// The Architect proposes work: the operator opens or cancels what it proposes.
			status:
				env.ctx.principal.kind === "agent" && env.ctx.principal.role === "Architect" ? "proposed" : "open",
			priority: a.priority ?? 100,
			risk: a.risk ?? "normal",
			assigned_agent_id: a.assigned_agent_id ?? null,
			readable_paths,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "task.created",
			actor_id: actorId(env.ctx),
			run_id: task.run_id,
			task_id: task.id,
			payload: {
				task_id: task.id,
				title: task.title,
				status: task.status,
				priority: task.priority,
				risk: task.risk,
				assigned_agent_id: task.assigned_agent_id,
				readable_paths: task.readable_paths,
			},
		},
		env.now,
	);
	return { task };
}

export async function get(tx: Tx, a: Args<"task.get">) {
	return { task: await requireTask(tx, a.task_id) };
}

export async function list(tx: Tx, a: Args<"task.list">) {
	const limit = a.limit ?? 200;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["number", "string", "string"]);
	const from = key && { priority: key[0] as number, created_at: key[1] as string, id: key[2] as string };
	const rows = await tx.tasks.list(
		{ status: a.status, assigned_agent_id: a.assigned_agent_id, run_id: a.run_id },
		from,
		limit + 1,
	);
	const { rows: tasks, next } = page(rows, limit, (t) => [t.priority, t.created_at, t.id]);
	return { tasks, next_cursor: next };
}

/**
 * A `proposed` task (promoted from a message) is nobody's work until the operator opens it: only the
 * operator moves a task out of `proposed` (to open, or cancelled), only message.promote makes one,
 * and while it stays proposed it joins no run and has no assignee.
 */
function checkProposed(task: TaskRecord, a: Args<"task.update_status">, env: Env): void {
	const to = a.status ?? task.status;
	if (to === "proposed" && task.status !== "proposed")
		throw failedPrecondition(
			`task ${task.id} is ${task.status}; only message.promote makes a proposed task`,
			{
				task_id: task.id,
				status: task.status,
			},
		);
	if (task.status === "proposed" && to !== "proposed") {
		if (env.ctx.principal.kind !== "operator")
			throw new ToolError("permission_denied", `task ${task.id} is proposed; only the operator opens it`, {
				task_id: task.id,
			});
		if (to !== "open" && to !== "cancelled")
			throw failedPrecondition(`task ${task.id} is proposed; open it (or cancel it) before setting ${to}`, {
				task_id: task.id,
				status: to,
			});
	}
	if (to === "proposed" && (a.assigned_agent_id != null || a.run_id != null))
		throw failedPrecondition(
			`task ${task.id} is proposed: it joins no run and has no assignee until the operator opens it`,
			{ task_id: task.id, field: a.assigned_agent_id != null ? "assigned_agent_id" : "run_id" },
		);
}

export async function updateStatus(tx: Tx, a: Args<"task.update_status">, env: Env) {
	if (a.status === undefined && a.assigned_agent_id === undefined && a.run_id === undefined) {
		throw invalidArgument("nothing to update: give status, assigned_agent_id or run_id");
	}
	const task = await requireTask(tx, a.task_id);
	checkRevision(task, a.expected_revision);
	checkProposed(task, a, env);
	if (a.assigned_agent_id != null) await requireEnabledAgent(tx, a.assigned_agent_id, "assigned_agent_id");
	if (a.run_id != null) await requireRun(tx, a.run_id);

	const changes: TaskChanges = {};
	const diff: Record<string, { from: unknown; to: unknown }> = {};
	for (const field of ["status", "assigned_agent_id", "run_id"] as const) {
		const to = a[field];
		if (to !== undefined && to !== task[field]) {
			Object.assign(changes, { [field]: to });
			diff[field] = { from: task[field], to };
		}
	}
	if (Object.keys(diff).length === 0) return { task };

	const updated = await tx.tasks.update(task.id, changes, env.now);
	await tx.events.append(
		{
			type: "task.updated",
			actor_id: actorId(env.ctx),
			// A task leaving its run is news to that run's watchers.
			run_id: updated.run_id ?? task.run_id,
			task_id: updated.id,
			payload: {
				task_id: updated.id,
				changes: diff,
				revision: updated.revision,
				...(a.reason_md !== undefined && { reason_md: a.reason_md }),
			},
		},
		env.now,
	);
	return { task: updated };
}
