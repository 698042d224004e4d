// Rolling back an applied transaction (patch.rollback), for the operator only: its files put back
// to their before-states as one journaled transaction, refused when later transactions or hands
// changed them since (unless forced), then the rollback recorded and the proposal rolled_back.
import { actorId } from "../context.ts";
import { conflict, failedPrecondition, notFound, ToolError } from "../errors.ts";
import type { Env, Key } from "../handlers/env.ts";
import { checkRevision } from "../handlers/records.ts";
import type { Args, Result } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";
import type { TransactionRecord } from "../vocabulary/records.ts";
import { withRepository } from "./recover.ts";
import { capture, currentState, sameState } from "./state.ts";
import { taskFollowsProposal } from "./task-status.ts";
import { transact } from "./transact.ts";

async function requireTransaction(tx: Tx, id: string): Promise<TransactionRecord> {
	const t = await tx.transactions.get(id);
	if (!t) throw notFound(`transaction ${id} not found`, { transaction_id: id });
	return t;
}

export function rollback(a: Args<"patch.rollback">, env: Env, key: Key<Result<"patch.rollback">>) {
	const { rt } = env;
	if (env.ctx.principal.kind !== "operator") {
		throw new ToolError("permission_denied", "only the operator rolls back a transaction");
	}
	return withRepository(rt, "exclusive", async () => {
		const claimed = await key.claim();
		if (claimed.earlier) return claimed.earlier;
		const { t, later } = await rt.store.withTransaction("read", async (tx) => {
			const t = await requireTransaction(tx, a.transaction_id);
			return {
				t,
				later: await tx.transactions.laterTouching(
					t.id,
					t.files.map((f) => f.path),
				),
			};
		});
		checkRevision(t, a.expected_revision);
		if (t.kind !== "apply" || t.status !== "applied") {
			throw failedPrecondition(
				`transaction ${t.id} is ${t.kind === "rollback" ? "a rollback" : t.status}; only an applied one can be rolled back`,
				{
					transaction_id: t.id,
					status: t.status,
				},
			);
		}
		// The repository may have changed shape since: never follow a directory that now leads out.
		const guard = new RepoGuard(rt.root);
		for (const f of t.files) guard.entry(f.path);
		if (!a.force) {
			if (later.length > 0) {
				throw failedPrecondition(
					`later transactions changed the same files: roll back ${later.map((l) => l.id).join(", ")} first`,
					{
						transaction_id: t.id,
						later: later.map((l) => l.id),
					},
				);
			}
			const changed = t.files
				.filter((f) => !sameState(currentState(rt.root, f.path), f.after))
				.map((f) => f.path);
			if (changed.length > 0) {
				throw failedPrecondition(
					`files changed since ${t.id} was applied: ${changed.join(", ")} (force: true restores them anyway)`,
					{
						transaction_id: t.id,
						changed,
					},
				);
			}
		}
		const entries = t.files.map((f) => ({
			path: f.path,
			before: capture(rt.root, rt.root, f.path),
			after: f.before,
		}));
		const id = mintId("transaction");
		return transact(rt, { id, kind: "rollback", proposal_id: t.proposal_id }, entries, () =>
			rt.store.withTransaction("write", async (tx) => {
				const now = new Date().toISOString();
				const still = await requireTransaction(tx, t.id);
				if (still.status !== "applied")
					throw conflict(`transaction ${t.id} changed meanwhile; nothing was rolled back`, {
						transaction_id: t.id,
					});
				const transaction = await tx.transactions.insert(
					{
						id,
						kind: "rollback",
						proposal_id: t.proposal_id,
						run_id: t.run_id,
						patch_revision: t.patch_revision,
						patch_sha256: t.patch_sha256,
						rolls_back: t.id,
						applied_by: actorId(env.ctx),
						applied_at: now,
						reason_md: a.reason_md ?? null,
						files: entries,
						gates: null,
					},
					now,
				);
				const rolledBack = await tx.transactions.markRolledBack(t.id, now);
				const proposal = await tx.proposals.setStatus(
					t.proposal_id,
					"rolled_back",
					a.reason_md ?? `rolled back in ${id}`,
					now,
				);
				const follow = { task_id: proposal.task_id, proposal_id: proposal.id, transaction_id: id, now };
				await taskFollowsProposal(tx, { ...follow, actor: transaction.applied_by }, "rolled_back");
				await tx.events.append(
					{
						type: "patch.rolled_back",
						actor_id: transaction.applied_by,
						run_id: t.run_id,
						task_id: proposal.task_id,
						payload: {
							transaction_id: id,
							rolls_back: t.id,
							proposal_id: t.proposal_id,
							files: entries.map((f) => f.path),
							forced: a.force ?? false,
							reason_md: a.reason_md ?? null,
						},
					},
					now,
				);
				const result = { transaction, rolled_back: rolledBack, proposal };
				return key.remember(tx, claimed.ticket, result);
			}),
		);
	});
}
