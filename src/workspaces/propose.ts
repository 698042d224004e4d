// The workspace tools: what a session changed (workspace.diff), and that change made a proposal or
// its next revision (workspace.propose), computed here on the owner's side from the workspace and
// recorded by the proposal engine exactly as proposal.create / proposal.attach_patch record theirs.

import { failedPrecondition, invalidArgument, notFound, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { readPatch, storePatch } from "../patches.ts";
import { attachPatch, create as createProposal } from "../proposals/lifecycle.ts";
import { type PreparedPatch, preparePatch } from "../proposals/patch.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { SessionDraft, SessionRow } from "../store/sessions.ts";
import { hasWorkspace, scopedFiles } from "./create.ts";
import { baseHashes, type WorkspaceChanges, workspaceChanges } from "./diff.ts";
import { type SyncOutcome, syncWorkspace, undoSync } from "./sync.ts";

const limitsOf = (env: Env) => ({
	exclude: env.rt.config.workspaces.exclude,
	maxBytes: env.rt.config.limits.max_patch_bytes,
});

/** The session a call is about: a capability's own, or the one the operator names. */
async function sessionOf(env: Env, given: string | undefined): Promise<SessionRow> {
	const who = env.ctx.principal;
	if (who.kind === "agent" && given !== undefined && given !== who.session_id)
		throw new ToolError("permission_denied", "a capability reaches only its own session's workspace", {
			field: "session_id",
		});
	const id = who.kind === "agent" ? who.session_id : given;
	if (id === undefined)
		throw invalidArgument("missing required argument 'session_id': name the session whose workspace", {
			field: "session_id",
		});
	const session = await env.rt.store.withTransaction("read", (tx) => tx.sessions.get(id));
	if (!session) throw notFound(`session ${id} not found`, { session_id: id });
	return session;
}

export async function diff(a: Args<"workspace.diff">, env: Env) {
	const session = await sessionOf(env, a.session_id);
	// A closed session's workspace is gone; what it held that no proposal carries is its draft.
	if (!hasWorkspace(env.rt.root, session.id)) {
		const draft = await env.rt.store.withTransaction("read", (tx) => tx.sessions.draftOf(session.id));
		const patch = draft && readPatch(env.rt.root, draft.sha256);
		if (draft && patch !== undefined)
			return { session_id: session.id, base: "", patch, files: draft.files as WorkspaceChanges["files"] };
	}
	const changes = workspaceChanges(env.rt.root, session.id, limitsOf(env));
	return { session_id: session.id, ...changes };
}

/**
 * What a closing session leaves: its workspace's changes that no proposal of its agent on its task
 * carries (as they are now), stored as a patch; undefined when there are none to keep.
 */
export async function draftOf(env: Env, sessionId: string): Promise<SessionDraft | undefined> {
	if (env.rt.config.workspaces.keep === "never" || !hasWorkspace(env.rt.root, sessionId)) return undefined;
	const changes = workspaceChanges(env.rt.root, sessionId, limitsOf(env));
	if (changes.patch === "") return undefined;
	const { sha256 } = storePatch(env.rt.root, changes.patch);
	const proposed = await env.rt.store.withTransaction("read", async (tx) => {
		const session = await tx.sessions.get(sessionId);
		if (!session?.task_id) return false;
		const mine = await tx.proposals.list(
			{ task_id: session.task_id, agent_id: session.agent_id },
			undefined,
			1000,
		);
		for (const p of mine)
			if ((await tx.proposals.revisions(p.id)).some((r) => r.sha256 === sha256)) return true;
		return false;
	});
	return proposed ? undefined : { sha256, files: changes.files };
}

export interface PreparedProposal {
	session: { agent_id: string; task_id: string; run_id: string | null };
	patch: PreparedPatch;
	files: string[];
}

/** The prepare phase of workspace.propose: the changes read and checked as any patch is, then stored. */
export async function preparePropose(a: Args<"workspace.propose">, env: Env): Promise<PreparedProposal> {
	const session = await sessionOf(env, a.session_id);
	if (session.task_id === null)
		throw failedPrecondition(`session ${session.id} is bound to no task: nothing to propose for`, {
			session_id: session.id,
		});
	const changes = workspaceChanges(env.rt.root, session.id, limitsOf(env));
	if (changes.patch === "")
		throw failedPrecondition(`nothing changed in session ${session.id}'s workspace since its base`, {
			session_id: session.id,
		});
	const patch = await preparePatch({ patch: changes.patch }, env);
	return {
		session: { agent_id: session.agent_id, task_id: session.task_id, run_id: session.run_id },
		// The revision records its base: apply refuses it once a file it touches has moved on.
		patch: { ...patch, base: baseHashes(env.rt.root, session.id, patch.files) },
		files: changes.files.map((f) => f.path),
	};
}

export async function propose(tx: Tx, a: Args<"workspace.propose">, env: Env, ready: PreparedProposal) {
	const { session, patch, files } = ready;
	const existing = a.proposal_id === undefined ? undefined : await tx.proposals.get(a.proposal_id);
	// Every changed file is an affected resource of its own (affected_resources: none named beyond them).
	const common = { agent_id: session.agent_id, patch: "(the workspace)", affected_resources: [] };
	const recorded = existing
		? await attachPatch(tx, { ...common, proposal_id: existing.id }, env, patch)
		: await createProposal(
				tx,
				{
					...common,
					task_id: session.task_id,
					title: a.title,
					summary_md: a.summary_md,
					risk: a.risk,
					...(a.proposal_id !== undefined && { proposal_id: a.proposal_id }),
					...(a.expected_tests !== undefined && { expected_tests: a.expected_tests }),
					...(a.rollback_notes !== undefined && { rollback_notes: a.rollback_notes }),
					...(session.run_id !== null && { run_id: session.run_id }),
				},
				env,
				patch,
			);
	return { ...recorded, files };
}

export interface PreparedSync {
	session: SessionRow;
	outcome: SyncOutcome & { undone: boolean };
}

/** workspace.sync's file work, outside any transaction: the merge (or its undo) done. */
export async function prepareSync(a: Args<"workspace.sync">, env: Env): Promise<PreparedSync> {
	const session = await sessionOf(env, a.session_id);
	if (session.task_id === null || !hasWorkspace(env.rt.root, session.id))
		throw failedPrecondition(`session ${session.id} has no workspace to sync`, { session_id: session.id });
	if (a.undo) {
		const { base } = undoSync(env.rt.root, session.id);
		return { session, outcome: { base, taken: [], merged: [], conflicts: [], undone: true } };
	}
	const task = await env.rt.store.withTransaction("read", (tx) => tx.tasks.get(session.task_id as string));
	const files = await scopedFiles(env.rt.root, task?.readable_paths ?? []);
	return { session, outcome: { ...syncWorkspace(env.rt.root, session.id, files), undone: false } };
}

/** The sync recorded: a workspace.synced event. */
export async function sync(tx: Tx, _a: Args<"workspace.sync">, env: Env, ready: PreparedSync) {
	const { session, outcome } = ready;
	await tx.events.append(
		{
			type: "workspace.synced",
			actor_id: session.agent_id,
			run_id: session.run_id,
			task_id: session.task_id,
			payload: { session_id: session.id, ...outcome },
		},
		env.now,
	);
	return { session_id: session.id, ...outcome };
}
