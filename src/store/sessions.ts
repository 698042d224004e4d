import type { SessionOutcome, SessionStatus } from "../vocabulary/statuses.ts";
import type { Conn } from "./db.ts";
import type { SessionCounts } from "./runs.ts";

/** A closed session's unproposed changes: a stored patch and the files it changes. */
export interface SessionDraft {
	sha256: string;
	files: { path: string; change: string }[];
}

export interface SessionRow {
	id: string;
	agent_id: string;
	run_id: string | null;
	adapter: string;
	provider: string | null;
	model: string | null;
	external_session_id: string | null;
	resume_command: string | null;
	cwd: string;
	mcp_socket: string | null;
	status: SessionStatus;
	started_at: string;
	last_seen_at: string;
	ended_at: string | null;
	/** For a minted session: the role it acts in, what it is bound to, when its capability lapses or was revoked. */
	role: string | null;
	task_id: string | null;
	proposal_id: string | null;
	expires_at: string | null;
	revoked_at: string | null;
	/** How many times its agent was started, and how many of those the owner's death cut short. */
	attempt: number;
	interrupted: number;
	/** How its agent last ended; null while none has, or while a retry runs. */
	outcome: SessionOutcome | null;
	revision: number;
	created_at: string;
	updated_at: string;
}

const COLUMNS =
	"id, agent_id, run_id, adapter, provider, model, external_session_id, resume_command, cwd, mcp_socket, status, started_at, last_seen_at, ended_at, role, task_id, proposal_id, expires_at, revoked_at, attempt, interrupted, outcome, revision, created_at, updated_at";

/** What minting a session records besides a registered session's fields. */
export interface MintFields {
	capability_sha256: string;
	role: string;
	task_id: string | null;
	proposal_id: string | null;
	expires_at: string;
}

/** The fields a registered session is given (a minted one as well), in column order. */
const REGISTERED = [
	"id",
	"agent_id",
	"run_id",
	"adapter",
	"provider",
	"model",
	"external_session_id",
	"resume_command",
	"cwd",
	"mcp_socket",
	"status",
] as const satisfies readonly (keyof SessionRow)[];

export type SessionFields = Pick<SessionRow, (typeof REGISTERED)[number]>;

const registered = (s: SessionFields) => REGISTERED.map((k) => s[k]);

export const sessionQueries = (c: Conn) => ({
	async get(id: string): Promise<SessionRow | undefined> {
		return c.get<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`, id);
	},

	/** Records what a closing session's workspace held that no proposal carries. */
	async keepDraft(id: string, draft: SessionDraft, now: string): Promise<void> {
		c.run(
			"INSERT OR REPLACE INTO session_drafts (session_id, sha256, files, created_at) VALUES (?, ?, ?, ?)",
			id,
			draft.sha256,
			JSON.stringify(draft.files),
			now,
		);
	},

	async draftOf(id: string): Promise<SessionDraft | undefined> {
		const row = c.get<{ sha256: string; files: string }>(
			"SELECT sha256, files FROM session_drafts WHERE session_id = ?",
			id,
		);
		return row && { sha256: row.sha256, files: JSON.parse(row.files) as SessionDraft["files"] };
	},

	/** Every kept draft, by session. */
	async drafts(): Promise<Map<string, SessionDraft>> {
		const rows = c.all<{ session_id: string; sha256: string; files: string }>(
			"SELECT session_id, sha256, files FROM session_drafts",
		);
		return new Map(rows.map((r) => [r.session_id, { sha256: r.sha256, files: JSON.parse(r.files) }]));
	},

	async list(): Promise<SessionRow[]> {
		return c.all<SessionRow>(`SELECT ${COLUMNS} FROM sessions ORDER BY started_at, id`);
	},

	/** The agent's session to resume: an active one first, then the most recently seen, then the newest. */
	async latestFor(agentId: string): Promise<SessionRow | undefined> {
		return c.get<SessionRow>(
			`SELECT ${COLUMNS} FROM sessions WHERE agent_id = ?
			 ORDER BY status = 'active' DESC, last_seen_at DESC, started_at DESC, id DESC LIMIT 1`,
			agentId,
		);
	},

	/** Registers a session, or replaces every field of one registered before (keeping when it started). */
	async upsert(s: SessionFields, now: string): Promise<SessionRow> {
		return c.get<SessionRow>(
			`INSERT INTO sessions (${REGISTERED.join(", ")}, started_at, last_seen_at, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id, run_id = excluded.run_id,
			 adapter = excluded.adapter, provider = excluded.provider, model = excluded.model,
			 external_session_id = excluded.external_session_id, resume_command = excluded.resume_command,
			 cwd = excluded.cwd, mcp_socket = excluded.mcp_socket, status = excluded.status, ended_at = NULL,
			 last_seen_at = excluded.last_seen_at, revision = revision + 1, updated_at = excluded.updated_at
			 RETURNING ${COLUMNS}`,
			...registered(s),
			now,
			now,
			now,
			now,
		) as SessionRow;
	},

	/** A heartbeat: seen now; status, external id and resume command change only when given. */
	async heartbeat(
		id: string,
		change: { status?: SessionStatus; external_session_id?: string; resume_command?: string },
		now: string,
	): Promise<SessionRow> {
		return c.get<SessionRow>(
			`UPDATE sessions SET last_seen_at = ?, status = coalesce(?, status),
			 external_session_id = coalesce(?, external_session_id), resume_command = coalesce(?, resume_command),
			 revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
			now,
			change.status ?? null,
			change.external_session_id ?? null,
			change.resume_command ?? null,
			now,
			id,
		) as SessionRow;
	},

	async end(id: string, now: string): Promise<SessionRow> {
		return c.get<SessionRow>(
			`UPDATE sessions SET status = 'ended', ended_at = ?, last_seen_at = ?, revision = revision + 1, updated_at = ?
			 WHERE id = ? RETURNING ${COLUMNS}`,
			now,
			now,
			now,
			id,
		) as SessionRow;
	},

	/** Minted sessions that asked for an endpoint and still stand: the sockets the owner serves. */
	async withEndpoints(now: string): Promise<SessionRow[]> {
		return c.all<SessionRow>(
			`SELECT ${COLUMNS} FROM sessions WHERE mcp_socket IS NOT NULL AND capability_sha256 IS NOT NULL
			 AND status != 'ended' AND revoked_at IS NULL AND expires_at > ? ORDER BY id`,
			now,
		);
	},

	/**
	 * The agents a session still holds at `now`: one not ended and, when minted, neither revoked nor
	 * expired. Sorted by id.
	 */
	async liveAgentIds(now: string): Promise<string[]> {
		return c
			.all<{ agent_id: string }>(
				`SELECT DISTINCT agent_id FROM sessions WHERE status != 'ended' AND revoked_at IS NULL
				 AND (expires_at IS NULL OR expires_at > ?) ORDER BY agent_id`,
				now,
			)
			.map((r) => r.agent_id);
	},

	/** The session a capability opens, by the token's SHA-256. */
	async byCapability(sha256: string): Promise<SessionRow | undefined> {
		return c.get<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE capability_sha256 = ?`, sha256);
	},

	/** A new session with a capability (its hash only). */
	async mint(s: SessionFields & MintFields, now: string): Promise<SessionRow> {
		return c.get<SessionRow>(
			`INSERT INTO sessions (${REGISTERED.join(", ")}, started_at, last_seen_at, capability_sha256, role, task_id,
			 proposal_id, expires_at, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
			...registered(s),
			now,
			now,
			s.capability_sha256,
			s.role,
			s.task_id,
			s.proposal_id,
			s.expires_at,
			now,
			now,
		) as SessionRow;
	},

	/** Revokes a session's capability at once; the session ends with it. */
	async revoke(id: string, now: string): Promise<SessionRow> {
		return c.get<SessionRow>(
			`UPDATE sessions SET revoked_at = ?, status = 'ended', ended_at = coalesce(ended_at, ?),
			 revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
			now,
			now,
			now,
			id,
		) as SessionRow;
	},

	/**
	 * Its agent starts once more: `attempt` recorded; the owner's own (supervised) sessions keep their
	 * first prompt; after the owner's restart the capability is a new one (the old one died with it).
	 */
	async attemptStarted(
		id: string,
		a: { attempt: number; supervised: boolean; prompt?: string; capability_sha256?: string },
		now: string,
	): Promise<SessionRow> {
		return c.get<SessionRow>(
			`UPDATE sessions SET attempt = ?, supervised = max(supervised, ?), prompt = coalesce(?, prompt),
			 capability_sha256 = coalesce(?, capability_sha256), last_seen_at = ?, revision = revision + 1,
			 updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
			a.attempt,
			a.supervised ? 1 : 0,
			a.prompt ?? null,
			a.capability_sha256 ?? null,
			now,
			now,
			id,
		) as SessionRow;
	},

	/** How its agent ended: set at each exit and when the owner gives up; cleared when it starts again. */
	async setOutcome(id: string, outcome: SessionOutcome | null, now: string): Promise<SessionRow> {
		return c.get<SessionRow>(
			`UPDATE sessions SET outcome = ?, revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
			outcome,
			now,
			id,
		) as SessionRow;
	},

	/** A run's sessions: how many it had, how many are live, and how many ended failed or given up. */
	async countsOfRun(runId: string, now: string): Promise<SessionCounts> {
		const r = c.get<SessionCounts>(
			`SELECT count(*) AS started,
			 coalesce(sum(status != 'ended' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)), 0) AS live,
			 coalesce(sum(status = 'ended' AND outcome = 'failed'), 0) AS failed,
			 coalesce(sum(outcome = 'gave_up'), 0) AS given_up
			 FROM sessions WHERE run_id = ?`,
			now,
			runId,
		);
		return r ?? { started: 0, live: 0, failed: 0, given_up: 0 };
	},

	/** The agents whose sessions for a proposal were given up: not started for it again. */
	async gaveUpOn(proposalId: string): Promise<string[]> {
		return c
			.all<{ agent_id: string }>(
				"SELECT DISTINCT agent_id FROM sessions WHERE proposal_id = ? AND outcome = 'gave_up'",
				proposalId,
			)
			.map((r) => r.agent_id);
	},

	/** An attempt the owner's death cut short. */
	async interrupt(id: string, now: string): Promise<SessionRow> {
		return c.get<SessionRow>(
			`UPDATE sessions SET interrupted = interrupted + 1, revision = revision + 1, updated_at = ?
			 WHERE id = ? RETURNING ${COLUMNS}`,
			now,
			id,
		) as SessionRow;
	},

	/** The owner's headless sessions that still stand: after its restart, the ones it was running. */
	async supervisedLive(): Promise<SessionRow[]> {
		return c.all<SessionRow>(
			`SELECT ${COLUMNS} FROM sessions WHERE supervised = 1 AND status != 'ended' AND revoked_at IS NULL
			 ORDER BY started_at, id`,
		);
	},

	/**
	 * One page, newest first: sessions started before `before` (a cursor's key), live (not ended),
	 * ended, or all, at most `limit`.
	 */
	async page(
		status: "live" | "ended" | "all",
		before: { started_at: string; id: string } | undefined,
		limit: number,
	): Promise<SessionRow[]> {
		const which = status === "live" ? "status != 'ended'" : status === "ended" ? "status = 'ended'" : "1 = 1";
		return before === undefined
			? c.all<SessionRow>(
					`SELECT ${COLUMNS} FROM sessions WHERE ${which} ORDER BY started_at DESC, id DESC LIMIT ?`,
					limit,
				)
			: c.all<SessionRow>(
					`SELECT ${COLUMNS} FROM sessions WHERE ${which} AND (started_at, id) < (?, ?)
					 ORDER BY started_at DESC, id DESC LIMIT ?`,
					before.started_at,
					before.id,
					limit,
				);
	},

	/** The first message a supervised session's agent was started with. */
	async promptOf(id: string): Promise<string | undefined> {
		return (
			c.get<{ prompt: string | null }>("SELECT prompt FROM sessions WHERE id = ?", id)?.prompt ?? undefined
		);
	},

	/** Sessions that stand at `now` (not ended, their capability neither revoked nor expired), and whether the owner runs each. */
	async live(now: string): Promise<(SessionRow & { supervised: boolean })[]> {
		return c
			.all<SessionRow & { supervised: number }>(
				`SELECT ${COLUMNS}, supervised FROM sessions WHERE status != 'ended' AND revoked_at IS NULL
				 AND (expires_at IS NULL OR expires_at > ?) ORDER BY started_at, id`,
				now,
			)
			.map((r) => ({ ...r, supervised: r.supervised === 1 }));
	},

	/** How many sessions the owner has run for a run (the autopilot's, and session.start's). */
	async supervisedOfRun(runId: string): Promise<number> {
		return (
			c.get<{ n: number }>("SELECT count(*) AS n FROM sessions WHERE supervised = 1 AND run_id = ?", runId)
				?.n ?? 0
		);
	},

	/** Whether `agent` ever had a session bound to the run itself (no task, no proposal). */
	async hadRunSession(agentId: string, runId: string): Promise<boolean> {
		return (
			c.get<{ n: number }>(
				"SELECT count(*) AS n FROM sessions WHERE agent_id = ? AND run_id = ? AND task_id IS NULL AND proposal_id IS NULL",
				agentId,
				runId,
			)?.n !== 0
		);
	},
});
