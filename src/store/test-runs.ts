import type { TestEvidenceRecord, TestRunRecord } from "../vocabulary/records.ts";
import type { TestRunStatus } from "../vocabulary/statuses.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, proposal_id, task_id, command, argv, status, exit_code, signal, duration_ms, summary_md, patch_revision, workdir, sandbox, sandbox_reason, requested_by, output_bytes, truncated, started_at, finished_at, revision, created_at, updated_at";

interface TestRunRow extends Omit<TestRunRecord, "argv" | "truncated"> {
	argv: string;
	truncated: number;
}

const toRecord = (r: TestRunRow): TestRunRecord => ({
	...r,
	argv: JSON.parse(r.argv),
	truncated: r.truncated === 1,
});

export type NewTestRun = Pick<
	TestRunRecord,
	| "id"
	| "proposal_id"
	| "task_id"
	| "command"
	| "argv"
	| "patch_revision"
	| "workdir"
	| "sandbox"
	| "sandbox_reason"
	| "requested_by"
	| "started_at"
>;

export type TestRunOutcome = Pick<
	TestRunRecord,
	| "status"
	| "exit_code"
	| "signal"
	| "duration_ms"
	| "summary_md"
	| "output_bytes"
	| "truncated"
	| "finished_at"
>;

export const testRunQueries = (c: Conn) => ({
	async get(id: string): Promise<TestRunRecord | undefined> {
		const row = c.get<TestRunRow>(`SELECT ${COLUMNS} FROM test_runs WHERE id = ?`, id);
		return row && toRecord(row);
	},

	/** A run as it starts: status running, in this process. */
	async insert(t: NewTestRun, now: string): Promise<TestRunRecord> {
		return toRecord(
			c.get<TestRunRow>(
				`INSERT INTO test_runs (id, proposal_id, task_id, command, argv, status, patch_revision, workdir, sandbox,
				 sandbox_reason, requested_by, runner_pid, started_at, created_at, updated_at)
				 VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)
				 RETURNING ${COLUMNS}`,
				t.id,
				t.proposal_id,
				t.task_id,
				t.command,
				JSON.stringify(t.argv),
				t.patch_revision,
				t.workdir,
				t.sandbox,
				t.sandbox_reason,
				t.requested_by,
				process.pid,
				t.started_at,
				now,
				now,
			) as TestRunRow,
		);
	},

	/** How a running run ended. */
	async finish(id: string, o: TestRunOutcome, now: string): Promise<TestRunRecord> {
		return toRecord(
			c.get<TestRunRow>(
				`UPDATE test_runs SET status = ?, exit_code = ?, signal = ?, duration_ms = ?, summary_md = ?, output_bytes = ?,
				 truncated = ?, finished_at = ?, revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
				o.status,
				o.exit_code,
				o.signal,
				o.duration_ms,
				o.summary_md,
				o.output_bytes,
				o.truncated ? 1 : 0,
				o.finished_at,
				now,
				id,
			) as TestRunRow,
		);
	},

	/** The newest runs first, optionally of one proposal or with one status. */
	async list(
		filter: { proposal_id?: string; status?: TestRunStatus },
		limit: number,
	): Promise<TestRunRecord[]> {
		const where: string[] = [];
		const params: (string | number)[] = [];
		if (filter.proposal_id !== undefined) {
			where.push("proposal_id = ?");
			params.push(filter.proposal_id);
		}
		if (filter.status !== undefined) {
			where.push("status = ?");
			params.push(filter.status);
		}
		const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
		return c
			.all<TestRunRow>(
				`SELECT ${COLUMNS} FROM test_runs ${clause} ORDER BY started_at DESC, id DESC LIMIT ?`,
				...params,
				limit,
			)
			.map(toRecord);
	},

	/** The process group the test command leads, once it has started. */
	async setProcessGroup(id: string, group: number): Promise<void> {
		c.run("UPDATE test_runs SET process_group = ? WHERE id = ?", group, id);
	},

	/** Runs still `running`, with the pid of the process running each and the test's process group. */
	async running(): Promise<(TestRunRecord & { runner_pid: number | null; process_group: number | null })[]> {
		return c
			.all<TestRunRow & { runner_pid: number | null; process_group: number | null }>(
				`SELECT ${COLUMNS}, runner_pid, process_group FROM test_runs WHERE status = 'running' ORDER BY started_at, id`,
			)
			.map(({ runner_pid, process_group, ...r }) => ({ ...toRecord(r), runner_pid, process_group }));
	},

	/** The commands that passed on this patch revision of the proposal. */
	/** The passing runs of a proposal's revision, newest first, with the sandbox each had. */
	async passes(
		proposalId: string,
		patchRevision: number,
	): Promise<{ id: string; command: string; sandboxed: boolean }[]> {
		return c
			.all<{ id: string; command: string; sandbox: "bwrap" | "none" }>(
				"SELECT id, command, sandbox FROM test_runs WHERE proposal_id = ? AND patch_revision = ? AND status = 'passed' ORDER BY created_at DESC, id DESC",
				proposalId,
				patchRevision,
			)
			.map((r) => ({ id: r.id, command: r.command, sandboxed: r.sandbox === "bwrap" }));
	},
});

const EVIDENCE_COLUMNS =
	"id, proposal_id, patch_revision, agent_id, session_id, command, outcome, summary_md, status, revision, created_at, updated_at";

export type NewEvidence = Omit<TestEvidenceRecord, "status" | "revision" | "created_at" | "updated_at">;

export const testEvidenceQueries = (c: Conn) => ({
	async insert(e: NewEvidence, now: string): Promise<TestEvidenceRecord> {
		return c.get<TestEvidenceRecord>(
			`INSERT INTO test_evidence (id, proposal_id, patch_revision, agent_id, session_id, command, outcome, summary_md,
			 created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${EVIDENCE_COLUMNS}`,
			e.id,
			e.proposal_id,
			e.patch_revision,
			e.agent_id,
			e.session_id,
			e.command,
			e.outcome,
			e.summary_md,
			now,
			now,
		) as TestEvidenceRecord;
	},

	/** What testers reported on this revision of the proposal, oldest first. */
	async forRevision(proposalId: string, patchRevision: number): Promise<TestEvidenceRecord[]> {
		return c.all<TestEvidenceRecord>(
			`SELECT ${EVIDENCE_COLUMNS} FROM test_evidence WHERE proposal_id = ? AND patch_revision = ? ORDER BY created_at, id`,
			proposalId,
			patchRevision,
		);
	},
});
