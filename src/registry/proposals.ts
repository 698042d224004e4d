import { callerId, nonBlank, positiveInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import {
	decisionRecord,
	patchRevisionRecord,
	proposalRecord,
	testEvidenceRecord,
	transactionRecord,
	voteRecord,
} from "../vocabulary/records.ts";
import { PROPOSAL_STATUSES, RISKS, VOTES } from "../vocabulary/statuses.ts";
import { REVIEWERS_AND_AUTHOR, tool } from "./types.ts";

const proposalId = type({ proposal_id: callerId });
const proposalOutput = type({ proposal: proposalRecord(), proposal_resources: "string[]" });
const gate = type({ gate: "string", ok: "boolean", reason: "string" });

/** What the policy engine says of a proposal (src/policy/types.ts Evaluation). */
const evaluationRecord = type({
	profiles: "string[]",
	high_risk_paths: "string[]",
	dangerous_commands: "string[]",
	approvals: "number.integer >= 0",
	approvals_required: "number.integer >= 0",
	blockers: "number.integer >= 0",
	blockers_allowed: "number.integer >= 0",
	vetoes: "number.integer >= 0",
	approval_votes: "string[]",
	blocking_votes: "string[]",
	required_roles: "string[]",
	missing_roles: "string[]",
	tests_required: "boolean",
	tests_sandbox_required: "boolean",
	rollback_plan_required: "boolean",
	human_approval_required: "boolean",
	security_review_required: "boolean",
	gates: gate.array(),
	approvable: "boolean",
	summary: "string",
});

export const proposalTools = [
	tool({
		name: "proposal.create",
		family: "proposals",
		access: { Implementer: { bound: "task" } },
		actors: ["agent_id"],
		ownId: "proposal_id",
		title: "Propose a patch",
		description:
			"Submit a diff for a task once your write claims cover it. Next: patch.validate, then proposal.request_review.",
		details:
			"Submit a change to a task as a patch proposal (status `pending`). The patch is a unified diff (git-style or plain); it is stored by its sha256 as patch revision 1. Every file it touches becomes an affected resource unless an explicit file, symbol or directory resource covers it, and your live write or exclusive claims must cover every affected resource.",
		args: () =>
			type({
				task_id: callerId,
				agent_id: callerId,
				title: nonBlank,
				summary_md: nonBlank,
				affected_resources: nonBlank.array(),
				risk: type.enumerated(...RISKS),
				patch: nonBlank,
				"expected_tests?": nonBlank.array(),
				"rollback_notes?": nonBlank,
				"proposal_id?": callerId,
				"run_id?": callerId,
			}),
		argDocs: {
			task_id: "Task it implements.",
			agent_id: "The author: you.",
			title: "Short title.",
			summary_md: "What and why.",
			affected_resources: "Resource ids it changes.",
			risk: "Sets the policy gates.",
			patch: "Unified diff.",
			expected_tests: "Commands that should pass.",
			rollback_notes: "How to undo it.",
			proposal_id: "Own id (default new P-).",
			run_id: "Run it belongs to.",
			idempotency_key: "No second proposal on retry.",
		},
		output: () => proposalOutput,
		mutates: true,
	}),
	tool({
		name: "proposal.attach_patch",
		family: "proposals",
		access: { Implementer: { bound: "task" } },
		actors: ["agent_id"],
		namedByCaller: ["agent_id"],
		title: "Attach a new patch revision",
		description:
			"Replace your open proposal's diff, e.g. after revise votes; older votes and checks stop counting. Next: proposal.request_review.",
		details:
			"Replace a proposal's patch with a new revision (its author only). The proposal goes back to `pending`, and votes, reviews, approvals and test results about older revisions stop counting.",
		args: () =>
			type({
				proposal_id: callerId,
				"agent_id?": callerId,
				patch: nonBlank,
				"affected_resources?": nonBlank.array(),
			}),
		argDocs: {
			proposal_id: "Your proposal.",
			agent_id: "The author: you.",
			patch: "New unified diff.",
			affected_resources: "New list (default same).",
			idempotency_key: "One revision on retry.",
			expected_revision: "Proposal revision you read.",
		},
		output: () => proposalOutput,
		mutates: true,
		updates: true,
		destructive: true,
	}),
	tool({
		name: "proposal.get",
		family: "proposals",
		access: "every",
		title: "Get a proposal",
		description:
			"A proposal with its diff; read it before voting or revising. Next: vote.cast or patch.validate.",
		details:
			"Fetch one proposal, its affected resources and its patch revisions (with the current patch text). An agent sees the files of the patch its read scope covers (its task's readable_paths; a reviewer, tester or security agent also its bound proposal's files); `withheld` names the others.",
		args: () => proposalId,
		argDocs: {
			proposal_id: "Proposal to fetch.",
		},
		output: () =>
			type({
				proposal: proposalRecord(),
				proposal_resources: "string[]",
				revisions: patchRevisionRecord().array(),
				patch: "string | null",
				withheld: "string[]",
			}),
		reads: "readable",
		mutates: false,
	}),
	tool({
		name: "proposal.list",
		family: "proposals",
		access: "every",
		title: "List proposals",
		description: "Proposals, oldest first, to find reviews. Next: proposal.get one.",
		details:
			"List proposals, oldest first, filtered by task, status, author or run. Pages with `limit` and `cursor`.",
		args: () =>
			type({
				"task_id?": callerId,
				"status?": type.enumerated(...PROPOSAL_STATUSES),
				"agent_id?": callerId,
				"run_id?": callerId,
				"limit?": type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000"),
				"cursor?": nonBlank,
			}),
		argDocs: {
			task_id: "Only this task's.",
			status: "Only this status.",
			agent_id: "Only this author's.",
			run_id: "Only this run's.",
			limit: "Page size (default 200).",
			cursor: "Previous next_cursor.",
		},
		output: () => type({ proposals: proposalRecord().array(), next_cursor: "string | null" }),
		mutates: false,
	}),
	tool({
		name: "proposal.request_review",
		family: "proposals",
		access: { Chair: { bound: "run" } },
		title: "Request review",
		description:
			"Put a pending proposal in review; names reviewers and gates. Next: reviewers vote.cast; test.run; security.review or human.request_approval if required.",
		details:
			"Move a pending proposal into review and name the roles that should review it (Reviewer, plus what the policy's detected profiles and risk require) and the enabled agents of those roles (never the author).",
		args: () => proposalId,
		argDocs: {
			proposal_id: "Proposal to review.",
			idempotency_key: "Requests once on retry.",
			expected_revision: "Proposal revision you read.",
		},
		output: () =>
			type({
				proposal: proposalRecord(),
				proposal_resources: "string[]",
				review_roles: "string[]",
				reviewers: type({ role: "string", agent_id: "string | null", adapter: "string | null" }).array(),
				policy: evaluationRecord,
				human_approval_required: "boolean",
				security_review_required: "boolean",
			}),
		mutates: true,
		updates: true,
	}),
	tool({
		name: "proposal.withdraw",
		family: "proposals",
		access: { Implementer: { bound: "task" } },
		actors: ["agent_id"],
		title: "Withdraw a proposal",
		description: "Withdraw your open proposal. Next: resource.release claims you no longer need.",
		details: "Withdraw your own pending or in-review proposal.",
		args: () => type({ proposal_id: callerId, agent_id: callerId, "reason_md?": nonBlank }),
		argDocs: {
			proposal_id: "Your proposal.",
			agent_id: "The author: you.",
			reason_md: "Why.",
			idempotency_key: "Withdraws once on retry.",
			expected_revision: "Proposal revision you read.",
		},
		output: () => proposalOutput,
		mutates: true,
		updates: true,
		destructive: true,
		idempotent: true,
	}),
	tool({
		name: "vote.cast",
		family: "proposals",
		access: {
			Reviewer: { bound: "proposal" },
			Tester: { bound: "proposal" },
			Security: { bound: "proposal" },
			Architect: { bound: "proposal" },
		},
		actors: ["agent_id"],
		title: "Vote on a proposal",
		description:
			"Your verdict on a proposal's current diff; replaces your last vote. Next: patch.validate shows the quorum.",
		details:
			"Vote on the proposal's current patch revision: approve, approve_with_notes, revise, reject, veto or abstain. One vote per agent per proposal: a new vote replaces yours. The author's own vote never counts toward quorum.",
		args: () =>
			type({
				proposal_id: callerId,
				agent_id: callerId,
				vote: type.enumerated(...VOTES),
				reason_md: nonBlank,
				"confidence?": type("0 <= number <= 1").describe("a number from 0 to 1"),
			}),
		argDocs: {
			proposal_id: "Proposal to vote on.",
			agent_id: "The voter: you.",
			vote: "revise asks for a new diff.",
			reason_md: "Why, for the author.",
			confidence: "0 to 1.",
			idempotency_key: "Votes once on retry.",
		},
		output: () => type({ vote: voteRecord(), replaced: "boolean" }),
		mutates: true,
	}),
	tool({
		name: "vote.list",
		family: "proposals",
		access: "every",
		title: "List votes",
		description: "A proposal's votes; only those on patch_revision count. Next: patch.validate.",
		details:
			"List the votes on a proposal, oldest first, with the patch revision each saw; only votes on `patch_revision` count. Pages with `limit` and `cursor`.",
		args: () =>
			type({
				proposal_id: callerId,
				"limit?": type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000"),
				"cursor?": nonBlank,
			}),
		argDocs: {
			proposal_id: "Proposal voted on.",
			limit: "Page size (default 200).",
			cursor: "Previous next_cursor.",
		},
		output: () =>
			type({ votes: voteRecord().array(), next_cursor: "string | null", patch_revision: positiveInt }),
		mutates: false,
	}),
	tool({
		name: "decision.record",
		family: "proposals",
		access: { Architect: {}, Chair: { bound: "run" } },
		actors: ["decided_by"],
		ownId: "decision_id",
		title: "Record a decision",
		description:
			"Record a decision later agents must follow. Next: memory.record if it is lasting knowledge.",
		details:
			"Record a decision and its rationale, optionally about a task, a proposal or a run. Decisions are append-only: a new decision never overwrites an old one.",
		args: () =>
			type({
				decision: nonBlank,
				rationale_md: nonBlank,
				decided_by: callerId,
				"proposal_id?": callerId,
				"task_id?": callerId,
				"run_id?": callerId,
				"decision_id?": callerId,
			}),
		argDocs: {
			decision: "What, in a line.",
			rationale_md: "Why.",
			decided_by: "Agent id or operator.",
			proposal_id: "Proposal it concerns.",
			task_id: "Task it concerns.",
			run_id: "Run it concerns.",
			decision_id: "Own id (default new D-).",
			idempotency_key: "Records once on retry.",
		},
		output: () => type({ decision: decisionRecord() }),
		mutates: true,
	}),
	tool({
		name: "patch.validate",
		family: "proposals",
		access: REVIEWERS_AND_AUTHOR,
		title: "Validate a patch",
		description:
			"Each gate to apply, with why it fails; changes nothing. Next: fix failing gates, then patch.apply.",
		details:
			"Check a proposal without applying it and report every gate with a reason: claims (live, covering, not stale), the stored patch, parsing, coverage of every change, a trial `git apply --check`, and the policy gates (quorum, blockers, vetoes, roles, tests, rollback plan, human approval, security review). `valid` means it could be applied; `approvable` means policy allows it too. `reported_evidence` lists what testers reported on this revision (test.evidence.submit): shown, never counted as a pass.",
		args: () => proposalId,
		argDocs: {
			proposal_id: "Proposal to check.",
		},
		output: () =>
			type({
				proposal: proposalRecord(),
				proposal_resources: "string[]",
				valid: "boolean",
				approvable: "boolean",
				gates: gate.array(),
				stale_claims: "string[]",
				policy: evaluationRecord.or("null"),
				reported_evidence: testEvidenceRecord().array(),
			}),
		mutates: false,
	}),
	tool({
		name: "patch.apply",
		family: "proposals",
		actors: ["applied_by"],
		ownId: "transaction_id",
		title: "Apply a patch",
		description:
			"Apply a proposal whose gates pass, as one reversible transaction. Next: task.update_status to done.",
		details:
			"Apply a pending or in-review proposal whose every policy gate passes, as one recorded, reversible transaction: under the repository lock the patch is checked with `git apply` on a scratch copy, journaled, written, then recorded. All or nothing, even across a crash. The proposal becomes `accepted`, the author's claims on the touched resources are released, and its task becomes `done` (`review` while another proposal of the task is still open; a cancelled task stays so).",
		args: () =>
			type({
				proposal_id: callerId,
				"run_id?": callerId,
				"applied_by?": callerId,
				"transaction_id?": callerId,
			}),
		argDocs: {
			proposal_id: "Proposal to apply.",
			run_id: "Default the proposal's.",
			applied_by: "Default the caller.",
			transaction_id: "Own id (default new TX-).",
			idempotency_key: "Applies once on retry.",
			expected_revision: "Proposal revision you validated.",
		},
		output: () =>
			type({
				proposal: proposalRecord(),
				transaction: transactionRecord(),
				policy: evaluationRecord,
				released_claims: "string[]",
			}),
		mutates: true,
		updates: true,
		destructive: true,
	}),
	tool({
		name: "patch.reject",
		family: "proposals",
		actors: ["decided_by"],
		ownId: "decision_id",
		title: "Reject a patch",
		description: "Reject an open proposal and record why. Next: the author may proposal.create anew.",
		details: "Reject a pending or in-review proposal and record the decision.",
		args: () =>
			type({
				proposal_id: callerId,
				reason_md: nonBlank,
				"decided_by?": callerId,
				"decision_id?": callerId,
			}),
		argDocs: {
			proposal_id: "Proposal to reject.",
			reason_md: "Why.",
			decided_by: "Default the caller.",
			decision_id: "Own id (default new D-).",
			idempotency_key: "Rejects once on retry.",
			expected_revision: "Proposal revision you read.",
		},
		output: () => type({ proposal: proposalRecord(), decision: decisionRecord() }),
		mutates: true,
		updates: true,
		destructive: true,
		idempotent: true,
	}),
	tool({
		name: "patch.rollback",
		family: "proposals",
		title: "Roll back a transaction",
		description:
			"Operator: undo an applied transaction, unless its files changed since (see force). Next: task.update_status to reopen.",
		details:
			"Restore every file an applied transaction changed to its bytes and mode before it, as a transaction of its own under the same lock and journal as apply. Refused when a later transaction touched the same files, or when the files changed since the apply, unless `force`. The proposal becomes `rolled_back` and its task `in_progress` again. Operator only.",
		args: () => type({ transaction_id: callerId, "force?": "boolean", "reason_md?": nonBlank }),
		argDocs: {
			transaction_id: "Transaction to undo.",
			force: "Overwrite later edits.",
			reason_md: "Why.",
			idempotency_key: "Rolls back once on retry.",
			expected_revision: "Transaction revision you read.",
		},
		output: () =>
			type({
				transaction: transactionRecord(),
				rolled_back: transactionRecord(),
				proposal: proposalRecord(),
			}),
		mutates: true,
		updates: true,
		destructive: true,
	}),
	tool({
		name: "patch.recover",
		family: "proposals",
		visibility: "internal",
		title: "Recover interrupted applies",
		description: "Settle every apply or rollback a crash interrupted; the owner calls it at start.",
		details:
			"Holding the repository lock alone, settles every pending apply journal: an apply whose transaction the database recorded is finished, any other is undone (every touched path back to its before-state), each with a `patch.recovered` event; what dead applies left in the journal folder is removed.",
		args: () => type({}),
		argDocs: { idempotency_key: "Recovers once on retry." },
		output: () =>
			type({
				settled: type({ transaction_id: "string", outcome: "'done' | 'undone'" }).array(),
			}),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "proposal.revisions",
		family: "proposals",
		visibility: "operator",
		title: "A proposal's patch revisions",
		description: "Every patch revision of a proposal, with the diff of each.",
		details:
			"Each patch revision of a proposal, oldest first, with its stored patch text (null when the stored file is missing or damaged); proposal.get gives the current one's only. Read-only.",
		args: () => proposalId,
		argDocs: { proposal_id: "Proposal to read." },
		output: () =>
			type({
				proposal_id: "string",
				revisions: patchRevisionRecord().merge({ patch: "string | null" }).array(),
			}),
		mutates: false,
	}),
] as const;
