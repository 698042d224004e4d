// The fixed status sets of SPEC §4. Stored values are checked against these in the schema and the
// database alike.

/** `proposed`: promoted from a message; the Chair never assigns, starts or adds it to a run. */
export const TASK_STATUSES = [
	"proposed",
	"open",
	"in_progress",
	"blocked",
	"review",
	"done",
	"cancelled",
	"failed",
] as const;
export const PROPOSAL_STATUSES = [
	"pending",
	"in_review",
	"accepted",
	"rejected",
	"withdrawn",
	"rolled_back",
] as const;
export const CLAIM_STATUSES = ["active", "released", "revoked", "expired", "suspended"] as const;
export const CLAIM_TYPES = ["read", "write", "review", "exclusive"] as const;
export const APPROVAL_STATUSES = ["requested", "approved", "rejected"] as const;
export const VOTES = ["approve", "approve_with_notes", "revise", "reject", "veto", "abstain"] as const;
export const REVIEW_STATUSES = ["approved", "needs_changes", "veto"] as const;
/** `error`: the command never ran (not spawnable, or the proposal's patch did not apply). */
export const TEST_RUN_STATUSES = [
	"running",
	"passed",
	"failed",
	"timed_out",
	"cancelled",
	"interrupted",
	"error",
] as const;
export const TEST_OUTCOMES = ["passed", "failed", "inconclusive"] as const;
export const RUN_STATUSES = ["active", "completed", "blocked", "failed"] as const;
/** A run's autopilot: the Chair starts its sessions (on), not (off), or not for now (paused: a bound was reached). */
export const AUTOPILOT_MODES = ["off", "on", "paused"] as const;
/** A turn request's life: queued, scheduled by the Chair, started, then completed or expired. */
export const TURN_STATUSES = ["requested", "scheduled", "started", "completed", "expired"] as const;
export const SESSION_STATUSES = ["active", "idle", "ended"] as const;
/** How a launched session's agent last ended (stopped: by session.stop, run.stop or its wall time). */
export const SESSION_OUTCOMES = ["succeeded", "failed", "stopped", "gave_up"] as const;
/**
 * What a claim does when the session that took it ends (a launched agent exits): `hold` keeps it
 * until its lease runs out, `release` releases it, `suspend` suspends it (it blocks nobody, and comes
 * back only by renewing it with rebase).
 */
export const RESUME_POLICIES = ["hold", "release", "suspend"] as const;
export const MEMORY_STATUSES = ["active", "stale"] as const;
/** A peer question: open until its assignee answers (answered) or its requester cancels it. */
export const REQUEST_STATUSES = ["open", "answered", "cancelled"] as const;
/** `proposed`: promoted from a message and not yet taken; `recorded`: made with decision.record. */
export const DECISION_STATUSES = ["proposed", "recorded"] as const;
/** What a message may be promoted into. */
export const PROMOTION_KINDS = ["task", "decision"] as const;

/** `low` and `normal` change nothing; `high` and `critical` bring security review and a human gate. */
export const RISKS = ["low", "normal", "high", "critical"] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];
export type RunStatus = (typeof RUN_STATUSES)[number];
export type AutopilotMode = (typeof AUTOPILOT_MODES)[number];
export type TurnStatus = (typeof TURN_STATUSES)[number];
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export type SessionOutcome = (typeof SESSION_OUTCOMES)[number];
export type ResumePolicy = (typeof RESUME_POLICIES)[number];
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];
export type ClaimType = (typeof CLAIM_TYPES)[number];
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type Vote = (typeof VOTES)[number];
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];
export type TestOutcome = (typeof TEST_OUTCOMES)[number];
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];
export type Risk = (typeof RISKS)[number];
export type RequestStatus = (typeof REQUEST_STATUSES)[number];
export type DecisionStatus = (typeof DECISION_STATUSES)[number];
export type PromotionKind = (typeof PROMOTION_KINDS)[number];

/** Task statuses counted as open work by table.watch. */
export const OPEN_TASK_STATUSES: readonly TaskStatus[] = ["open", "in_progress", "blocked"];

/** The languages repo.symbols reads. */
export const SYMBOL_LANGUAGES = ["typescript", "tsx", "javascript", "python", "go"] as const;
/** The ecosystems repo.dependency_context reads manifests and lockfiles of. */
export const DEPENDENCY_ECOSYSTEMS = ["npm", "go", "cargo", "python"] as const;
