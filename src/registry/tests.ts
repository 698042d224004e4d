import { callerId, nonBlank, nonNegativeInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { testEvidenceRecord, testRunRecord } from "../vocabulary/records.ts";
import { TEST_OUTCOMES, TEST_RUN_STATUSES } from "../vocabulary/statuses.ts";
import { tool } from "./types.ts";

const suggestion = type({ command: "string", reason: "string" });

export const testTools = [
	tool({
		name: "test.suggest",
		family: "tests",
		access: { Implementer: { bound: "task" }, Tester: { bound: "proposal" } },
		title: "Suggest tests",
		description: "Allowed test commands for a proposal or task, each with why. Next: test.run them.",
		details:
			"Suggest test commands for a proposal or task by looking at the project (package.json scripts and lockfile, go.mod, Cargo.toml, pytest config, a Makefile `test` target), narrowed to the ecosystems and packages the proposal touches, plus its expected_tests. Each suggestion says why; every one is allowed by tests.allowed_commands and its program is on PATH (the others are listed under `skipped`, with the reason).",
		args: () => type({ "proposal_id?": callerId, "task_id?": callerId }),
		argDocs: {
			proposal_id: "Proposal to cover.",
			task_id: "Task to cover.",
		},
		output: () =>
			type({
				task_id: "string | null",
				proposal_id: "string | null",
				commands: "string[]",
				suggestions: suggestion.array(),
				skipped: suggestion.array(),
			}),
		mutates: false,
	}),
	tool({
		name: "test.run",
		family: "tests",
		access: {
			Implementer: { bound: "task", needs: ["proposal_id"] },
			Tester: { bound: "proposal", needs: ["proposal_id"] },
		},
		title: "Run tests",
		description:
			"Run an allowed test command (no shell) and record it; with proposal_id, on a copy with its diff applied. A failure is a result. Next: patch.validate.",
		details:
			"Run a test command and record the result. The command is split into argv like a shell would quote it, but no shell runs: `;`, `|`, `&&`, redirects and `$()` are plain argument text. It must start with one of tests.allowed_commands. With proposal_id it runs in a scratch copy of the project with the proposal's current patch revision applied (so a pass means the patch passes) and binds to that revision; without, in the project root. Its own process group, a scrubbed environment, a timeout and an output cap; progress notifications carry the elapsed time and the latest output line; cancelling the call kills it. A failing test is a result, not a tool error.",
		args: () =>
			type({
				command: nonBlank,
				"proposal_id?": callerId,
				"task_id?": callerId,
				"timeout_seconds?": type("1 <= number.integer <= 86400").describe("an integer from 1 to 86400"),
			}),
		argDocs: {
			command: "Starts with an allowed command.",
			proposal_id: "Test this proposal's diff.",
			task_id: "Task to record it for.",
			timeout_seconds: "Kill after (default the max).",
			idempotency_key: "Runs once on retry.",
		},
		output: () => type({ test_run: testRunRecord(), log: "string" }),
		reads: "readable",
		mutates: true,
		destructive: true,
	}),
	tool({
		name: "test.get_result",
		family: "tests",
		access: { Implementer: { bound: "task" }, Tester: { bound: "proposal" } },
		title: "Get a test result",
		description: "A recorded test run and a page of its log. Next: test.get_result from next_offset.",
		details:
			"A recorded test run and a page of its log: `max_bytes` from `offset` (default the last 64 KiB); `next_offset` pages on, null at the end.",
		args: () =>
			type({
				test_run_id: callerId,
				"offset?": nonNegativeInt,
				"max_bytes?": type("1 <= number.integer <= 1048576").describe("an integer from 1 to 1048576"),
			}),
		argDocs: {
			test_run_id: "From test.run.",
			offset: "Start byte (default: the last page).",
			max_bytes: "Page size (default 64 KiB).",
		},
		output: () =>
			type({
				test_run: testRunRecord(),
				log: "string",
				offset: nonNegativeInt,
				next_offset: nonNegativeInt.or("null"),
				log_bytes: nonNegativeInt,
			}),
		mutates: false,
	}),
	tool({
		name: "test.evidence.submit",
		family: "tests",
		access: { Tester: { bound: "proposal" } },
		actors: ["agent_id"],
		namedByCaller: ["agent_id"],
		title: "Submit test evidence",
		description:
			"Tester: report an outcome on a proposal's current diff; shown, never trusted. Next: test.run for a pass that counts.",
		details:
			"For agents with the Tester role: report a test outcome (passed, failed, inconclusive) for a proposal's current patch revision. Stored as `reported` and shown by patch.validate, but never counted as a trusted pass by policy.",
		args: () =>
			type({
				proposal_id: callerId,
				"agent_id?": callerId,
				command: nonBlank,
				outcome: type.enumerated(...TEST_OUTCOMES),
				summary_md: nonBlank,
			}),
		argDocs: {
			proposal_id: "Proposal you tested.",
			agent_id: "The tester: you.",
			command: "What you ran.",
			outcome: "What happened.",
			summary_md: "What you saw.",
			idempotency_key: "Reports once on retry.",
		},
		output: () => type({ evidence: testEvidenceRecord() }),
		mutates: true,
	}),
	tool({
		name: "test.sweep_interrupted",
		family: "tests",
		visibility: "internal",
		title: "Sweep interrupted test runs",
		description: "Mark test runs a crash left running as interrupted; the owner calls it at start.",
		details:
			"A test run still `running` whose runner process is gone (or is this process, which just started) becomes `interrupted` (`test.finished`), and the processes it left behind are stopped. A run whose runner still lives (a `mcp call` beside the owner) is left alone.",
		args: () => type({}),
		argDocs: { idempotency_key: "Sweeps once on retry." },
		output: () => type({ test_run_ids: "string[]" }),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "test.list",
		family: "tests",
		visibility: "operator",
		title: "List test runs",
		description: "Recorded test runs, newest first, of one proposal or of all.",
		details:
			"Recorded test runs, newest first, optionally of one proposal or with one status, each with its revision, sandbox, exit code and times (the log: test.get_result). Read-only.",
		args: () =>
			type({
				"proposal_id?": callerId,
				"status?": type.enumerated(...TEST_RUN_STATUSES),
				"limit?": type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000"),
			}),
		argDocs: {
			proposal_id: "Only this proposal's.",
			status: "Only this status.",
			limit: "At most (default 200).",
		},
		output: () => type({ test_runs: testRunRecord().array() }),
		mutates: false,
	}),
] as const;
