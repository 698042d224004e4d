// test.run, test.get_result, test.evidence.submit and test.suggest. A run is recorded `running`
// before it starts and finished when it ends; its log goes to .roundtable/testlogs/<id>.log (our id,
// never the caller's text). A failing test is a result, not a tool error.

import { closeSync, fstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { withRepository } from "../apply/recover.ts";
import { actorId } from "../context.ts";
import type { Done, Env, Key, Ticket } from "../engine/env.ts";
import { requireEnabledAgent, requireProposal, requireTask } from "../engine/records.ts";
import { failedPrecondition, invalidArgument, notFound, ToolError } from "../errors.ts";
import { writeFileAtomic } from "../fsutil.ts";
import { LAYOUT } from "../layout.ts";
import { isAlive } from "../os/process.ts";
import { patchPath } from "../patches.ts";
import type { Args, Result } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import type { TestRunOutcome } from "../store/test-runs.ts";
import { allowedBy, canonical, splitCommand } from "../test-runs/argv.ts";
import { checkTestArguments } from "../test-runs/inside.ts";
import {
	charStartFrom,
	killMarkedGroup,
	type ProcessResult,
	runProcess,
	wholeCharsEnd,
} from "../test-runs/process.ts";
import {
	cannotStart,
	chooseSandbox,
	type RunSandbox,
	signalOfExit,
	wrapCommand,
} from "../test-runs/sandboxed.ts";
import { suggestTests } from "../test-runs/suggestions.ts";
import { PatchDoesNotApply, proposalWorkdir } from "../test-runs/workdir.ts";
import { mintId, nowIso } from "../vocabulary/ids.ts";
import type { TestRunRecord } from "../vocabulary/records.ts";
import type { TestRunStatus } from "../vocabulary/statuses.ts";

export const TESTLOGS_DIR = LAYOUT.testlogs;
const logPath = (root: string, id: string) => join(root, TESTLOGS_DIR, `${id}.log`);
const SUMMARY_LINES = 10;
const RESULT_LOG_BYTES = 64 * 1024;
const PROGRESS_EVERY_MS = 1000;
const MAX_EVIDENCE_COMMAND = 4 * 1024;
const MAX_EVIDENCE_SUMMARY = 16 * 1024;
/** In a test's environment: the run's id, which tests may read and which marks its processes. */
const RUN_ID_VARIABLE = "ROUNDTABLE_TEST_RUN_ID";

/** The environment a test sees: the allowlisted variables, never Roundtable's own (its token). */
function testEnv(allowlist: readonly string[]): Record<string, string> {
	const env: Record<string, string> = {};
	for (const name of allowlist) {
		const value = process.env[name];
		if (value !== undefined && !name.startsWith("ROUNDTABLE_")) env[name] = value;
	}
	return env;
}

function summarize(output: Uint8Array): string {
	const lines = new TextDecoder()
		.decode(output)
		.split("\n")
		.filter((l) => l.trim() !== "");
	return lines.slice(-SUMMARY_LINES).join("\n").slice(-2000) || "No test output captured.";
}

function statusOf(r: ProcessResult): TestRunStatus {
	if (r.error) return "error";
	if (r.timed_out) return "timed_out";
	if (r.cancelled) return "cancelled";
	return r.exit_code === 0 ? "passed" : "failed";
}

/** The last `bytes` of a log, from a character boundary. */
function tail(text: Uint8Array, bytes: number): string {
	const from = text.byteLength > bytes ? charStartFrom(text, text.byteLength - bytes) : 0;
	return new TextDecoder().decode(text.subarray(from));
}

/** The run's row finished, and its test.finished event. */
async function recordFinish(tx: Tx, run: TestRunRecord, o: TestRunOutcome, actor: string, now: string) {
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

	mkdirSync(join(env.rt.root, TESTLOGS_DIR), { recursive: true, mode: 0o700 });
	writeFileAtomic(logPath(env.rt.root, testRun.id), result.output, 0o600);
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
	{ rt, ctx }: Env,
): Promise<ProcessResult> {
	// The copy is taken under the repository lock: never a half-applied tree.
	const workdir = patch
		? await withRepository(rt, "shared", () =>
				proposalWorkdir(rt.root, patchPath(rt.root, patch.sha256), patch.strip),
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
		{ dir, project: !workdir, dependencies: workdir?.dependencies ?? [] },
		rt.config.tests.network,
	);
	const problem =
		sandbox.sandbox === "bwrap" ? cannotStart(argv[0] as string, dir, command.env.PATH) : undefined;
	if (problem) {
		workdir?.remove();
		clearInterval(heartbeat);
		return { ...NOT_STARTED, error: problem, output: new Uint8Array() };
	}
	try {
		const r = await runProcess({
			argv: command.argv,
			cwd: dir,
			env: command.env,
			onStart: (group) => {
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
		clearInterval(heartbeat);
		await recorded;
		workdir?.remove();
	}
}

/** A page of a stored log: `max_bytes` from `offset`, by default the last page. */
function readLog(path: string, offset: number | undefined, maxBytes: number) {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		return { log: "", offset: 0, next_offset: null, log_bytes: 0 };
	}
	try {
		const size = fstatSync(fd).size;
		const from = Math.min(offset ?? Math.max(0, size - maxBytes), size);
		const buffer = Buffer.alloc(Math.min(maxBytes, size - from));
		const read = buffer.byteLength === 0 ? 0 : readSync(fd, buffer, 0, buffer.byteLength, from);
		// A page starts and ends on whole UTF-8 characters, so the pages next_offset chains are the log
		// (unless a page is too small to hold one character: then it still moves on).
		const start = charStartFrom(buffer.subarray(0, read), 0);
		const cut = from + read < size ? wholeCharsEnd(buffer, read) : read;
		const stop = cut > start ? cut : read;
		const end = from + stop;
		return {
			log: buffer.subarray(start, stop).toString("utf8"),
			offset: from + start,
			next_offset: end < size ? end : null,
			log_bytes: size,
		};
	} finally {
		closeSync(fd);
	}
}

export async function get(a: Args<"test.get_result">, env: Env) {
	const test_run = await env.rt.store.withTransaction("read", (tx) => tx.testRuns.get(a.test_run_id));
	if (!test_run) throw notFound(`test run ${a.test_run_id} not found`, { test_run_id: a.test_run_id });
	// The log is read after the transaction: no file I/O inside one.
	const page = readLog(logPath(env.rt.root, test_run.id), a.offset, a.max_bytes ?? RESULT_LOG_BYTES);
	// A run that ended before its command ran (status error) has no log file: its reason is the log.
	const log = page.log_bytes === 0 && test_run.status === "error" ? test_run.summary_md : page.log;
	return { test_run, ...page, log };
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
