import { type } from "arktype";
import { callerId, nonBlank, nonNegativeInt } from "../domain/scalars.ts";
import { TEST_OUTCOMES } from "../domain/statuses.ts";
import { testEvidenceRecord, testRunRecord } from "./records.ts";
import { tool } from "./types.ts";

const suggestion = type({ command: "string", reason: "string" });

export const testTools = [
	tool({
		name: "test.suggest",
		family: "tests",
		title: "Suggest tests",
		description:
			"Suggest test commands for a proposal or task by looking at the project (package.json scripts and lockfile, go.mod, Cargo.toml, pytest config, a Makefile `test` target), narrowed to the ecosystems and packages the proposal touches, plus its expected_tests. Each suggestion says why; every one is allowed by tests.allowed_commands and its program is on PATH (the others are listed under `skipped`, with the reason).",
		args: type({ "proposal_id?": callerId, "task_id?": callerId }),
		output: type({
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
		title: "Run tests",
		description:
			"Run a test command and record the result. The command is split into argv like a shell would quote it, but no shell runs: `;`, `|`, `&&`, redirects and `$()` are plain argument text. It must start with one of tests.allowed_commands. With proposal_id it runs in a scratch copy of the project with the proposal's current patch revision applied (so a pass means the patch passes) and binds to that revision; without, in the project root. Its own process group, a scrubbed environment, a timeout and an output cap; progress notifications carry the elapsed time and the latest output line; cancelling the call kills it. A failing test is a result, not a tool error.",
		args: type({
			command: nonBlank,
			"proposal_id?": callerId,
			"task_id?": callerId,
			"timeout_seconds?": type("1 <= number.integer <= 86400").describe("an integer from 1 to 86400"),
		}),
		argDocs: {
			timeout_seconds: "Kill it after this long (at most tests.timeout_seconds, the default).",
		},
		output: type({ test_run: testRunRecord, log: "string" }),
		mutates: true,
		destructive: true,
	}),
	tool({
		name: "test.get_result",
		family: "tests",
		title: "Get a test result",
		description:
			"A recorded test run and a page of its log: `max_bytes` from `offset` (default the last 64 KiB); `next_offset` pages on, null at the end.",
		args: type({
			test_run_id: callerId,
			"offset?": nonNegativeInt,
			"max_bytes?": type("1 <= number.integer <= 1048576").describe("an integer from 1 to 1048576"),
		}),
		argDocs: {
			offset: "Byte offset in the log to start from (default: the last max_bytes).",
			max_bytes: "Bytes of log to return (default 65536, at most 1 MiB).",
		},
		output: type({
			test_run: testRunRecord,
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
		title: "Submit test evidence",
		description:
			"For agents with the Tester role: report a test outcome (passed, failed, inconclusive) for a proposal's current patch revision. Stored as `reported` and shown by patch.validate, but never counted as a trusted pass by policy.",
		args: type({
			proposal_id: callerId,
			agent_id: callerId,
			command: nonBlank,
			outcome: type.enumerated(...TEST_OUTCOMES),
			summary_md: nonBlank,
		}),
		argDocs: {
			agent_id: "The reporting tester.",
			command: "What was run (at most 4 KiB).",
			summary_md: "What was seen (at most 16 KiB).",
		},
		output: type({ evidence: testEvidenceRecord }),
		mutates: true,
	}),
] as const;
