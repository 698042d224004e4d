// run.open, the operator's: creates a run, continues the active one, or (only with resume) makes an
// ended one active again, with the event that says which.
import { actorId } from "../context.ts";
import { checkScope } from "../domain/paths.ts";
import { failedPrecondition, notFound } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";
import type { RunRecord } from "../vocabulary/records.ts";

/**
 * A new run is created active. An existing active run is continued (its goal updated when one is
 * given). An ended run is made active again only with `resume`, so a typo never revives one.
 */
export async function open(tx: Tx, a: Args<"run.open">, env: Env) {
	const { now } = env;
	const existing =
		a.run_id !== undefined ? await tx.runs.get(a.run_id) : a.resume ? await tx.runs.latest() : undefined;
	if (a.resume && !existing) {
		throw a.run_id !== undefined
			? notFound(`run ${a.run_id} not found`, { run_id: a.run_id })
			: notFound("there is no run to resume");
	}
	const scope = a.scope === undefined ? undefined : checkScope(a.scope);
	let run: RunRecord;
	let action: "created" | "continued" | "resumed";
	if (!existing) {
		run = await tx.runs.insert(
			{ id: a.run_id ?? mintId("run"), goal: a.goal ?? "", status: "active", scope: scope ?? [] },
			now,
		);
		action = "created";
	} else if (existing.status === "active") {
		const changed =
			(a.goal !== undefined && a.goal !== existing.goal) ||
			(scope !== undefined && JSON.stringify(scope) !== JSON.stringify(existing.scope));
		run = changed ? await tx.runs.reactivate(existing.id, a.goal, scope, now) : existing;
		action = "continued";
	} else if (a.resume) {
		run = await tx.runs.reactivate(existing.id, a.goal, scope, now);
		action = "resumed";
	} else {
		throw failedPrecondition(
			`run ${existing.id} is ${existing.status}; pass --resume to make it active again`,
			{
				run_id: existing.id,
				status: existing.status,
			},
		);
	}
	if (action !== "continued" || run !== existing) {
		await tx.events.append(
			{
				type: `run.${action === "continued" ? "updated" : action}`,
				actor_id: actorId(env.ctx),
				run_id: run.id,
				payload: { run_id: run.id, goal: run.goal, scope: run.scope, status: run.status },
			},
			now,
		);
	}
	const mode = a.autopilot === undefined ? undefined : a.autopilot ? "on" : "off";
	if (mode !== undefined && run.autopilot !== mode) {
		run = await tx.runs.setAutopilot(run.id, mode, null, now);
		await tx.events.append(
			{
				type: "run.autopilot",
				actor_id: actorId(env.ctx),
				run_id: run.id,
				payload: { run_id: run.id, autopilot: mode },
			},
			now,
		);
	}
	return { run, action };
}
