// Applying a proposal (patch.apply): under the repository lock held alone, its gates checked again,
// its patch worked out and written as one journaled transaction, then recorded: the proposal
// accepted and the author's claims over what it changed released.
import { releaseClaim } from "../claims/lifecycle.ts";
import { actorId } from "../context.ts";
import { overlaps } from "../domain/claims.ts";
import { touchedPaths } from "../domain/patch.ts";
import { conflict, failedPrecondition } from "../errors.ts";
import { checkProposal, policyOf } from "../gates/check.ts";
import { type Evidence, gatherEvidence } from "../gates/evidence.ts";
import type { Env, Key } from "../handlers/env.ts";
import { checkRevision, newRecordId, requireRun } from "../handlers/records.ts";
import { patchPath } from "../patches.ts";
import { mustBeOpen, OPEN } from "../proposals/open.ts";
import type { Args, Result } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { withRepository } from "./recover.ts";
import { taskFollowsProposal } from "./task-status.ts";
import { transact, workOut } from "./transact.ts";

/** Releases the author's live claims that overlap the applied proposal's resources. */
async function releaseCovering(tx: Tx, env: Env, e: Evidence, transactionId: string, now: string) {
	const release = { actor: actorId(env.ctx), reason: `applied in ${transactionId}`, forced: false };
	const released: string[] = [];
	for (const c of await tx.claims.activeOf(e.proposal.agent_id, now)) {
		if (!e.scopes.some((s) => overlaps(c, s))) continue;
		await releaseClaim(tx, c, release, now);
		released.push(c.id);
	}
	return released;
}

export function apply(a: Args<"patch.apply">, env: Env, key: Key<Result<"patch.apply">>) {
	const { rt } = env;
	return withRepository(rt, "exclusive", async () => {
		const claimed = await key.claim();
		if (claimed.earlier) return claimed.earlier;
		const { id, e } = await rt.store.withTransaction("read", async (tx) => {
			const id = await newRecordId(
				"transaction",
				{ field: "transaction_id", value: a.transaction_id, label: "transaction" },
				(t) => tx.transactions.get(t),
			);
			if (a.run_id !== undefined) await requireRun(tx, a.run_id);
			return { id, e: await gatherEvidence(tx, a.proposal_id, new Date().toISOString()) };
		});
		const p = e.proposal;
		mustBeOpen(p, "applied");
		checkRevision(p, a.expected_revision);
		const report = await checkProposal(rt.root, e, policyOf(rt));
		const failing = report.gates.filter((g) => !g.ok);
		// No policy means its gate failed: a policy that does not load never lets a patch through.
		const { policy } = report;
		if (failing.length > 0 || !report.parsed || !policy) {
			throw failedPrecondition(
				`proposal ${p.id} cannot be applied: ${failing[0]?.reason ?? "its patch did not parse"}`,
				{
					proposal_id: p.id,
					gates: failing,
				},
			);
		}
		const entries = await workOut(
			rt.root,
			patchPath(rt.root, e.patch.sha256),
			report.parsed.strip,
			touchedPaths(report.parsed),
		);
		return transact(rt, { id, kind: "apply", proposal_id: p.id }, entries, () =>
			rt.store.withTransaction("write", async (tx) => {
				const now = new Date().toISOString();
				const fresh = await tx.proposals.get(p.id);
				const moved = a.expected_revision !== undefined && fresh?.revision !== p.revision;
				if (fresh?.patch_revision !== p.patch_revision || !OPEN.includes(fresh.status) || moved) {
					throw conflict(`proposal ${p.id} changed while it was being applied; nothing was applied`, {
						proposal_id: p.id,
					});
				}
				const transaction = await tx.transactions.insert(
					{
						id,
						kind: "apply",
						proposal_id: p.id,
						run_id: a.run_id ?? p.run_id,
						patch_revision: p.patch_revision,
						patch_sha256: e.patch.sha256,
						rolls_back: null,
						applied_by: a.applied_by ?? actorId(env.ctx),
						applied_at: now,
						reason_md: null,
						files: entries,
						gates: report.gates,
					},
					now,
				);
				const proposal = await tx.proposals.setStatus(p.id, "accepted", `applied in ${id}`, now);
				const released = await releaseCovering(tx, env, e, id, now);
				const follow = { task_id: p.task_id, proposal_id: p.id, transaction_id: id, now };
				await taskFollowsProposal(tx, { ...follow, actor: transaction.applied_by }, "applied");
				await tx.events.append(
					{
						type: "patch.applied",
						actor_id: transaction.applied_by,
						run_id: transaction.run_id,
						task_id: p.task_id,
						payload: {
							transaction_id: id,
							proposal_id: p.id,
							patch_revision: p.patch_revision,
							files: entries.map((f) => f.path),
							released_claims: released,
						},
					},
					now,
				);
				const result = { proposal, transaction, policy, released_claims: released };
				return key.remember(tx, claimed.ticket, result);
			}),
		);
	});
}
