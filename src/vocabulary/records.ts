// The records tools return. Their TypeScript types are inferred from these schemas, so the store,
// the tools and the declared MCP output schemas cannot drift apart.
import { type } from "./arktype.ts";
import {
	APPROVAL_STATUSES,
	AUTOPILOT_MODES,
	CLAIM_STATUSES,
	CLAIM_TYPES,
	DECISION_STATUSES,
	MEMORY_STATUSES,
	PROMOTION_KINDS,
	PROPOSAL_STATUSES,
	REQUEST_STATUSES,
	RESUME_POLICIES,
	REVIEW_STATUSES,
	RISKS,
	RUN_STATUSES,
	SESSION_OUTCOMES,
	SESSION_STATUSES,
	TASK_STATUSES,
	TEST_OUTCOMES,
	TEST_RUN_STATUSES,
	TURN_STATUSES,
	VOTES,
} from "./statuses.ts";

/** A value made on first use and kept: building every record schema costs a quarter second, and most commands need few. */
const lazy = <T>(make: () => T): (() => T) => {
	let made: T | undefined;
	return () => {
		made ??= make();
		return made;
	};
};

const timestamp = type("string").describe("an RFC 3339 UTC timestamp with milliseconds");
const revision = type("number.integer >= 1").describe("the record's revision, +1 on every change");

export const runRecord = lazy(() =>
	type({
		id: "string",
		goal: "string",
		status: type.enumerated(...RUN_STATUSES),
		/** What the run's work may read (paths or globs; empty: the whole repository). */
		scope: "string[]",
		/** Chair ticks so far, the latest one's time, and what the latest convergence check said. */
		ticks: "number.integer >= 0",
		last_tick_at: timestamp.or("null"),
		convergence: "string | null",
		/** Whether the Chair starts the run's sessions, and what it last said of that (why it paused). */
		autopilot: type.enumerated(...AUTOPILOT_MODES),
		autopilot_note: "string | null",
		/** Its sessions as the latest tick counted them: started, live, failed, given up. */
		sessions_started: "number.integer >= 0",
		sessions_live: "number.integer >= 0",
		sessions_failed: "number.integer >= 0",
		sessions_given_up: "number.integer >= 0",
		revision,
		started_at: timestamp,
		ended_at: timestamp.or("null"),
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const agentRecord = lazy(() =>
	type({
		id: "string",
		role: "string",
		name: "string",
		adapter: "string",
		command: "string",
		model: "string",
		status: "string",
		enabled: "boolean",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

/** An agent as the operator sees it: who disabled it, if anyone (config sync or the operator). */
export const storedAgentRecord = lazy(() =>
	agentRecord().merge({ disabled_by: "'operator' | 'config' | null" }),
);

/** An external agent session (Codex, Claude Code, …) working on the project. */
export const sessionRecord = lazy(() =>
	type({
		id: "string",
		agent_id: "string",
		run_id: "string | null",
		adapter: "string",
		provider: "string | null",
		model: "string | null",
		external_session_id: "string | null",
		resume_command: "string | null",
		cwd: "string",
		mcp_socket: "string | null",
		status: type.enumerated(...SESSION_STATUSES),
		started_at: timestamp,
		last_seen_at: timestamp,
		ended_at: timestamp.or("null"),
		/** A minted session's role, binding and capability lifetime (null for one registered by hand). */
		role: "string | null",
		task_id: "string | null",
		proposal_id: "string | null",
		expires_at: timestamp.or("null"),
		revoked_at: timestamp.or("null"),
		/** How many times its agent was started (a headless one is retried), and how many the owner's death cut short. */
		attempt: "number.integer >= 0",
		interrupted: "number.integer >= 0",
		/** How its agent last ended (null while none has, or while a retry runs). */
		outcome: type.enumerated(...SESSION_OUTCOMES).or("null"),
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const eventRecord = lazy(() =>
	type({
		id: "number.integer >= 1",
		run_id: "string | null",
		type: "string",
		actor_id: "string",
		task_id: "string | null",
		payload: "Record<string, unknown>",
		created_at: timestamp,
	}),
);

export const taskRecord = lazy(() =>
	type({
		id: "string",
		run_id: "string | null",
		title: "string",
		body_md: "string",
		status: type.enumerated(...TASK_STATUSES),
		priority: "number.integer",
		risk: type.enumerated(...RISKS),
		assigned_agent_id: "string | null",
		readable_paths: "string[]",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

/** A turn request in a run's FIFO queue, with its lease once scheduled. */
export const turnRecord = lazy(() =>
	type({
		request_event_id: "number.integer >= 1",
		run_id: "string",
		agent_id: "string",
		reason_md: "string",
		status: type.enumerated(...TURN_STATUSES),
		requested_at: timestamp,
		scheduled_at: timestamp.or("null"),
		started_at: timestamp.or("null"),
		ended_at: timestamp.or("null"),
		lease_expires_at: timestamp.or("null"),
		updated_at: timestamp,
	}),
);

export const memoryRecord = lazy(() =>
	type({
		id: "string",
		scope: "string",
		kind: "string",
		title: "string",
		body_md: "string",
		source_event_id: "number.integer | null",
		importance: "number.integer",
		status: type.enumerated(...MEMORY_STATUSES),
		stale_reason: "string | null",
		task_id: "string | null",
		proposal_id: "string | null",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const decisionRecord = lazy(() =>
	type({
		id: "string",
		decision: "string",
		rationale_md: "string",
		decided_by: "string",
		proposal_id: "string | null",
		task_id: "string | null",
		run_id: "string | null",
		/** `proposed`: promoted from a message, not yet taken; `recorded`: made with decision.record. */
		status: type.enumerated(...DECISION_STATUSES),
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

/** An answer to a peer question; `late`: given after the request was cancelled (it stays cancelled). */
export const peerAnswerRecord = lazy(() =>
	type({
		id: "string",
		request_id: "string",
		author_id: "string",
		answer_md: "string",
		late: "boolean",
		created_at: timestamp,
	}),
);

/** A question addressed to one agent (or `operator`), kept with who asked it and where from. */
export const peerRequestRecord = lazy(() =>
	type({
		id: "string",
		requester_id: "string",
		assignee_id: "string",
		question_md: "string",
		task_id: "string | null",
		proposal_id: "string | null",
		status: type.enumerated(...REQUEST_STATUSES),
		answered_at: timestamp.or("null"),
		cancelled_by: "string | null",
		cancel_reason_md: "string | null",
		cancelled_at: timestamp.or("null"),
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

/** A retained message to one agent (or `operator`) or to a channel; `read_at` is the reader's own. */
export const messageRecord = lazy(() =>
	type({
		id: "string",
		sender_id: "string",
		to_agent_id: "string | null",
		channel: "string | null",
		thread_id: "string | null",
		body_md: "string",
		created_at: timestamp,
		read_at: timestamp.or("null"),
	}),
);

/** A message made into a proposed task or a proposed decision: the provenance. */
export const promotionRecord = lazy(() =>
	type({
		id: "string",
		message_id: "string",
		kind: type.enumerated(...PROMOTION_KINDS),
		task_id: "string | null",
		decision_id: "string | null",
		promoted_by: "string",
		created_at: timestamp,
	}),
);

export const resourceRecord = lazy(() =>
	type({
		id: "string",
		type: "string",
		path: "string | null",
		symbol: "string | null",
		language: "string | null",
		start_line: "number.integer | null",
		end_line: "number.integer | null",
		current_hash: "string",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const claimRecord = lazy(() =>
	type({
		id: "string",
		resource_id: "string",
		resource_type: "string",
		path: "string | null",
		symbol: "string | null",
		start_line: "number.integer | null",
		end_line: "number.integer | null",
		agent_id: "string",
		task_id: "string",
		run_id: "string | null",
		claim_type: type.enumerated(...CLAIM_TYPES),
		/** `expired` as soon as expires_at has passed, even before the Chair records it. */
		status: type.enumerated(...CLAIM_STATUSES),
		status_reason: "string | null",
		base_hash: "string",
		expires_at: timestamp,
		renewed_at: timestamp.or("null"),
		renewable: "boolean",
		/** What it does when the session that took it ends. */
		resume_policy: type.enumerated(...RESUME_POLICIES),
		/** The minted session it was taken in; null when the operator took it. */
		session_id: "string | null",
		rationale: "string | null",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const proposalRecord = lazy(() =>
	type({
		id: "string",
		task_id: "string",
		agent_id: "string",
		run_id: "string | null",
		title: "string",
		summary_md: "string",
		risk: type.enumerated(...RISKS),
		status: type.enumerated(...PROPOSAL_STATUSES),
		status_reason: "string | null",
		/** The patch revision (1, 2, …): evidence counts only for the current one. */
		patch_revision: "number.integer >= 1",
		patch_sha256: "string",
		/** Repository paths the current patch touches. */
		patch_files: "string[]",
		expected_tests: "string[]",
		rollback_notes: "string | null",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const patchRevisionRecord = lazy(() =>
	type({
		number: "number.integer >= 1",
		sha256: "string",
		size: "number.integer >= 0",
		files: "string[]",
		created_by: "string",
		created_at: timestamp,
	}),
);

export const voteRecord = lazy(() =>
	type({
		id: "string",
		proposal_id: "string",
		agent_id: "string",
		vote: type.enumerated(...VOTES),
		confidence: "number | null",
		reason_md: "string",
		patch_revision: "number.integer >= 1",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const approvalRecord = lazy(() =>
	type({
		id: "string",
		proposal_id: "string | null",
		task_id: "string | null",
		subject: "string",
		reason_md: "string",
		status: type.enumerated(...APPROVAL_STATUSES),
		requested_by: "string",
		decision_md: "string | null",
		decided_by: "string | null",
		decided_at: timestamp.or("null"),
		override_policy: "boolean",
		patch_revision: "number.integer | null",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const findingRecord = lazy(() =>
	type({
		code: "string",
		severity: "'critical' | 'high' | 'medium' | 'low'",
		path: "string",
		line: "number.integer >= 1",
		message: "string",
	}),
);

export const securityReviewRecord = lazy(() =>
	type({
		id: "string",
		proposal_id: "string | null",
		resource_id: "string | null",
		task_id: "string | null",
		reviewer_id: "string",
		status: type.enumerated(...REVIEW_STATUSES),
		mode: "'auto' | 'manual'",
		summary_md: "string",
		findings: findingRecord().array(),
		patch_revision: "number.integer | null",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const testRunRecord = lazy(() =>
	type({
		id: "string",
		proposal_id: "string | null",
		task_id: "string | null",
		/** The argv, quoted and joined: the form allowlists and expected_tests compare. */
		command: "string",
		argv: "string[]",
		status: type.enumerated(...TEST_RUN_STATUSES),
		exit_code: "number.integer | null",
		/** The signal that ended it (a timeout or cancellation kills the process group). */
		signal: "string | null",
		duration_ms: "number.integer >= 0 | null",
		summary_md: "string",
		patch_revision: "number.integer | null",
		/** `project`: the project root; `proposal`: a scratch copy with the proposal's patch applied. */
		workdir: "'project' | 'proposal'",
		/** `bwrap`: in bubblewrap (see tests.sandbox); `none`: unsandboxed, for `sandbox_reason`. */
		sandbox: "'bwrap' | 'none'",
		sandbox_reason: "string | null",
		requested_by: "string",
		/** Bytes the command wrote; past tests.max_output_bytes the log keeps the head and the tail. */
		output_bytes: "number.integer >= 0",
		truncated: "boolean",
		started_at: timestamp,
		finished_at: timestamp.or("null"),
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export const testEvidenceRecord = lazy(() =>
	type({
		id: "string",
		proposal_id: "string",
		patch_revision: "number.integer >= 1",
		agent_id: "string",
		session_id: "string | null",
		command: "string",
		outcome: type.enumerated(...TEST_OUTCOMES),
		summary_md: "string",
		status: "'reported'",
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

const fileState = lazy(() =>
	type({ kind: "'file' | 'symlink'", mode: "number.integer >= 0", sha256: "string" }),
);

export const transactionRecord = lazy(() =>
	type({
		id: "string",
		kind: "'apply' | 'rollback'",
		proposal_id: "string",
		run_id: "string | null",
		patch_revision: "number.integer >= 1",
		patch_sha256: "string",
		status: "'applied' | 'rolled_back'",
		/** For a rollback: the transaction it undid. */
		rolls_back: "string | null",
		applied_by: "string",
		applied_at: timestamp,
		reason_md: "string | null",
		/** Every touched path, before and after (null: absent). */
		files: type({ path: "string", before: fileState().or("null"), after: fileState().or("null") }).array(),
		/** An apply's gates as they stood when it was applied; null for a rollback (or an older apply). */
		gates: type({ gate: "string", ok: "boolean", reason: "string" }).array().or("null"),
		revision,
		created_at: timestamp,
		updated_at: timestamp,
	}),
);

export type RunRecord = ReturnType<typeof runRecord>["infer"];
export type AgentRecord = ReturnType<typeof agentRecord>["infer"];
export type StoredAgentRecord = ReturnType<typeof storedAgentRecord>["infer"];
export type SessionRecord = ReturnType<typeof sessionRecord>["infer"];
export type EventRecord = ReturnType<typeof eventRecord>["infer"];
export type TaskRecord = ReturnType<typeof taskRecord>["infer"];
export type MemoryRecord = ReturnType<typeof memoryRecord>["infer"];
export type TurnRecord = ReturnType<typeof turnRecord>["infer"];
export type DecisionRecord = ReturnType<typeof decisionRecord>["infer"];
export type ResourceRecord = ReturnType<typeof resourceRecord>["infer"];
export type PeerRequestRecord = ReturnType<typeof peerRequestRecord>["infer"];
export type PeerAnswerRecord = ReturnType<typeof peerAnswerRecord>["infer"];
export type MessageRecord = ReturnType<typeof messageRecord>["infer"];
export type PromotionRecord = ReturnType<typeof promotionRecord>["infer"];
export type ClaimRecord = ReturnType<typeof claimRecord>["infer"];
export type ProposalRecord = ReturnType<typeof proposalRecord>["infer"];
export type PatchRevisionRecord = ReturnType<typeof patchRevisionRecord>["infer"];
export type VoteRecord = ReturnType<typeof voteRecord>["infer"];
export type ApprovalRecord = ReturnType<typeof approvalRecord>["infer"];
export type SecurityReviewRecord = ReturnType<typeof securityReviewRecord>["infer"];
export type TestRunRecord = ReturnType<typeof testRunRecord>["infer"];
export type TestEvidenceRecord = ReturnType<typeof testEvidenceRecord>["infer"];
export type TransactionRecord = ReturnType<typeof transactionRecord>["infer"];
export type FileState = ReturnType<typeof fileState>["infer"];

/** An agent as the config describes it: what config sync writes into the agents table. */
export interface AgentFields {
	id: string;
	role: string;
	name: string;
	adapter: string;
	command: string;
	model: string;
}
