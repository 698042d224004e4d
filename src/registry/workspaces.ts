import { callerId, nonBlank } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { proposalRecord } from "../vocabulary/records.ts";
import { RISKS } from "../vocabulary/statuses.ts";
import { tool } from "./types.ts";

const changedFile = type({
	path: "string",
	change: "'added' | 'modified' | 'deleted' | 'renamed' | 'type_changed'",
});

export const workspaceTools = [
	tool({
		name: "workspace.diff",
		family: "workspaces",
		access: { Implementer: { bound: "task" } },
		title: "What you changed",
		description:
			"Your workspace's changes against its base, as a patch, to check before proposing. Next: workspace.propose.",
		details:
			"The changes in a launched session's workspace (the copy of the files its task may read that it edits with its own tools) against the base it started from: text, binary, modes, deletions and renames, as a git-style patch and a list of files. The owner reads the work tree through its own copy of the base; the workspace's .git plays no part. An agent reads its own session's; the operator names one with `session_id`.",
		args: () => type({ "session_id?": callerId }),
		argDocs: { session_id: "Whose workspace (the operator's choice)." },
		output: () =>
			type({
				session_id: "string",
				base: "string",
				patch: "string",
				files: changedFile.array(),
			}),
		mutates: false,
	}),
	tool({
		name: "workspace.propose",
		family: "workspaces",
		access: { Implementer: { bound: "task" } },
		ownId: "proposal_id",
		title: "Propose what you changed",
		description:
			"Make your workspace's changes a proposal (or its next revision) once your write claims cover them. Next: patch.validate, then proposal.request_review.",
		details:
			"The owner computes the patch and its affected resources (a `file:` resource for every changed path) from the session's workspace and records them exactly as proposal.create would, on the session's task with the session's agent as author; with the `proposal_id` of an open proposal of yours, as its next revision (as proposal.attach_patch). Every changed file must be covered by your live write or exclusive claims: otherwise the call is refused naming each, and nothing is stored. Nothing changed is `failed_precondition`.",
		args: () =>
			type({
				"session_id?": callerId,
				title: nonBlank,
				summary_md: nonBlank,
				risk: type.enumerated(...RISKS),
				"proposal_id?": callerId,
				"expected_tests?": nonBlank.array(),
				"rollback_notes?": nonBlank,
			}),
		argDocs: {
			session_id: "Whose workspace (the operator's choice).",
			title: "Short title.",
			summary_md: "What and why.",
			risk: "Sets the policy gates.",
			proposal_id: "Yours to revise, or a new id.",
			expected_tests: "Commands that should pass.",
			rollback_notes: "How to undo it.",
			idempotency_key: "No second proposal on retry.",
		},
		output: () => type({ proposal: proposalRecord(), proposal_resources: "string[]", files: "string[]" }),
		mutates: true,
	}),
	tool({
		name: "workspace.sync",
		family: "workspaces",
		access: { Implementer: { bound: "task" } },
		title: "Catch up with the project",
		description:
			"Bring your workspace to the project's current files, merging your changes in; conflicts keep markers. Next: resolve them, then workspace.propose.",
		details:
			"The workspace's base becomes the project's current applied files in your task's scope. A file only the project changed is taken, one only you changed is kept, one both changed is merged three-way over the base (`git merge-file`); a conflict keeps standard markers and is listed (a file deleted on one side and changed on the other keeps your side and is listed too). The state before is kept: `undo: true` restores it and the base it stood on. Your workspace's .git is made anew on the new base. A `workspace.synced` event. A proposal made after a sync is a new revision against the new base, needing fresh votes and tests as any revision does.",
		args: () => type({ "session_id?": callerId, "undo?": "boolean" }),
		argDocs: {
			session_id: "Whose workspace (the operator's choice).",
			undo: "Put back the state before the last sync.",
			idempotency_key: "Syncs once on retry.",
		},
		output: () =>
			type({
				session_id: "string",
				base: "string",
				taken: "string[]",
				merged: "string[]",
				conflicts: "string[]",
				undone: "boolean",
			}),
		mutates: true,
	}),
] as const;
