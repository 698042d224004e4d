// Versioned schema changes. Each runs once, in its own transaction, and is recorded in
// schema_migrations. Later issues append migrations; never edit one that has shipped. The SQL is
// literal (no status list is spliced in from code), so a status added later changes no shipped
// migration: it takes a new one, and test/store/migrations.test.ts compares every CHECK with the
// live status lists.

export interface Migration {
	version: number;
	name: string;
	sql: string;
	/**
	 * It rebuilds a table other tables reference (SQLite cannot alter a CHECK): it runs with foreign
	 * keys off, as SQLite's own procedure asks, and commits only if `foreign_key_check` finds nothing.
	 */
	rebuilds?: true;
}

export const MIGRATIONS: readonly Migration[] = [
	{
		version: 1,
		name: "foundation: runs, agents, tasks, events, memory, decisions, idempotency keys",
		sql: `
CREATE TABLE runs (
	id TEXT PRIMARY KEY,
	goal TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'blocked', 'failed')),
	revision INTEGER NOT NULL DEFAULT 1,
	started_at TEXT NOT NULL,
	ended_at TEXT,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

CREATE TABLE agents (
	id TEXT PRIMARY KEY,
	role TEXT NOT NULL,
	name TEXT NOT NULL,
	adapter TEXT NOT NULL,
	command TEXT NOT NULL,
	model TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'idle',
	enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
	-- who disabled it: an operator's choice survives config sync, a config removal does not
	disabled_by TEXT CHECK (disabled_by IN ('operator', 'config')),
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

CREATE TABLE tasks (
	id TEXT PRIMARY KEY,
	run_id TEXT REFERENCES runs (id),
	title TEXT NOT NULL,
	body_md TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'blocked', 'review', 'done', 'cancelled', 'failed')),
	priority INTEGER NOT NULL,
	risk TEXT NOT NULL CHECK (risk IN ('low', 'normal', 'high', 'critical')),
	assigned_agent_id TEXT REFERENCES agents (id),
	readable_paths TEXT NOT NULL DEFAULT '[]',
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX tasks_by_order ON tasks (priority, created_at, id);
CREATE INDEX tasks_by_status ON tasks (status);

CREATE TABLE events (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id TEXT,
	type TEXT NOT NULL,
	actor_id TEXT NOT NULL,
	task_id TEXT,
	payload TEXT NOT NULL DEFAULT '{}',
	created_at TEXT NOT NULL
);
CREATE INDEX events_by_run ON events (run_id, id);

-- seq is the stable integer rowid the full-text index points at (a plain rowid may change on VACUUM)
CREATE TABLE memory_entries (
	seq INTEGER PRIMARY KEY,
	id TEXT NOT NULL UNIQUE,
	scope TEXT NOT NULL,
	kind TEXT NOT NULL,
	title TEXT NOT NULL,
	body_md TEXT NOT NULL,
	source_event_id INTEGER REFERENCES events (id),
	importance INTEGER NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('active', 'stale')),
	stale_reason TEXT,
	task_id TEXT REFERENCES tasks (id),
	proposal_id TEXT,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX memory_by_scope ON memory_entries (scope);
CREATE INDEX memory_by_task ON memory_entries (task_id);

CREATE VIRTUAL TABLE memory_fts USING fts5 (
	title, body_md, scope, kind,
	content = 'memory_entries', content_rowid = 'seq', tokenize = 'porter unicode61'
);
CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory_entries BEGIN
	INSERT INTO memory_fts (rowid, title, body_md, scope, kind)
	VALUES (new.seq, new.title, new.body_md, new.scope, new.kind);
END;
CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory_entries BEGIN
	INSERT INTO memory_fts (memory_fts, rowid, title, body_md, scope, kind)
	VALUES ('delete', old.seq, old.title, old.body_md, old.scope, old.kind);
END;
CREATE TRIGGER memory_fts_update AFTER UPDATE OF title, body_md, scope, kind ON memory_entries BEGIN
	INSERT INTO memory_fts (memory_fts, rowid, title, body_md, scope, kind)
	VALUES ('delete', old.seq, old.title, old.body_md, old.scope, old.kind);
	INSERT INTO memory_fts (rowid, title, body_md, scope, kind)
	VALUES (new.seq, new.title, new.body_md, new.scope, new.kind);
END;

CREATE TABLE decisions (
	id TEXT PRIMARY KEY,
	decision TEXT NOT NULL,
	rationale_md TEXT NOT NULL,
	decided_by TEXT NOT NULL,
	proposal_id TEXT,
	task_id TEXT REFERENCES tasks (id),
	run_id TEXT REFERENCES runs (id),
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

CREATE TABLE idempotency_keys (
	tool TEXT NOT NULL,
	key TEXT NOT NULL,
	args_hash TEXT NOT NULL,
	result TEXT NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	PRIMARY KEY (tool, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_by_expiry ON idempotency_keys (expires_at);
`,
	},
	{
		version: 2,
		name: "resources and claims",
		sql: `
CREATE TABLE resources (
	id TEXT PRIMARY KEY,
	type TEXT NOT NULL,
	path TEXT,
	symbol TEXT,
	language TEXT,
	start_line INTEGER,
	end_line INTEGER,
	current_hash TEXT NOT NULL DEFAULT '',
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX resources_by_path ON resources (path);

-- A claim copies its resource's scope (type, path, symbol, lines) so that the conflict check is one
-- indexed query over live claims, never a scan of every claim.
CREATE TABLE claims (
	id TEXT PRIMARY KEY,
	resource_id TEXT NOT NULL REFERENCES resources (id),
	resource_type TEXT NOT NULL,
	path TEXT,
	symbol TEXT,
	start_line INTEGER,
	end_line INTEGER,
	agent_id TEXT NOT NULL REFERENCES agents (id),
	task_id TEXT NOT NULL REFERENCES tasks (id),
	run_id TEXT REFERENCES runs (id),
	claim_type TEXT NOT NULL CHECK (claim_type IN ('read', 'write', 'review', 'exclusive')),
	status TEXT NOT NULL CHECK (status IN ('active', 'released', 'revoked', 'expired', 'suspended')),
	status_reason TEXT,
	base_hash TEXT NOT NULL DEFAULT '',
	expires_at TEXT NOT NULL,
	renewed_at TEXT,
	renewable INTEGER NOT NULL CHECK (renewable IN (0, 1)),
	resume_policy TEXT NOT NULL,
	rationale TEXT,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX claims_live_by_path ON claims (path) WHERE status = 'active';
CREATE INDEX claims_live_by_resource ON claims (resource_id) WHERE status = 'active';
CREATE INDEX claims_live_by_expiry ON claims (expires_at) WHERE status = 'active';
CREATE INDEX claims_by_agent ON claims (agent_id, status);
CREATE INDEX claims_by_task ON claims (task_id);
`,
	},
	{
		version: 3,
		name: "proposals, patch revisions, votes, human approvals, security reviews, test runs",
		sql: `
-- A proposal's record revision (optimistic concurrency) is apart from its patch revision: every
-- attach_patch makes patch revision n+1, and evidence binds to the patch revision it saw.
CREATE TABLE proposals (
	id TEXT PRIMARY KEY,
	task_id TEXT NOT NULL REFERENCES tasks (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	run_id TEXT REFERENCES runs (id),
	title TEXT NOT NULL,
	summary_md TEXT NOT NULL,
	risk TEXT NOT NULL CHECK (risk IN ('low', 'normal', 'high', 'critical')),
	status TEXT NOT NULL CHECK (status IN ('pending', 'in_review', 'accepted', 'rejected', 'withdrawn', 'rolled_back')),
	status_reason TEXT,
	patch_revision INTEGER NOT NULL,
	expected_tests TEXT NOT NULL DEFAULT '[]',
	rollback_notes TEXT,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX proposals_by_task ON proposals (task_id);
CREATE INDEX proposals_by_status ON proposals (status);

-- Patch bytes live in .roundtable/patches/<sha256>.diff: named by content, never by a caller's id.
CREATE TABLE patch_revisions (
	proposal_id TEXT NOT NULL REFERENCES proposals (id),
	number INTEGER NOT NULL,
	sha256 TEXT NOT NULL,
	size INTEGER NOT NULL,
	strip INTEGER NOT NULL,
	files TEXT NOT NULL,
	created_by TEXT NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (proposal_id, number)
);

CREATE TABLE proposal_resources (
	proposal_id TEXT NOT NULL REFERENCES proposals (id),
	resource_id TEXT NOT NULL REFERENCES resources (id),
	PRIMARY KEY (proposal_id, resource_id)
);

CREATE TABLE votes (
	id TEXT PRIMARY KEY,
	proposal_id TEXT NOT NULL REFERENCES proposals (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	vote TEXT NOT NULL CHECK (vote IN ('approve', 'approve_with_notes', 'revise', 'reject', 'veto', 'abstain')),
	confidence REAL,
	reason_md TEXT NOT NULL,
	patch_revision INTEGER NOT NULL,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	UNIQUE (proposal_id, agent_id)
);

CREATE TABLE human_approvals (
	id TEXT PRIMARY KEY,
	proposal_id TEXT REFERENCES proposals (id),
	task_id TEXT REFERENCES tasks (id),
	subject TEXT NOT NULL,
	reason_md TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'rejected')),
	requested_by TEXT NOT NULL,
	decision_md TEXT,
	decided_by TEXT,
	decided_at TEXT,
	override_policy INTEGER NOT NULL DEFAULT 0 CHECK (override_policy IN (0, 1)),
	-- Orders decisions: the latest one counts, and a clock may give two the same millisecond.
	decision_seq INTEGER,
	patch_revision INTEGER,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX approvals_by_proposal ON human_approvals (proposal_id);
CREATE INDEX approvals_by_status ON human_approvals (status);

CREATE TABLE security_reviews (
	id TEXT PRIMARY KEY,
	proposal_id TEXT REFERENCES proposals (id),
	resource_id TEXT,
	task_id TEXT REFERENCES tasks (id),
	reviewer_id TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('approved', 'needs_changes', 'veto')),
	mode TEXT NOT NULL CHECK (mode IN ('auto', 'manual')),
	summary_md TEXT NOT NULL,
	findings TEXT NOT NULL DEFAULT '[]',
	patch_revision INTEGER,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX reviews_by_proposal ON security_reviews (proposal_id);

-- test.run (its own issue) fills this; the policy's tests_required gate reads it already.
CREATE TABLE test_runs (
	id TEXT PRIMARY KEY,
	proposal_id TEXT REFERENCES proposals (id),
	task_id TEXT REFERENCES tasks (id),
	command TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('running', 'passed', 'failed', 'timed_out', 'cancelled', 'interrupted', 'error')),
	exit_code INTEGER,
	summary_md TEXT NOT NULL DEFAULT '',
	patch_revision INTEGER,
	started_at TEXT NOT NULL,
	finished_at TEXT,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX test_runs_by_proposal ON test_runs (proposal_id, patch_revision);
`,
	},
	{
		version: 4,
		name: "transactions (applies and rollbacks)",
		sql: `
-- One row per change to the repository: an apply of a proposal's patch revision, or the rollback of
-- one. files holds every touched path's before and after state (kind, mode, sha256); the bytes
-- themselves are kept content-addressed under .roundtable/journal/blobs/.
CREATE TABLE transactions (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL CHECK (kind IN ('apply', 'rollback')),
	proposal_id TEXT NOT NULL REFERENCES proposals (id),
	run_id TEXT REFERENCES runs (id),
	patch_revision INTEGER NOT NULL,
	patch_sha256 TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('applied', 'rolled_back')),
	rolls_back TEXT REFERENCES transactions (id),
	applied_by TEXT NOT NULL,
	applied_at TEXT NOT NULL,
	reason_md TEXT,
	files TEXT NOT NULL,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX transactions_by_proposal ON transactions (proposal_id);
`,
	},
	{
		version: 5,
		name: "turns, the Chair's state, run ticks and convergence, agent sessions",
		sql: `
-- One row per agent.turn_requested event (its id is the request id), kept in step with the turn
-- events in the same transaction: the queue is an index scan, not a replay of the event log. The
-- partial unique index is the "one outstanding request per agent per run" rule, across processes.
CREATE TABLE turns (
	request_event_id INTEGER PRIMARY KEY REFERENCES events (id),
	run_id TEXT NOT NULL REFERENCES runs (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	reason_md TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('requested', 'scheduled', 'started', 'completed', 'expired')),
	requested_at TEXT NOT NULL,
	scheduled_at TEXT,
	started_at TEXT,
	ended_at TEXT,
	-- while scheduled or started: when the turn expires unless started (or completed) first
	lease_expires_at TEXT,
	updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX turns_one_outstanding ON turns (run_id, agent_id)
	WHERE status IN ('requested', 'scheduled', 'started');
CREATE INDEX turns_queue ON turns (run_id, status, request_event_id);

-- How many times the Chair ticked a run, and where its convergence stands.
ALTER TABLE runs ADD COLUMN ticks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN last_tick_at TEXT;
ALTER TABLE runs ADD COLUMN convergence TEXT;

-- Small durable facts of the Chair, such as the round-robin cursor of task assignment.
CREATE TABLE chair_state (
	key TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE sessions (
	id TEXT PRIMARY KEY,
	agent_id TEXT NOT NULL REFERENCES agents (id),
	run_id TEXT REFERENCES runs (id),
	adapter TEXT NOT NULL,
	provider TEXT,
	model TEXT,
	external_session_id TEXT,
	resume_command TEXT,
	cwd TEXT NOT NULL,
	mcp_socket TEXT,
	status TEXT NOT NULL CHECK (status IN ('active', 'idle', 'ended')),
	started_at TEXT NOT NULL,
	last_seen_at TEXT NOT NULL,
	ended_at TEXT,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX sessions_by_agent ON sessions (agent_id, status, last_seen_at);
`,
	},
	{
		version: 6,
		name: "test runs as test.run records them; test evidence reported by testers",
		sql: `
-- test_runs gains what a real run has (argv, signal, duration, where it ran, output size) and the
-- status 'error'; reported evidence moves to its own table. SQLite changes a CHECK by rebuilding.
CREATE TABLE test_runs_next (
	id TEXT PRIMARY KEY,
	proposal_id TEXT REFERENCES proposals (id),
	task_id TEXT REFERENCES tasks (id),
	-- the argv, quoted and joined: what allowlists and expected_tests compare
	command TEXT NOT NULL,
	argv TEXT NOT NULL DEFAULT '[]',
	status TEXT NOT NULL CHECK (status IN ('running', 'passed', 'failed', 'timed_out', 'cancelled', 'interrupted', 'error')),
	exit_code INTEGER,
	signal TEXT,
	duration_ms INTEGER,
	summary_md TEXT NOT NULL DEFAULT '',
	patch_revision INTEGER,
	-- 'project': the project root; 'proposal': a scratch copy with the proposal's patch applied
	workdir TEXT NOT NULL DEFAULT 'project' CHECK (workdir IN ('project', 'proposal')),
	requested_by TEXT NOT NULL DEFAULT 'operator',
	-- the process running it, so a start-up sweep marks only runs whose runner died as interrupted
	runner_pid INTEGER,
	output_bytes INTEGER NOT NULL DEFAULT 0,
	truncated INTEGER NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
	started_at TEXT NOT NULL,
	finished_at TEXT,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
INSERT INTO test_runs_next (id, proposal_id, task_id, command, status, exit_code, summary_md, patch_revision,
	started_at, finished_at, revision, created_at, updated_at)
	SELECT id, proposal_id, task_id, command, status, exit_code, summary_md, patch_revision, started_at, finished_at,
	revision, created_at, updated_at FROM test_runs WHERE status IN ('running', 'passed', 'failed', 'timed_out', 'cancelled', 'interrupted', 'error');
DROP TABLE test_runs;
ALTER TABLE test_runs_next RENAME TO test_runs;
CREATE INDEX test_runs_by_proposal ON test_runs (proposal_id, patch_revision);
CREATE INDEX test_runs_by_status ON test_runs (status);

CREATE TABLE test_evidence (
	id TEXT PRIMARY KEY,
	proposal_id TEXT NOT NULL REFERENCES proposals (id),
	patch_revision INTEGER NOT NULL,
	agent_id TEXT NOT NULL REFERENCES agents (id),
	session_id TEXT REFERENCES sessions (id),
	command TEXT NOT NULL,
	outcome TEXT NOT NULL CHECK (outcome IN ('passed', 'failed', 'inconclusive')),
	summary_md TEXT NOT NULL,
	-- never anything else: an agent's report is not a host-verified run
	status TEXT NOT NULL DEFAULT 'reported' CHECK (status = 'reported'),
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX test_evidence_by_proposal ON test_evidence (proposal_id, patch_revision);
`,
	},
	{
		version: 7,
		name: "indexes for an agent's briefing; a test run's process group",
		sql: `
-- the test's own process group, so a sweep after a crash can stop what the dead runner left running
ALTER TABLE test_runs ADD COLUMN process_group INTEGER;
-- the caller's idempotency key, so a retry from another process while the run goes on is refused
ALTER TABLE test_runs ADD COLUMN idempotency_key TEXT;
CREATE INDEX test_runs_by_key ON test_runs (idempotency_key) WHERE idempotency_key IS NOT NULL;
-- roundtable tests: the newest runs first
CREATE INDEX test_runs_by_start ON test_runs (started_at, id);
-- roundtable resume / sessions: an agent's tasks and proposals, the newest decisions
CREATE INDEX tasks_by_agent ON tasks (assigned_agent_id, status);
CREATE INDEX proposals_by_agent ON proposals (agent_id, status);
CREATE INDEX decisions_by_newest ON decisions (created_at, id);
`,
	},
	{
		version: 8,
		name: "the sandbox a test run had",
		sql: `
-- 'bwrap' or 'none'; a run recorded before sandboxes existed had none
ALTER TABLE test_runs ADD COLUMN sandbox TEXT NOT NULL DEFAULT 'none' CHECK (sandbox IN ('bwrap', 'none'));
-- why a run had no sandbox (tests.sandbox off, bwrap missing or unusable, not Linux); null under bwrap
ALTER TABLE test_runs ADD COLUMN sandbox_reason TEXT;
UPDATE test_runs SET sandbox_reason = 'recorded before test runs were sandboxed';
`,
	},
	{
		version: 9,
		name: "idempotency keys held while their call runs",
		sql: `
-- 'running' while the first call with the key goes on (a direct mutation: patch.apply, test.run),
-- held by the process 'pid': a retry from any process is refused until it is 'done' or that
-- process is gone. 'done' rows hold the first result.
ALTER TABLE idempotency_keys ADD COLUMN state TEXT NOT NULL DEFAULT 'done' CHECK (state IN ('running', 'done'));
ALTER TABLE idempotency_keys ADD COLUMN pid INTEGER;
`,
	},
	{
		version: 10,
		name: "capabilities: a session an agent's bearer token opens",
		sql: `
-- A session minted with a capability: the SHA-256 of the token (never the token), the role it acts
-- in, the task or proposal it is bound to, when it lapses and when the operator revoked it. Rows
-- without a capability are sessions registered by hand, as before.
ALTER TABLE sessions ADD COLUMN capability_sha256 TEXT;
ALTER TABLE sessions ADD COLUMN role TEXT;
ALTER TABLE sessions ADD COLUMN task_id TEXT REFERENCES tasks (id);
ALTER TABLE sessions ADD COLUMN proposal_id TEXT REFERENCES proposals (id);
ALTER TABLE sessions ADD COLUMN expires_at TEXT;
ALTER TABLE sessions ADD COLUMN revoked_at TEXT;
CREATE UNIQUE INDEX sessions_by_capability ON sessions (capability_sha256) WHERE capability_sha256 IS NOT NULL;
`,
	},
	{
		version: 11,
		name: "claims remember the session that took them; resume policies are a fixed set",
		sql: `
-- The minted session a claim was taken in (null: taken by the operator, or before sessions had
-- capabilities). When that session ends, its claims follow their resume_policy.
ALTER TABLE claims ADD COLUMN session_id TEXT REFERENCES sessions (id);
CREATE INDEX claims_by_session ON claims (session_id) WHERE session_id IS NOT NULL;
-- resume_policy was free text; anything but the three policies meant nothing, which is 'hold'.
UPDATE claims SET resume_policy = 'hold' WHERE resume_policy NOT IN ('hold', 'release', 'suspend');
`,
	},
	{
		version: 12,
		name: "peers: questions and answers, messages and reads, promotions; proposed tasks and decisions",
		rebuilds: true,
		sql: `
-- A task may be 'proposed' (promoted from a message; the Chair never assigns or starts it). SQLite
-- cannot alter a CHECK, so the table is rebuilt with its rows, ids and indexes as they were.
CREATE TABLE tasks_new (
	id TEXT PRIMARY KEY,
	run_id TEXT REFERENCES runs (id),
	title TEXT NOT NULL,
	body_md TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('proposed', 'open', 'in_progress', 'blocked', 'review', 'done', 'cancelled', 'failed')),
	priority INTEGER NOT NULL,
	risk TEXT NOT NULL CHECK (risk IN ('low', 'normal', 'high', 'critical')),
	assigned_agent_id TEXT REFERENCES agents (id),
	readable_paths TEXT NOT NULL DEFAULT '[]',
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
INSERT INTO tasks_new (id, run_id, title, body_md, status, priority, risk, assigned_agent_id, readable_paths,
	revision, created_at, updated_at)
	SELECT id, run_id, title, body_md, status, priority, risk, assigned_agent_id, readable_paths, revision,
	created_at, updated_at FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_new RENAME TO tasks;
CREATE INDEX tasks_by_order ON tasks (priority, created_at, id);
CREATE INDEX tasks_by_status ON tasks (status);
CREATE INDEX tasks_by_agent ON tasks (assigned_agent_id, status);

-- Decisions made by decision.record are 'recorded'; one promoted from a message is 'proposed'.
ALTER TABLE decisions ADD COLUMN status TEXT NOT NULL DEFAULT 'recorded' CHECK (status IN ('proposed', 'recorded'));

-- A question addressed to one agent (or 'operator'), kept with who asked it and where from. Answers
-- are retained; the first makes it 'answered'. A cancelled request stays cancelled: a late reply is
-- kept beside it (late = 1) and does not reopen it.
CREATE TABLE peer_requests (
	id TEXT PRIMARY KEY,
	requester_id TEXT NOT NULL,
	assignee_id TEXT NOT NULL,
	question_md TEXT NOT NULL,
	task_id TEXT REFERENCES tasks (id),
	proposal_id TEXT REFERENCES proposals (id),
	status TEXT NOT NULL CHECK (status IN ('open', 'answered', 'cancelled')),
	answered_at TEXT,
	cancelled_by TEXT,
	cancel_reason_md TEXT,
	cancelled_at TEXT,
	revision INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX peer_requests_to ON peer_requests (assignee_id, status, created_at, id);
CREATE INDEX peer_requests_from ON peer_requests (requester_id, status, created_at, id);
CREATE TABLE peer_answers (
	id TEXT PRIMARY KEY,
	request_id TEXT NOT NULL REFERENCES peer_requests (id),
	author_id TEXT NOT NULL,
	answer_md TEXT NOT NULL,
	late INTEGER NOT NULL CHECK (late IN (0, 1)),
	created_at TEXT NOT NULL
);
CREATE INDEX peer_answers_by_request ON peer_answers (request_id, created_at, id);

-- A message to one agent (or 'operator') or to a channel, never both. Posted means stored; reading
-- is a separate outcome, one row per reader.
CREATE TABLE messages (
	id TEXT PRIMARY KEY,
	sender_id TEXT NOT NULL,
	to_agent_id TEXT,
	channel TEXT,
	thread_id TEXT,
	body_md TEXT NOT NULL,
	created_at TEXT NOT NULL,
	CHECK ((to_agent_id IS NULL) <> (channel IS NULL))
);
CREATE INDEX messages_to ON messages (to_agent_id, created_at, id) WHERE to_agent_id IS NOT NULL;
CREATE INDEX messages_in_channel ON messages (channel, created_at, id) WHERE channel IS NOT NULL;
CREATE TABLE message_reads (
	message_id TEXT NOT NULL REFERENCES messages (id),
	reader_id TEXT NOT NULL,
	read_at TEXT NOT NULL,
	PRIMARY KEY (message_id, reader_id)
) WITHOUT ROWID;

-- A message deliberately made into a proposed task or a proposed decision: the provenance.
CREATE TABLE promotions (
	id TEXT PRIMARY KEY,
	message_id TEXT NOT NULL REFERENCES messages (id),
	kind TEXT NOT NULL CHECK (kind IN ('task', 'decision')),
	task_id TEXT REFERENCES tasks (id),
	decision_id TEXT REFERENCES decisions (id),
	promoted_by TEXT NOT NULL,
	created_at TEXT NOT NULL,
	CHECK ((kind = 'task') = (task_id IS NOT NULL) AND (kind = 'decision') = (decision_id IS NOT NULL))
);
CREATE INDEX promotions_by_message ON promotions (message_id);
CREATE INDEX promotions_by_newest ON promotions (created_at, id);
`,
	},
	{
		version: 13,
		name: "task counts per status, kept in step by triggers; an index of suspended claims",
		sql: `
-- How many tasks have each status: table.watch's open_tasks reads a few rows here instead of
-- counting the tasks (which grows with the open tasks). Triggers keep it in step with every write
-- to tasks, whoever makes it. A status gets its row on its first task. A later migration that
-- rebuilds tasks drops these triggers with the old table and must create them again.
CREATE TABLE task_counts (
	status TEXT PRIMARY KEY,
	n INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO task_counts (status, n) SELECT status, count(*) FROM tasks GROUP BY status;
CREATE TRIGGER task_counts_on_insert AFTER INSERT ON tasks BEGIN
	INSERT INTO task_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER task_counts_on_delete AFTER DELETE ON tasks BEGIN
	UPDATE task_counts SET n = n - 1 WHERE status = OLD.status;
END;
CREATE TRIGGER task_counts_on_status AFTER UPDATE OF status ON tasks WHEN NEW.status IS NOT OLD.status BEGIN
	UPDATE task_counts SET n = n - 1 WHERE status = OLD.status;
	INSERT INTO task_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;

-- table.watch's suspended_claims: counting them scanned every claim ever taken; this index holds
-- only the suspended ones (the query names the status literally, so the planner may use it).
CREATE INDEX claims_suspended ON claims (status) WHERE status = 'suspended';
`,
	},
	{
		version: 14,
		name: "fewer pages per commit: events without AUTOINCREMENT, partial indexes where the column is mostly NULL",
		rebuilds: true,
		sql: `
-- An event's id is the watch cursor, so it must never be reused. AUTOINCREMENT promised that by
-- writing sqlite_sequence on every append (one more page per commit); a plain rowid promises the
-- same as long as the newest event is never deleted, and no event is: the trigger refuses it.
-- The table is rebuilt with its rows and ids as they were; other tables' references follow it.
CREATE TABLE events_new (
	id INTEGER PRIMARY KEY,
	run_id TEXT,
	type TEXT NOT NULL,
	actor_id TEXT NOT NULL,
	task_id TEXT,
	payload TEXT NOT NULL DEFAULT '{}',
	created_at TEXT NOT NULL
);
INSERT INTO events_new (id, run_id, type, actor_id, task_id, payload, created_at)
	SELECT id, run_id, type, actor_id, task_id, payload, created_at FROM events;
DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
CREATE TRIGGER events_are_kept BEFORE DELETE ON events BEGIN
	SELECT RAISE(ABORT, 'events are never deleted: their ids are the watch cursor');
END;

-- Only queries naming a run read this index (run_id = ?), and many events belong to no run.
CREATE INDEX events_by_run ON events (run_id, id) WHERE run_id IS NOT NULL;

-- Only queries naming an agent read this index (assigned_agent_id = ?); most tasks are unassigned.
DROP INDEX tasks_by_agent;
CREATE INDEX tasks_by_agent ON tasks (assigned_agent_id, status) WHERE assigned_agent_id IS NOT NULL;
`,
	},
	{
		version: 15,
		name: "tasks and proposals in list order; tasks and proposals of a run by status; turns by lease",
		sql: `
-- task.list of a status and the Chair's open tasks are read in (priority, created_at, id) order.
-- An index of the status alone made every page sort all the tasks of that status (12 ms a page
-- at 100,000 open tasks, the owner busy throughout); this one hands them over in order.
DROP INDEX tasks_by_status;
CREATE INDEX tasks_by_status ON tasks (status, priority, created_at, id);

-- A run's tasks counted by status (run.converge, every Chair tick of every active run) and listed
-- (task.list run_id): without it both read every task (18 ms a tick at 100,000 tasks). Only queries
-- naming a run read it, and a task of no run has no entry.
CREATE INDEX tasks_by_run ON tasks (run_id, status) WHERE run_id IS NOT NULL;

-- Its proposals counted by status, as run.converge also does each tick: those recorded in the run
-- from here, those of no run through tasks_by_run (4 ms a tick at 10,000 proposals of other runs).
CREATE INDEX proposals_by_run ON proposals (run_id, status) WHERE run_id IS NOT NULL;

-- proposal.list, of a status or of all, pages in (created_at, id) order: from these, where each
-- page sorted every proposal of the status (or every proposal): 7–12 ms a page at 10,000.
DROP INDEX proposals_by_status;
CREATE INDEX proposals_by_status ON proposals (status, created_at, id);
CREATE INDEX proposals_by_order ON proposals (created_at, id);

-- The turns whose lease may have run out (chair.expire, every tick): only the scheduled and started
-- ones, where the query read every turn ever taken (6 ms a tick at 100,000 of them).
CREATE INDEX turns_by_lease ON turns (lease_expires_at) WHERE status IN ('scheduled', 'started');
`,
	},
	{
		version: 16,
		name: "a patch revision's base: what each file it touches held where it was made",
		sql: `
-- A revision proposed from an agent's workspace records, for every path it touches, the sha256 of
-- that path's bytes in the workspace's base ('' where the base had no such file), as JSON. Apply
-- refuses it once any of those paths changed in the project: what is applied is exactly the bytes
-- reviewed, never a merge of them with later changes. NULL: a hand-written patch, checked by
-- git apply alone as before.
ALTER TABLE patch_revisions ADD COLUMN base TEXT;
`,
	},
	{
		version: 17,
		name: "a closed session's draft: the changes its workspace held that were never proposed",
		sql: `
-- When a launched session closes with changes in its workspace that no proposal carries, they are
-- kept as a patch (stored by content, like a proposal's) and recorded here: nothing an agent wrote
-- is lost silently. files: JSON [{path, change}].
CREATE TABLE session_drafts (
	session_id TEXT PRIMARY KEY REFERENCES sessions (id),
	sha256 TEXT NOT NULL,
	files TEXT NOT NULL,
	created_at TEXT NOT NULL
);
`,
	},
	{
		version: 18,
		name: "an apply's gates as they stood when it was applied",
		sql: `
-- What patch.validate said of the revision at the moment it was applied, as JSON [{gate, ok,
-- reason}]: afterwards the same checks fail for the plain reason that it was applied (its patch no
-- longer applies, its claims are released), so the record of why it was allowed is kept here.
-- NULL for a rollback and for transactions from before this column.
ALTER TABLE transactions ADD COLUMN gates TEXT;
`,
	},
	{
		version: 19,
		name: "a session's attempts: the owner runs a headless one again after a failure or its own restart",
		sql: `
-- supervised: the owner runs it (session.start) and restarts it after a failure, or after the owner
-- itself was killed. attempt: how many times its agent has been started (0 until the first);
-- interrupted: how many of those the owner's death cut short. prompt: the first message it was
-- started with, for a fresh start when its CLI's conversation cannot be resumed.
ALTER TABLE sessions ADD COLUMN supervised INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN prompt TEXT;
`,
	},
	{
		version: 20,
		name: "a run's autopilot: whether the Chair starts its sessions, and why it paused",
		sql: `
-- autopilot: off (the operator starts sessions), on (the Chair starts them as the run needs), or
-- paused (a bound was reached: autopilot_note says which). autopilot_note also says, once, when the
-- Chair cannot do something on its own (a proposal whose quorum no pool of agents can meet).
ALTER TABLE runs ADD COLUMN autopilot TEXT NOT NULL DEFAULT 'off' CHECK (autopilot IN ('off', 'on', 'paused'));
ALTER TABLE runs ADD COLUMN autopilot_note TEXT;
`,
	},
	{
		version: 21,
		name: "a run's scope, and how its sessions ended",
		sql: `
-- scope: JSON [path or glob] the run's work may read; the Architect's proposed tasks keep their
-- readable_paths inside it. '[]': the whole repository (what readable_paths may name at all).
ALTER TABLE runs ADD COLUMN scope TEXT NOT NULL DEFAULT '[]';
-- How many sessions the run has had, and of them still live, failed (their agent's last exit was
-- not 0 and nobody stopped it) and given up (the owner stopped retrying): counted by each tick.
ALTER TABLE runs ADD COLUMN sessions_started INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN sessions_live INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN sessions_failed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN sessions_given_up INTEGER NOT NULL DEFAULT 0;
-- outcome: how its agent last ended (NULL while none has, or while a retry runs).
ALTER TABLE sessions ADD COLUMN outcome TEXT CHECK (outcome IN ('succeeded', 'failed', 'stopped', 'gave_up'));
`,
	},
];
