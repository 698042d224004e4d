// `approvals list|approve|reject`: the operator's human decisions, through human.decide.
import { call } from "../dispatch.ts";
import type { ApprovalRecord } from "../vocabulary/records.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";
import { print } from "./output.ts";
import { withRuntime } from "./runtime.ts";

const line = (a: ApprovalRecord) =>
	`${a.id} ${a.status} ${a.proposal_id ?? "-"} r${a.patch_revision ?? "-"} ${a.subject}${a.override_policy ? " (override)" : ""}`;

export const list: CommandRun = {
	run: (flags) =>
		withRuntime(flags.root, async (rt, ctx) => {
			const state = await call(rt, "table.get_state", {}, ctx);
			const wanted = state.human_approvals.filter(
				(a) =>
					(flags.status === undefined || a.status === flags.status) &&
					(flags.proposal === undefined || a.proposal_id === flags.proposal),
			);
			return print(flags, { approvals: wanted }, wanted.map(line));
		}),
};

const decide = (status: "approved" | "rejected"): CommandRun => ({
	run: (flags) =>
		withRuntime(flags.root, async (rt, ctx) => {
			const id = flags.approval;
			if (typeof id !== "string") throw new UsageError("--approval is required");
			if (flags["override-policy"] === true && status === "rejected")
				throw new UsageError("--override-policy goes with approve");
			const out = await call(
				rt,
				"human.decide",
				{
					approval_id: id,
					status,
					...(typeof flags.decision === "string" && { decision_md: flags.decision }),
					...(flags["override-policy"] === true && { override_policy: true }),
				},
				ctx,
			);
			return print(flags, out, [line(out.approval)]);
		}),
});

export const approve = decide("approved");
export const reject = decide("rejected");
