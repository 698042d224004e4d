// Creating and resuming runs: what `roundtable run` does before anything ticks. Each is an event.
import { mintId, nowIso } from "../domain/ids.ts";
import { failedPrecondition, notFound } from "../errors.ts";
import type { RunRecord } from "../registry/records.ts";
import type { Store } from "../store/index.ts";

export interface RunRequest {
	/** The run to create, continue or resume; default: a new id, or with `resume` the latest run. */
	id?: string;
	goal?: string;
	resume: boolean;
}

/**
 * A new run is created active. An existing active run is continued (its goal updated when one is
 * given). An ended run is made active again only with `resume`, so a typo never revives one.
 */
export function openRun(
	store: Store,
	want: RunRequest,
): Promise<{ run: RunRecord; action: "created" | "continued" | "resumed" }> {
	return store.withTransaction("write", async (tx) => {
		const now = nowIso();
		const existing =
			want.id !== undefined ? await tx.runs.get(want.id) : want.resume ? await tx.runs.latest() : undefined;
		if (want.resume && !existing) {
			throw want.id !== undefined
				? notFound(`run ${want.id} not found`, { run_id: want.id })
				: notFound("there is no run to resume");
		}
		let run: RunRecord;
		let action: "created" | "continued" | "resumed";
		if (!existing) {
			run = await tx.runs.insert(
				{ id: want.id ?? mintId("run"), goal: want.goal ?? "", status: "active" },
				now,
			);
			action = "created";
		} else if (existing.status === "active") {
			run =
				want.goal !== undefined && want.goal !== existing.goal
					? await tx.runs.reactivate(existing.id, want.goal, now)
					: existing;
			action = "continued";
		} else if (want.resume) {
			run = await tx.runs.reactivate(existing.id, want.goal, now);
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
					actor_id: "operator",
					run_id: run.id,
					payload: { run_id: run.id, goal: run.goal, status: run.status },
				},
				now,
			);
		}
		return { run, action };
	});
}
