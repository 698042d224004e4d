// test.suggest: which proposal and task the suggestions are for, and whether the change's risk lets
// them be narrowed; the project scan that finds the commands is discover.ts.

import { invalidArgument } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { requireProposal, requireTask } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import { suggestTests } from "./discover.ts";

/**
 * Commands worth running for a proposal (its touched files and expected_tests, unnarrowed when its
 * risk is high or critical), for a task (its latest proposal, if any), or for the whole project.
 */
export async function suggest(a: Args<"test.suggest">, env: Env) {
	const { proposal, task } = await env.rt.store.withTransaction("read", async (tx) => {
		const task = a.task_id === undefined ? undefined : await requireTask(tx, a.task_id);
		let proposal = a.proposal_id === undefined ? undefined : await requireProposal(tx, a.proposal_id);
		if (proposal && task && proposal.task_id !== task.id) {
			throw invalidArgument(`proposal ${proposal.id} belongs to task ${proposal.task_id}, not ${task.id}`, {
				field: "task_id",
			});
		}
		if (!proposal && task) proposal = await tx.proposals.latestForTask(task.id);
		return { proposal, task };
	});
	const risk = proposal?.risk ?? task?.risk;
	const found = await suggestTests(
		new RepoGuard(env.rt.root),
		{
			touched: proposal ? proposal.patch_files : null,
			whole:
				risk === "high" || risk === "critical"
					? `the change is ${risk} risk, so nothing is narrowed`
					: undefined,
			expected: proposal?.expected_tests ?? [],
		},
		env.rt.config.tests.allowed_commands,
	);
	return {
		task_id: task?.id ?? proposal?.task_id ?? null,
		proposal_id: proposal?.id ?? null,
		commands: found.suggestions.map((s) => s.command),
		...found,
	};
}
