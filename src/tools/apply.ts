// patch.apply and patch.rollback: each a transaction over the repository that cannot be left half
// done. Holding the repository lock alone, it works out every touched path's before and after
// state (git apply in a scratch copy, so a patch that no longer applies changes nothing), writes
// the journal, writes the files, and only then records the transaction in the database. A crash at
// any point is settled by recovery (src/apply/recover.ts): wholly before, or wholly after.
import {
	chmodSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readlinkSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type JournalEntry, SCRATCH_PREFIX, settleJournal, writeJournal } from "../apply/journal.ts";
import { recoverNow, withRepository } from "../apply/recover.ts";
import { capture, currentState, JOURNAL_DIR, restore, sameState } from "../apply/state.ts";
import { releaseClaim } from "../claims/lifecycle.ts";
import { actorId } from "../context.ts";
import { overlaps } from "../domain/claims.ts";
import { touchedPaths } from "../domain/patch.ts";
import type { Env, Key } from "../engine/env.ts";
import { checkRevision, newRecordId, requireRun } from "../engine/records.ts";
import { conflict, failedPrecondition, notFound, ToolError } from "../errors.ts";
import { checkProposal, policyOf } from "../gates/check.ts";
import { type Evidence, gatherEvidence } from "../gates/evidence.ts";
import { gitApply, patchPath } from "../patches.ts";
import { mustBeOpen, OPEN } from "../proposals/open.ts";
import type { Args, Result } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import { mintId } from "../vocabulary/ids.ts";
import type { TransactionRecord } from "../vocabulary/records.ts";

/** Test-only: `ROUNDTABLE_TEST_CRASH_AT=<step>` kills this process at that step (see the apply tests). */
function crashPoint(step: string): void {
	if (process.env.ROUNDTABLE_TEST_CRASH_AT === step) process.kill(process.pid, "SIGKILL");
}

/**
 * Test-only: `ROUNDTABLE_TEST_PAUSE_AT=<step>` holds this apply at that step (the repository lock
 * held) until the file `ROUNDTABLE_TEST_PAUSE_FILE` exists; `<that file>.reached` says it got there.
 */
async function pausePoint(step: string): Promise<void> {
	const file = process.env.ROUNDTABLE_TEST_PAUSE_FILE;
	if (process.env.ROUNDTABLE_TEST_PAUSE_AT !== step || file === undefined) return;
	writeFileSync(`${file}.reached`, "");
	while (!existsSync(file)) await Bun.sleep(10);
}

/** Before and after states of every touched path: the patch applied to a scratch copy of them. */
async function workOut(
	root: string,
	patchFile: string,
	strip: number,
	paths: string[],
): Promise<JournalEntry[]> {
	const guard = new RepoGuard(root);
	mkdirSync(join(root, JOURNAL_DIR), { recursive: true, mode: 0o700 });
	const scratch = mkdtempSync(join(root, JOURNAL_DIR, SCRATCH_PREFIX));
	try {
		const entries: JournalEntry[] = [];
		for (const path of paths) {
			guard.entry(path, "patch"); // inside the repository, never .git/ or .roundtable/
			const before = capture(root, root, path);
			if (before) {
				const from = join(root, path);
				const to = join(scratch, path);
				mkdirSync(dirname(to), { recursive: true });
				if (before.kind === "symlink") symlinkSync(readlinkSync(from), to);
				else {
					copyFileSync(from, to);
					chmodSync(to, before.mode);
				}
			}
			entries.push({ path, before, after: null });
		}
		const failure = await gitApply(scratch, patchFile, strip, false);
		if (failure !== undefined) throw failedPrecondition(`the patch no longer applies: ${failure}`);
		await pausePoint("in_scratch");
		crashPoint("in_scratch");
		for (const e of entries) e.after = capture(root, scratch, e.path);
		return entries;
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

function writeAfter(root: string, entries: JournalEntry[]): void {
	entries.forEach((e, k) => {
		restore(root, e.path, e.after);
		crashPoint(`after_file:${k + 1}`);
	});
}

function undoWrites(root: string, entries: JournalEntry[]): void {
	for (const e of [...entries].reverse()) restore(root, e.path, e.before);
}

/**
 * Journal, files, then the database. If the database commit fails (something changed meanwhile),
 * the files are put back before the error goes out.
 */
async function transact<T>(
	rt: Runtime,
	tx: { id: string; kind: "apply" | "rollback"; proposal_id: string },
	entries: JournalEntry[],
	commit: () => Promise<T>,
): Promise<T> {
	crashPoint("before_journal");
	writeJournal(rt.root, {
		version: 1,
		transaction_id: tx.id,
		kind: tx.kind,
		proposal_id: tx.proposal_id,
		entries,
		created_at: new Date().toISOString(),
	});
	crashPoint("after_journal");
	let result: T;
	try {
		writeAfter(rt.root, entries);
		crashPoint("after_files");
		result = await commit();
	} catch (err) {
		undoWrites(rt.root, entries);
		settleJournal(rt.root, tx.id);
		throw err;
	}
	crashPoint("after_commit");
	settleJournal(rt.root, tx.id);
	return result;
}

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
					},
					now,
				);
				const proposal = await tx.proposals.setStatus(p.id, "accepted", `applied in ${id}`, now);
				const released = await releaseCovering(tx, env, e, id, now);
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

/** patch.recover: the owner's start-up settlement of applies a crash interrupted. */
export async function recover(_: Args<"patch.recover">, env: Env, key: Key<Result<"patch.recover">>) {
	const { rt } = env;
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	const settled = await recoverNow(rt);
	return rt.store.withTransaction("write", (tx) => key.remember(tx, claimed.ticket, { settled }));
}
