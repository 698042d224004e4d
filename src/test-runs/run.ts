// One test.run: the command checked, the run recorded `running` with its idempotency key claimed,
// the command run (in the project or a patched scratch copy, sandboxed when it can be) with progress
// reported, and the run finished with its log stored. A failing test is a result, not an error.

import picomatch from "picomatch";
import { withRepository } from "../apply/recover.ts";
import { actorId } from "../context.ts";
import { isSensitiveName } from "../domain/paths.ts";
import { type ReadScope, readRefusal } from "../domain/read-scope.ts";
import { failedPrecondition, invalidArgument, ToolError } from "../errors.ts";
import type { Done, Env, Key, Ticket } from "../handlers/env.ts";
import { requireProposal, requireTask } from "../handlers/records.ts";
import { cannotStart } from "../os/process.ts";
import { patchPath } from "../patches.ts";
import type { Args, Result } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import type { TestRunOutcome } from "../store/test-runs.ts";
import { mintId, nowIso } from "../vocabulary/ids.ts";
import type { TestRunRecord } from "../vocabulary/records.ts";
import type { TestRunStatus } from "../vocabulary/statuses.ts";
import { allowedBy, canonical, splitCommand } from "./argv.ts";
import { RUN_ID_VARIABLE, testEnv } from "./environment.ts";
import { checkTestArguments } from "./inside.ts";
import { RESULT_LOG_BYTES, summarize, tail, writeLog } from "./logs.ts";
import { type ProcessResult, runProcess } from "./process.ts";
import { chooseSandbox, type RunSandbox, signalOfExit, wrapCommand } from "./sandboxed.ts";
import { PatchDoesNotApply, scratchCopy } from "./workdir.ts";

const PROGRESS_EVERY_MS = 1000;

function statusOf(r: ProcessResult): TestRunStatus {
	if (r.error) return "error";
	if (r.timed_out) return "timed_out";
	if (r.cancelled) return "cancelled";
	return r.exit_code === 0 ? "passed" : "failed";
}

/** The run's row finished, and its test.finished event. */
export async function recordFinish(
	tx: Tx,
	run: TestRunRecord,
	o: TestRunOutcome,
	actor: string,
	now: string,
) {
	const test_run = await tx.testRuns.finish(run.id, o, now);
	await tx.events.append(
		{
			type: "test.finished",
			actor_id: actor,
			task_id: run.task_id,
			payload: {
				test_run_id: run.id,
				proposal_id: run.proposal_id,
				patch_revision: run.patch_revision,
				status: o.status,
				exit_code: o.exit_code,
				signal: o.signal,
				duration_ms: o.duration_ms,
			},
		},
		now,
	);
	return test_run;
}

type RunKey = Key<Result<"test.run">>;

function finish(rt: Runtime, run: TestRunRecord, o: TestRunOutcome, key: RunKey, ticket: Ticket, log = "") {
	return rt.store.withTransaction("write", async (tx) => {
		const test_run = await recordFinish(tx, run, o, run.requested_by, nowIso());
		return key.remember(tx, ticket, { test_run, log });
	});
}

/** test.run: the command run and its result recorded, or this key's first result. */
export async function run(a: Args<"test.run">, env: Env, key: RunKey) {
	const { tests } = env.rt.config;
	const argv = splitCommand(a.command);
	const prefix = allowedBy(argv, tests.allowed_commands);
	if (!prefix) {
		throw new ToolError(
			"permission_denied",
			`'${canonical(argv)}' does not start with a command in tests.allowed_commands`,
			{ field: "command", allowed: tests.allowed_commands },
		);
	}
	// Before anything is recorded: arguments may not run or load code from outside the project.
	checkTestArguments(argv, splitCommand(prefix).length, env.rt.root);
	const timeoutSeconds = a.timeout_seconds ?? tests.timeout_seconds;
	if (timeoutSeconds > tests.timeout_seconds) {
		throw invalidArgument(`timeout_seconds may be at most tests.timeout_seconds (${tests.timeout_seconds})`, {
			field: "timeout_seconds",
		});
	}
	// Before anything is recorded too: tests.sandbox required without a working bwrap is refused.
	const sandbox = chooseSandbox(tests);
	const started = await begin(a, argv, sandbox, env, key);
	if (started.earlier) return started.earlier;
	const { test_run: testRun, patch, ticket } = started;

	let result: ProcessResult;
	try {
		result = await execute(testRun, argv, patch, timeoutSeconds, sandbox, env);
	} catch (err) {
		const message =
			err instanceof PatchDoesNotApply ? err.message : `the test could not be run: ${(err as Error).message}`;
		const outcome = { ...NOTHING_RAN, summary_md: message, finished_at: nowIso() };
		return finish(env.rt, testRun, outcome, key, ticket, message);
	}

	writeLog(env.rt.root, testRun.id, result.output);
	const status = statusOf(result);
	const why =
		status === "timed_out"
			? `\n(killed after ${timeoutSeconds}s)`
			: status === "cancelled"
				? "\n(cancelled)"
				: "";
	const outcome: TestRunOutcome = {
		status,
		exit_code: result.exit_code,
		signal: result.signal,
		duration_ms: result.duration_ms,
		summary_md: result.error ?? `${summarize(result.output)}${why}`,
		output_bytes: result.output_bytes,
		truncated: result.truncated,
		finished_at: nowIso(),
	};
	return finish(env.rt, testRun, outcome, key, ticket, tail(result.output, RESULT_LOG_BYTES));
}

/** Which of the project's files an agent's test run gets: what it may read, and the support files. */
function copyFilter(reads: ReadScope, support: readonly string[]): (rel: string) => boolean {
	const supportMatch = picomatch([...support], { dot: true });
	const readable = { ...reads, claimed: undefined };
	return (rel) =>
		readRefusal(readable, rel) === undefined || (supportMatch(rel) && !rel.split("/").some(isSensitiveName));
}

/** An outcome for a run whose command never ran (status error). */
const NOTHING_RAN = {
	status: "error",
	exit_code: null,
	signal: null,
	duration_ms: 0,
	output_bytes: 0,
	truncated: false,
} as const;

const NOT_STARTED = {
	exit_code: null,
	signal: null,
	timed_out: false,
	cancelled: false,
	duration_ms: 0,
	output_bytes: 0,
	truncated: false,
} as const;

type Patch = { sha256: string; strip: number; number: number };

/**
 * The run recorded `running` with its test.started event — or the first result of the same
 * idempotency key, checked in this same transaction so two callers never both start.
 */
function begin(
	a: Args<"test.run">,
	argv: string[],
	sandbox: RunSandbox,
	env: Env,
	key: RunKey,
): Promise<
	| { earlier: Done<Result<"test.run">> }
	| { earlier?: undefined; test_run: TestRunRecord; patch: Patch | undefined; ticket: Ticket }
> {
	return env.rt.store.withTransaction("write", async (tx) => {
		// In this same transaction: two callers with one key never both start the tests.
		const claimed = await key.claim(tx);
		if (claimed.earlier) return { earlier: claimed.earlier };
		const now = nowIso();
		const proposal = a.proposal_id === undefined ? undefined : await requireProposal(tx, a.proposal_id);
		const patch = proposal && (await tx.proposals.currentPatch(proposal.id));
		if (proposal && !patch)
			throw failedPrecondition(`proposal ${proposal.id} has no patch revision`, { proposal_id: proposal.id });
		if (a.task_id !== undefined) await requireTask(tx, a.task_id);
		const test_run = await tx.testRuns.insert(
			{
				id: mintId("testRun"),
				proposal_id: proposal?.id ?? null,
				task_id: a.task_id ?? proposal?.task_id ?? null,
				command: canonical(argv),
				argv,
				patch_revision: patch?.number ?? null,
				workdir: proposal ? "proposal" : "project",
				sandbox: sandbox.sandbox,
				sandbox_reason: sandbox.sandbox_reason,
				requested_by: actorId(env.ctx),
				started_at: now,
			},
			now,
		);
		await tx.events.append(
			{
				type: "test.started",
				actor_id: test_run.requested_by,
				task_id: test_run.task_id,
				payload: {
					test_run_id: test_run.id,
					command: test_run.command,
					proposal_id: test_run.proposal_id,
					patch_revision: test_run.patch_revision,
					workdir: test_run.workdir,
					sandbox: test_run.sandbox,
				},
			},
			now,
		);
		return { test_run, patch, ticket: claimed.ticket };
	});
}

/**
 * The command itself: in the project root, or in a scratch copy with the patch applied (throws
 * PatchDoesNotApply). Progress goes out about once a second with the elapsed time and the latest
 * output line; the call's signal cancels it.
 */
async function execute(
	testRun: TestRunRecord,
	argv: string[],
	patch: Patch | undefined,
	timeoutSeconds: number,
	sandbox: RunSandbox,
	env: Env,
): Promise<ProcessResult> {
	const { rt, ctx } = env;
	// A sandboxed run, and every run of a patch, works on a scratch copy taken under the repository
	// lock (never a half-applied tree): the sandbox shows that copy, never the project itself.
	// An agent's run copies only what it may read and tests.support_paths: its log can show no more.
	const keep = env.reads && copyFilter(env.reads, rt.config.tests.support_paths);
	const workdir =
		patch || sandbox.sandbox === "bwrap" || keep
			? await withRepository(rt, "shared", () =>
					scratchCopy(rt.root, patch && { file: patchPath(rt.root, patch.sha256), strip: patch.strip }, keep),
				)
			: undefined;
	const begun = performance.now();
	let lastLine = "";
	let lastReport = Number.NEGATIVE_INFINITY;
	let lastElapsed = -1;
	const report = () => {
		const elapsed = Math.round((performance.now() - begun) / 1000);
		lastReport = performance.now();
		// MCP: the progress value must increase with each notification.
		if (elapsed <= lastElapsed) return;
		lastElapsed = elapsed;
		ctx.progress(elapsed, timeoutSeconds, lastLine ? `${elapsed}s: ${lastLine}` : `${elapsed}s`);
	};
	const heartbeat = setInterval(report, PROGRESS_EVERY_MS);
	let recorded: Promise<void> | undefined;
	const dir = workdir?.dir ?? rt.root;
	const command = wrapCommand(
		sandbox,
		argv,
		// The run's id marks its processes: the sweep after a crash knows them by it.
		{ ...testEnv(rt.config.tests.env_allowlist), [RUN_ID_VARIABLE]: testRun.id },
		{ dir, dependencies: workdir?.dependencies ?? [] },
		rt.config,
		rt.root,
	);
	const problem =
		sandbox.sandbox === "bwrap" ? cannotStart(argv[0] as string, dir, command.env.PATH) : undefined;
	if (problem) {
		command.close();
		workdir?.remove();
		clearInterval(heartbeat);
		return { ...NOT_STARTED, error: problem, output: new Uint8Array() };
	}
	try {
		const r = await runProcess({
			argv: command.argv,
			cwd: dir,
			env: command.env,
			fds: command.fds,
			onStart: (group) => {
				command.close();
				recorded = rt.store.withTransaction("write", (tx) => tx.testRuns.setProcessGroup(testRun.id, group));
			},
			timeoutMs: timeoutSeconds * 1000,
			maxBytes: rt.config.tests.max_output_bytes,
			signal: ctx.signal,
			onLine: (line) => {
				lastLine = line;
				if (performance.now() - lastReport >= PROGRESS_EVERY_MS) report();
			},
		});
		const signal = sandbox.sandbox === "bwrap" ? signalOfExit(r.exit_code) : undefined;
		return signal ? { ...r, exit_code: null, signal } : r;
	} finally {
		command.close();
		clearInterval(heartbeat);
		await recorded;
		workdir?.remove();
	}
}
