// Rows the store tests write straight through a Tx: the smallest valid open task.
import type { Tx } from "../../src/store/index.ts";

/** An open task with id `id`, of no run, assigned to nobody. */
export function insertTask(tx: Tx, id: string) {
	return tx.tasks.insert(
		{
			id,
			run_id: null,
			title: `task ${id}`,
			body_md: "body",
			status: "open",
			priority: 100,
			risk: "normal",
			assigned_agent_id: null,
			readable_paths: [],
		},
		new Date().toISOString(),
	);
}
