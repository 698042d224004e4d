import type { TestRunRecord } from "../registry/records.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, proposal_id, task_id, command, status, exit_code, summary_md, patch_revision, started_at, finished_at, revision, created_at, updated_at";

export type NewTestRun = Omit<TestRunRecord, "revision" | "created_at" | "updated_at">;

export const testRunQueries = (c: Conn) => ({
	async get(id: string): Promise<TestRunRecord | undefined> {
		return c.get<TestRunRecord>(`SELECT ${COLUMNS} FROM test_runs WHERE id = ?`, id);
	},

	async insert(t: NewTestRun, now: string): Promise<TestRunRecord> {
		return c.get<TestRunRecord>(
			`INSERT INTO test_runs (id, proposal_id, task_id, command, status, exit_code, summary_md, patch_revision, started_at,
			 finished_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
			t.id,
			t.proposal_id,
			t.task_id,
			t.command,
			t.status,
			t.exit_code,
			t.summary_md,
			t.patch_revision,
			t.started_at,
			t.finished_at,
			now,
			now,
		) as TestRunRecord;
	},

	/** The commands that passed on this patch revision of the proposal. */
	async passedCommands(proposalId: string, patchRevision: number): Promise<string[]> {
		return c
			.all<{ command: string }>(
				"SELECT DISTINCT command FROM test_runs WHERE proposal_id = ? AND patch_revision = ? AND status = 'passed'",
				proposalId,
				patchRevision,
			)
			.map((r) => r.command);
	},
});
