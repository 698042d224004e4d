// A task follows its proposals: once one is applied it is done, or in review while another of its
// proposals is still open; once an applied one is rolled back it is in progress again. Each change
// is a task.updated event in the same transaction as the apply or rollback (the autopilot reads a
// finished task from it). A cancelled or proposed task keeps its status: nobody's work to finish.
import type { Tx } from "../store/index.ts";
import type { TaskStatus } from "../vocabulary/statuses.ts";

export async function taskFollowsProposal(
	tx: Tx,
	o: { task_id: string; proposal_id: string; transaction_id: string; actor: string; now: string },
	happened: "applied" | "rolled_back",
): Promise<void> {
	const task = await tx.tasks.get(o.task_id);
	if (!task || task.status === "cancelled" || task.status === "proposed") return;
	const to: TaskStatus =
		happened === "rolled_back"
			? "in_progress"
			: (await tx.proposals.openCount(task.id)) > 0
				? "review"
				: "done";
	if (task.status === to) return;
	const updated = await tx.tasks.update(task.id, { status: to }, o.now);
	await tx.events.append(
		{
			type: "task.updated",
			actor_id: o.actor,
			run_id: updated.run_id,
			task_id: updated.id,
			payload: {
				task_id: updated.id,
				changes: { status: { from: task.status, to } },
				revision: updated.revision,
				reason_md: `proposal ${o.proposal_id} ${happened === "applied" ? "applied" : "rolled back"} in ${o.transaction_id}`,
			},
		},
		o.now,
	);
}
