import { type } from "arktype";
import { callerId, nonBlank } from "../domain/scalars.ts";
import { pendingRecord } from "./records.ts";
import { tool } from "./types.ts";

export const testTools = [
	tool({
		name: "test.suggest",
		family: "tests",
		title: "Suggest tests",
		description: "Suggest test commands for a proposal or task.",
		args: type({ "proposal_id?": callerId, "task_id?": callerId }),
		output: type({ task_id: "string | null", proposal_id: "string | null", commands: "string[]" }),
		mutates: false,
	}),
	tool({
		name: "test.run",
		family: "tests",
		title: "Run tests",
		description: "Run an allowlisted test command in the repository and record its result.",
		args: type({ command: nonBlank, "proposal_id?": callerId, "task_id?": callerId }),
		output: type({ test_run: pendingRecord, log: "string" }),
		mutates: true,
		destructive: true,
	}),
	tool({
		name: "test.get_result",
		family: "tests",
		title: "Get a test result",
		description: "Fetch a recorded test run and its log.",
		args: type({ test_run_id: callerId }),
		output: type({ test_run: pendingRecord, log: "string" }),
		mutates: false,
	}),
	tool({
		name: "test.evidence.submit",
		family: "tests",
		title: "Submit test evidence",
		description:
			"For testers: report a test outcome (passed, failed, inconclusive) for a proposal. Stored as `reported`, never as a trusted pass.",
		args: type({ proposal_id: callerId, command: nonBlank, outcome: nonBlank, summary_md: nonBlank }),
		output: type({ evidence: pendingRecord }),
		mutates: true,
	}),
] as const;
