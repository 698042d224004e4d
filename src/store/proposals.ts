import type { PatchRevisionRecord, ProposalRecord } from "../vocabulary/records.ts";
import type { ProposalStatus } from "../vocabulary/statuses.ts";
import type { Conn, Params } from "./db.ts";

interface ProposalRow extends Omit<ProposalRecord, "expected_tests" | "patch_sha256" | "patch_files"> {
	expected_tests: string;
	patch_sha256: string;
	patch_files: string;
}

// The proposal with its current patch revision's hash and files, in one read.
const SELECT = `SELECT p.id, p.task_id, p.agent_id, p.run_id, p.title, p.summary_md, p.risk, p.status, p.status_reason,
	p.patch_revision, r.sha256 AS patch_sha256, r.files AS patch_files, p.expected_tests, p.rollback_notes, p.revision,
	p.created_at, p.updated_at
	FROM proposals p JOIN patch_revisions r ON r.proposal_id = p.id AND r.number = p.patch_revision`;

const toRecord = (r: ProposalRow): ProposalRecord => ({
	...r,
	expected_tests: JSON.parse(r.expected_tests),
	patch_files: JSON.parse(r.patch_files),
});

export interface NewProposal {
	id: string;
	task_id: string;
	agent_id: string;
	run_id: string | null;
	title: string;
	summary_md: string;
	risk: ProposalRecord["risk"];
	expected_tests: string[];
	rollback_notes: string | null;
}

export interface NewRevision {
	sha256: string;
	size: number;
	strip: number;
	files: string[];
	created_by: string;
	/** Per touched path, the sha256 of its bytes where the revision was made ('' absent); none for a hand-written patch. */
	base?: Record<string, string>;
}

export interface ProposalFilter {
	task_id?: string;
	status?: ProposalStatus;
	agent_id?: string;
	run_id?: string;
}

export const proposalQueries = (c: Conn) => ({
	async get(id: string): Promise<ProposalRecord | undefined> {
		const row = c.get<ProposalRow>(`${SELECT} WHERE p.id = ?`, id);
		return row && toRecord(row);
	},

	/** A new proposal at patch revision 1. */
	async insert(p: NewProposal, revision: NewRevision, now: string): Promise<ProposalRecord> {
		c.run(
			`INSERT INTO proposals (id, task_id, agent_id, run_id, title, summary_md, risk, status, patch_revision,
			 expected_tests, rollback_notes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?, ?, ?)`,
			p.id,
			p.task_id,
			p.agent_id,
			p.run_id,
			p.title,
			p.summary_md,
			p.risk,
			JSON.stringify(p.expected_tests),
			p.rollback_notes,
			now,
			now,
		);
		this.addRevision(p.id, 1, revision, now);
		return (await this.get(p.id)) as ProposalRecord;
	},

	addRevision(proposalId: string, number: number, r: NewRevision, now: string): void {
		c.run(
			"INSERT INTO patch_revisions (proposal_id, number, sha256, size, strip, files, created_by, created_at, base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			proposalId,
			number,
			r.sha256,
			r.size,
			r.strip,
			JSON.stringify(r.files),
			r.created_by,
			now,
			r.base === undefined ? null : JSON.stringify(r.base),
		);
	},

	/** The next patch revision: recorded, made current, and the proposal back to pending. */
	async revise(id: string, number: number, r: NewRevision, now: string): Promise<ProposalRecord> {
		this.addRevision(id, number, r, now);
		c.run(
			`UPDATE proposals SET patch_revision = ?, status = 'pending', status_reason = NULL, revision = revision + 1,
			 updated_at = ? WHERE id = ?`,
			number,
			now,
			id,
		);
		return (await this.get(id)) as ProposalRecord;
	},

	async setStatus(
		id: string,
		status: ProposalStatus,
		reason: string | null,
		now: string,
	): Promise<ProposalRecord> {
		c.run(
			"UPDATE proposals SET status = ?, status_reason = ?, revision = revision + 1, updated_at = ? WHERE id = ?",
			status,
			reason,
			now,
			id,
		);
		return (await this.get(id)) as ProposalRecord;
	},

	/**
	 * `setStatus` for a proposal read in this same transaction: the fields the change touches come
	 * back from the update itself, the rest (its patch revision's) from `p`, so nothing is re-read.
	 */
	async setStatusOf(
		p: ProposalRecord,
		status: ProposalStatus,
		reason: string | null,
		now: string,
	): Promise<ProposalRecord> {
		const changed = c.get<Pick<ProposalRecord, "status" | "status_reason" | "revision" | "updated_at">>(
			`UPDATE proposals SET status = ?, status_reason = ?, revision = revision + 1, updated_at = ? WHERE id = ?
			 RETURNING status, status_reason, revision, updated_at`,
			status,
			reason,
			now,
			p.id,
		);
		if (!changed) throw new Error(`proposal ${p.id} is gone`);
		return { ...p, ...changed };
	},

	/**
	 * Of these proposals, the ones anything was recorded on: a vote, a test run, a human approval or
	 * a security review. Nothing needs reading for the others' decision evidence: it is empty.
	 */
	async withVerdicts(ids: readonly string[]): Promise<Set<string>> {
		if (ids.length === 0) return new Set();
		const rows = c.all<{ id: string }>(
			`SELECT i.value AS id FROM json_each(?) i
			 WHERE EXISTS (SELECT 1 FROM votes WHERE proposal_id = i.value)
			 OR EXISTS (SELECT 1 FROM test_runs WHERE proposal_id = i.value)
			 OR EXISTS (SELECT 1 FROM human_approvals WHERE proposal_id = i.value)
			 OR EXISTS (SELECT 1 FROM security_reviews WHERE proposal_id = i.value)`,
			JSON.stringify(ids),
		);
		return new Set(rows.map((r) => r.id));
	},

	async revisions(id: string): Promise<PatchRevisionRecord[]> {
		return c
			.all<PatchRevisionRecord & { files: string }>(
				"SELECT number, sha256, size, files, created_by, created_at FROM patch_revisions WHERE proposal_id = ? ORDER BY number",
				id,
			)
			.map((r) => ({ ...r, files: JSON.parse(r.files as unknown as string) }));
	},

	/** Where the current patch revision's bytes are and how to strip its paths. */
	async currentPatch(
		id: string,
	): Promise<
		{ sha256: string; strip: number; number: number; base: Record<string, string> | null } | undefined
	> {
		const row = c.get<{ sha256: string; strip: number; number: number; base: string | null }>(
			`SELECT r.sha256, r.strip, r.number, r.base FROM proposals p JOIN patch_revisions r
			 ON r.proposal_id = p.id AND r.number = p.patch_revision WHERE p.id = ?`,
			id,
		);
		return (
			row && { ...row, base: row.base === null ? null : (JSON.parse(row.base) as Record<string, string>) }
		);
	},

	async setResources(id: string, resourceIds: string[]): Promise<void> {
		c.run("DELETE FROM proposal_resources WHERE proposal_id = ?", id);
		for (const r of resourceIds)
			c.run("INSERT INTO proposal_resources (proposal_id, resource_id) VALUES (?, ?)", id, r);
	},

	async resources(id: string): Promise<string[]> {
		return c
			.all<{ resource_id: string }>(
				"SELECT resource_id FROM proposal_resources WHERE proposal_id = ? ORDER BY resource_id",
				id,
			)
			.map((r) => r.resource_id);
	},

	async list(
		filter: ProposalFilter,
		after: { created_at: string; id: string } | undefined,
		limit: number,
	): Promise<ProposalRecord[]> {
		const where: string[] = [];
		const params: Params = [];
		for (const column of ["task_id", "status", "agent_id", "run_id"] as const) {
			if (filter[column] !== undefined) {
				where.push(`p.${column} = ?`);
				params.push(filter[column]);
			}
		}
		if (after) {
			where.push("(p.created_at, p.id) > (?, ?)");
			params.push(after.created_at, after.id);
		}
		const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
		return c
			.all<ProposalRow>(`${SELECT} ${clause} ORDER BY p.created_at, p.id LIMIT ?`, ...params, limit)
			.map(toRecord);
	},

	/** How many of the task's proposals are open (pending or in review). */
	async openCount(taskId: string): Promise<number> {
		return (
			c.get<{ n: number }>(
				"SELECT count(*) AS n FROM proposals WHERE task_id = ? AND status IN ('pending', 'in_review')",
				taskId,
			)?.n ?? 0
		);
	},

	/** The task's newest proposal still in play (neither withdrawn, rejected nor rolled back). */
	async latestForTask(taskId: string): Promise<ProposalRecord | undefined> {
		const row = c.get<ProposalRow>(
			`${SELECT} WHERE p.task_id = ? AND p.status NOT IN ('withdrawn', 'rejected', 'rolled_back')
			 ORDER BY p.created_at DESC, p.id DESC LIMIT 1`,
			taskId,
		);
		return row && toRecord(row);
	},

	async withStatuses(statuses: readonly ProposalStatus[]): Promise<ProposalRecord[]> {
		return c
			.all<ProposalRow>(
				`${SELECT} WHERE p.status IN (${statuses.map(() => "?").join(", ")}) ORDER BY p.created_at, p.id`,
				...statuses,
			)
			.map(toRecord);
	},

	/**
	 * The run's proposals with these statuses: those recorded in the run, and those of no run whose
	 * task is the run's (or, with `unscoped`, of no run at all).
	 */
	async ofRun(
		runId: string,
		statuses: readonly ProposalStatus[],
		unscoped = false,
	): Promise<ProposalRecord[]> {
		return c
			.all<ProposalRow>(
				`${SELECT} WHERE p.status IN (${statuses.map(() => "?").join(", ")}) AND (p.run_id = ? OR (p.run_id IS NULL
				 AND coalesce((SELECT t.run_id FROM tasks t WHERE t.id = p.task_id), '') IN (?, ?)))
				 ORDER BY p.created_at, p.id`,
				...statuses,
				runId,
				runId,
				unscoped ? "" : runId,
			)
			.map(toRecord);
	},

	/**
	 * How many of the run's proposals (as `ofRun` without `unscoped` finds them) have each status,
	 * read from the indexes of the run's proposals and of its tasks, not from every proposal; as
	 * `tasks.statusCounts` does for its tasks.
	 */
	async statusCounts(runId: string): Promise<Partial<Record<ProposalStatus, number>>> {
		const rows = c.all<{ status: ProposalStatus; n: number }>(
			`SELECT status, count(*) AS n FROM (
				SELECT status FROM proposals WHERE run_id = ?
				UNION ALL
				SELECT p.status FROM tasks t JOIN proposals p ON p.task_id = t.id WHERE t.run_id = ? AND p.run_id IS NULL
			) GROUP BY status`,
			runId,
			runId,
		);
		return Object.fromEntries(rows.map((r) => [r.status, r.n]));
	},

	/** The agent's proposals with these statuses, newest first. */
	async ofAgent(agentId: string, statuses: readonly ProposalStatus[]): Promise<ProposalRecord[]> {
		return c
			.all<ProposalRow>(
				`${SELECT} WHERE p.agent_id = ? AND p.status IN (${statuses.map(() => "?").join(", ")})
				 ORDER BY p.created_at DESC, p.id DESC`,
				agentId,
				...statuses,
			)
			.map(toRecord);
	},

	async all(): Promise<ProposalRecord[]> {
		return c.all<ProposalRow>(`${SELECT} ORDER BY p.created_at, p.id`).map(toRecord);
	},
});
