// test.run, test.get_result, test.evidence.submit, test.suggest and test.sweep_interrupted. test.run
// and test.get_result hand their arguments to their engines in src/test-runs/ (run.ts, logs.ts).
// A failing test is a result, not a tool error.

import type { Env, Key } from "../engine/env.ts";
import { requireEnabledAgent, requireProposal, requireTask } from "../engine/records.ts";
import { invalidArgument, ToolError } from "../errors.ts";
import { isAlive } from "../os/process.ts";
import type { Args, Result } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Tx } from "../store/index.ts";
import type { TestRunOutcome } from "../store/test-runs.ts";
import { RUN_ID_VARIABLE } from "../test-runs/environment.ts";
import { runResult } from "../test-runs/logs.ts";
import { killMarkedGroup } from "../test-runs/process.ts";
import { recordFinish, runTests } from "../test-runs/run.ts";
import { suggestTests } from "../test-runs/suggestions.ts";
import { mintId, nowIso } from "../vocabulary/ids.ts";

const MAX_EVIDENCE_COMMAND = 4 * 1024;
const MAX_EVIDENCE_SUMMARY = 16 * 1024;

export function run(a: Args<"test.run">, env: Env, key: Key<Result<"test.run">>) {
	return runTests(env, a, key);
}

export function get(a: Args<"test.get_result">, env: Env) {
	return runResult(env, a);
}

export async function submitEvidence(tx: Tx, a: Args<"test.evidence.submit">, env: Env) {
	if (Buffer.byteLength(a.command) > MAX_EVIDENCE_COMMAND) {
		throw invalidArgument(`command must be at most ${MAX_EVIDENCE_COMMAND} bytes`, { field: "command" });
	}
	if (Buffer.byteLength(a.summary_md) > MAX_EVIDENCE_SUMMARY) {
		throw invalidArgument(`summary_md must be at most ${MAX_EVIDENCE_SUMMARY} bytes`, {
			field: "summary_md",
		});
	}
	const agent = await requireEnabledAgent(tx, a.agent_id, "agent_id");
	if (agent.role !== "Tester") {
		throw new ToolError(
			"permission_denied",
			`only an agent with the Tester role submits test evidence; ${agent.id} is ${agent.role}`,
			{
				agent_id: agent.id,
				role: agent.role,
			},
		);
	}
	const proposal = await requireProposal(tx, a.proposal_id);
	const session = await tx.sessions.latestFor(agent.id);
	const evidence = await tx.testEvidence.insert(
		{
			id: mintId("evidence"),
			proposal_id: proposal.id,
			patch_revision: proposal.patch_revision,
			agent_id: agent.id,
			session_id: session?.status === "active" ? session.id : null,
			command: a.command.trim(),
			outcome: a.outcome,
			summary_md: a.summary_md,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "test.evidence_submitted",
			actor_id: agent.id,
			run_id: proposal.run_id,
			task_id: proposal.task_id,
			payload: {
				evidence_id: evidence.id,
				proposal_id: proposal.id,
				patch_revision: evidence.patch_revision,
				outcome: evidence.outcome,
				command: evidence.command,
			},
		},
		env.now,
	);
	return { evidence };
}

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

/**
 * Runs a crash left `running` (their runner process is gone) become `interrupted`, and what their
 * test left running is stopped; the owner does this at start. A run whose runner still lives (a
 * `mcp call` beside the owner) is left alone.
 */
export async function sweepInterrupted(
	_: Args<"test.sweep_interrupted">,
	env: Env,
	key: Key<Result<"test.sweep_interrupted">>,
) {
	const { rt } = env;
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	const orphaned = (await rt.store.withTransaction("read", (tx) => tx.testRuns.running())).filter(
		(r) => r.runner_pid === null || r.runner_pid === process.pid || !isAlive(r.runner_pid),
	);
	const stopped = new Set(
		orphaned
			.filter((r) => r.process_group !== null && killMarkedGroup(r.process_group, RUN_ID_VARIABLE, r.id))
			.map((r) => r.id),
	);
	return rt.store.withTransaction("write", async (tx) => {
		const now = nowIso();
		const marked: string[] = [];
		for (const r of orphaned) {
			if ((await tx.testRuns.get(r.id))?.status !== "running") continue;
			const outcome: TestRunOutcome = {
				status: "interrupted",
				exit_code: null,
				signal: null,
				duration_ms: null,
				summary_md: `The process running this test stopped before it finished.${
					stopped.has(r.id) ? " The test's processes it left behind were stopped." : ""
				}`,
				output_bytes: 0,
				truncated: false,
				finished_at: now,
			};
			await recordFinish(tx, r, outcome, "system", now);
			marked.push(r.id);
		}
		return key.remember(tx, claimed.ticket, { test_run_ids: marked });
	});
}
