// `tasks [list]|open|cancel`: the operator's view of the tasks, and the decision on each task the
// Architect proposed (nothing starts on one until it is open).
import { call } from "../dispatch.ts";
import type { TaskRecord } from "../vocabulary/records.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";
import { print } from "./output.ts";
import { withRuntime } from "./runtime.ts";

const line = (t: TaskRecord) =>
	`${t.id} ${t.status} ${t.assigned_agent_id ?? "-"} ${t.run_id ?? "-"} ${t.title}`;

export const list: CommandRun = {
	run: (flags) =>
		withRuntime(flags.root, async (rt, ctx) => {
			const out = await call(
				rt,
				"task.list",
				{
					...(typeof flags.status === "string" && { status: flags.status }),
					...(typeof flags.run === "string" && { run_id: flags.run }),
					limit: 1000,
				},
				ctx,
			);
			return print(flags, out, out.tasks.map(line));
		}),
};

const decide = (status: "open" | "cancelled"): CommandRun => ({
	run: (flags) =>
		withRuntime(flags.root, async (rt, ctx) => {
			const id = flags.task;
			if (typeof id !== "string") throw new UsageError("the task's id is required");
			const out = await call(
				rt,
				"task.update_status",
				{ task_id: id, status, ...(typeof flags.reason === "string" && { reason_md: flags.reason }) },
				ctx,
			);
			return print(flags, out, [line(out.task)]);
		}),
});

export const open = decide("open");
export const cancel = decide("cancelled");
