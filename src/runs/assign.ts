// chair.assign_tasks: a run's open, unassigned tasks go round-robin to the enabled implementers, the
// cursor (the last agent given a task) kept in chair_state across ticks and restarts.

import { actorId } from "../context.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

const ASSIGN_CURSOR = "assign.last_agent";
/** implementer-2 before implementer-10. */
const byId = new Intl.Collator("en", { numeric: true }).compare;

/**
 * Open, unassigned tasks of the run (or of no run, which the run then adopts) go round-robin to the
 * enabled implementers. The cursor is the last agent given a task, kept across ticks and restarts.
 */
export async function assignTasks(tx: Tx, a: Args<"chair.assign_tasks">, env: Env) {
	const runId = a.run_id;
	const { now } = env;
	const tasks = await tx.tasks.assignable(runId);
	if (tasks.length === 0) return { assigned: [] };
	const implementers = (await tx.agents.list())
		.filter((x) => x.role === "Implementer" && x.enabled)
		.map((x) => x.id)
		.sort(byId);
	if (implementers.length === 0) return { assigned: [] };
	const last = await tx.chairState.get(ASSIGN_CURSOR);
	// The first implementer after the last one served (ids sort, so a removed agent still has a place).
	let next = implementers.findIndex((id) => last === undefined || byId(id, last) > 0);
	if (next === -1) next = 0;
	const assigned = tasks.map((task) => ({
		task_id: task.id,
		agent_id: implementers[next++ % implementers.length] as string,
	}));
	// The rows and their events without reading any back: the report says what was assigned.
	await tx.tasks.assignAll(assigned, runId, now);
	await tx.events.appendAll(
		assigned.map((a) => ({
			type: "task.assigned",
			actor_id: actorId(env.ctx),
			run_id: runId,
			task_id: a.task_id,
			payload: { task_id: a.task_id, assigned_agent_id: a.agent_id },
		})),
		now,
	);
	await tx.chairState.set(ASSIGN_CURSOR, assigned.at(-1)?.agent_id as string);
	return { assigned };
}
