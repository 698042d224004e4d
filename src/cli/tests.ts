// `tests [list]` and `tests show ID`: the recorded test runs and their logs, for the operator. Runs
// are made with the test.run tool; these commands only read.
import { call } from "../dispatch.ts";
import { didYouMean, suggestion } from "../domain/text.ts";
import type { TestRunRecord } from "../vocabulary/records.ts";
import { TEST_RUN_STATUSES, type TestRunStatus } from "../vocabulary/statuses.ts";
import { type Flags, UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";
import { print } from "./output.ts";
import { withRuntime } from "./runtime.ts";

const seconds = (ms: number | null) => (ms === null ? "-" : `${(ms / 1000).toFixed(1)}s`);

/** `<id> <status> <exit code or signal> <duration> <proposal>@r<revision> <sandboxed|unsandboxed> <command>` */
const line = (r: TestRunRecord) =>
	[
		r.id,
		r.status,
		r.signal ?? (r.exit_code === null ? "-" : `exit ${r.exit_code}`),
		seconds(r.duration_ms),
		r.proposal_id === null ? "project" : `${r.proposal_id}@r${r.patch_revision}`,
		r.sandbox === "bwrap" ? "sandboxed" : "unsandboxed",
		r.command,
	].join(" ");

/** `sandbox: bwrap`, or `sandbox: none (why)`. */
const sandboxLine = (r: TestRunRecord) =>
	r.sandbox === "bwrap" ? "sandbox: bwrap" : `sandbox: none (${r.sandbox_reason ?? "no reason recorded"})`;

function statusFlag(flags: Flags): TestRunStatus | undefined {
	const status = flags.status;
	if (status === undefined) return undefined;
	if ((TEST_RUN_STATUSES as readonly unknown[]).includes(status)) return status as TestRunStatus;
	throw new UsageError(
		`--status must be one of ${TEST_RUN_STATUSES.join(", ")}${suggestion(didYouMean(String(status), TEST_RUN_STATUSES))}`,
	);
}

function limitFlag(flags: Flags): number {
	const limit = (flags.limit as number | undefined) ?? 20;
	if (limit < 1 || limit > 1000) throw new UsageError("--limit must be an integer from 1 to 1000");
	return limit;
}

export const list: CommandRun = {
	run: (flags) => {
		const filter = {
			status: statusFlag(flags),
			...(typeof flags.proposal === "string" && { proposal_id: flags.proposal }),
		};
		const limit = limitFlag(flags);
		return withRuntime(flags.root, async (rt) => {
			const runs = await rt.store.withTransaction("read", (tx) => tx.testRuns.list(filter, limit));
			return print(flags, { test_runs: runs }, runs.map(line));
		});
	},
};

/** The run, its summary and its whole log, page by page through test.get_result. */
export const show: CommandRun = {
	run: (flags) => {
		const id = flags["test-run"];
		if (typeof id !== "string") throw new UsageError("a test run id is required (TR-…)");
		return withRuntime(flags.root, async (rt, ctx) => {
			let offset = 0;
			let page: { test_run: TestRunRecord; log: string; next_offset: number | null };
			const parts: string[] = [];
			do {
				page = await call(rt, "test.get_result", { test_run_id: id, offset }, ctx);
				parts.push(page.log);
				offset = page.next_offset ?? 0;
			} while (page.next_offset !== null);
			const log = parts.join("");
			if (flags.json) return print(flags, { test_run: page.test_run, log }, []);
			process.stdout.write(
				`${line(page.test_run)}\n${sandboxLine(page.test_run)}\n\n${log}${log.endsWith("\n") || log === "" ? "" : "\n"}`,
			);
			return 0;
		});
	},
};
