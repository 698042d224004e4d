// The policy as the evaluator sees it, after POLICIES.ROUNDTABLE.md was merged over the defaults.
import type { ReviewStatus, Risk, Vote } from "../vocabulary/statuses.ts";

export interface Profile {
	/** Approving votes needed; undefined when the profile does not set a quorum. */
	approvals_required?: number;
	/** Blocking votes tolerated; undefined when the profile does not say. */
	blockers_allowed?: number;
	required_roles: string[];
	tests_required: boolean;
	human_approval_required: boolean;
	security_veto_blocks: boolean;
	security_approval_required: boolean;
	rollback_plan_required: boolean;
	/** Only a run in the sandbox counts as a pass (and a pass is required, as tests_required does). */
	tests_sandbox_required: boolean;
}

export interface Policy {
	consensus: Record<string, Profile>;
	risk: { high_paths: string[] };
	commands: { dangerous: string[] };
	/** How large a change must be to count as architectural. */
	architecture: { min_files: number; min_top_level_dirs: number };
}

/** What a policy file (or DEFAULT_POLICY) may set: any subset of the fields, profile by profile. */
export interface PolicyOverrides {
	consensus?: Record<string, Partial<Profile>>;
	risk?: Partial<Policy["risk"]>;
	commands?: Partial<Policy["commands"]>;
	architecture?: Partial<Policy["architecture"]>;
}

export type VoteValue = Vote;

export interface EvaluationInput {
	risk: Risk;
	/** Repo-relative paths the patch touches. */
	touched: string[];
	/** Added lines of the patch (for dangerous commands). */
	added: { path: string; line: number; text: string }[];
	/** Paths the patch makes symbolic links: each one brings in the security review gate. */
	symlinks?: string[];
	author: string;
	/** The proposal's current revision, used only to make gate reasons specific. */
	revision?: number;
	/** Votes on the current revision, one per agent, with the voter's role. */
	votes: { agent_id: string; role: string; vote: VoteValue }[];
	/** The passing test runs of the current revision, newest first. */
	passes: TestPass[];
	/** Test commands the proposal says should pass; each needs a passing run on the current revision. */
	expected_tests?: string[];
	rollback_notes: string | null;
	/** The latest decided human approval for the current revision, if any. */
	human: { status: "approved" | "rejected"; override_policy: boolean } | null;
	/** The latest security review for the current revision, if any. */
	security: { status: ReviewStatus } | null;
}

export interface TestPass {
	id: string;
	command: string;
	/** The run had the sandbox (bubblewrap), not `none`. */
	sandboxed: boolean;
}

export interface Gate {
	gate: string;
	ok: boolean;
	reason: string;
}

export interface Evaluation {
	/** Detected profiles, `default` first. */
	profiles: string[];
	high_risk_paths: string[];
	dangerous_commands: string[];
	approvals: number;
	approvals_required: number;
	blockers: number;
	blockers_allowed: number;
	vetoes: number;
	approval_votes: string[];
	blocking_votes: string[];
	required_roles: string[];
	missing_roles: string[];
	tests_required: boolean;
	tests_sandbox_required: boolean;
	rollback_plan_required: boolean;
	human_approval_required: boolean;
	security_review_required: boolean;
	/** The policy gates (quorum, blockers, roles, tests, rollback plan, human approval, security). */
	gates: Gate[];
	approvable: boolean;
	summary: string;
}
