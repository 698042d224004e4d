// The repository lock and recovery. Readers of repository files share the lock; an apply, a
// rollback and recovery hold it alone. Before anyone reads, any journal a dead process left pending
// is settled: if the database recorded its transaction, the files were all written before that
// commit, so it is marked done; if not, every touched path is put back to its before-state. Either
// way the files and the database agree again.

import { join } from "node:path";
import { ToolError } from "../errors.ts";
import type { Env, Key } from "../handlers/env.ts";
import { LAYOUT } from "../layout.ts";
import { type HeldLock, type LockMode, waitForLock } from "../os/lock.ts";
import type { Args, Result } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Runtime } from "../runtime.ts";
import { nowIso } from "../vocabulary/ids.ts";
import { type Journal, journalState, pendingJournals, removeLeftovers, settleJournal } from "./journal.ts";
import { restore } from "./state.ts";

const LOCK_WAIT_MS = 60_000;

async function lock(rt: Runtime, mode: LockMode): Promise<HeldLock> {
	const held = await waitForLock(join(rt.root, LAYOUT.repoLock), mode, LOCK_WAIT_MS);
	if (!held) {
		throw new ToolError(
			"deadline_exceeded",
			`the repository stayed locked by an apply or rollback for ${LOCK_WAIT_MS / 1000} s`,
		);
	}
	return held;
}

/** Restores every path to its before-state; returns those it refused to touch (see RepoGuard.entry). */
function undo(root: string, j: Journal): string[] {
	const guard = new RepoGuard(root);
	const refused: string[] = [];
	for (const entry of [...j.entries].reverse()) {
		try {
			guard.entry(entry.path);
		} catch {
			refused.push(entry.path);
			continue;
		}
		restore(root, entry.path, entry.before);
	}
	return refused;
}

/**
 * Settles every pending journal and removes what dead applies left in the journal directory. The
 * caller holds the repository lock exclusively.
 */
export async function settleJournals(
	rt: Runtime,
): Promise<{ transaction_id: string; outcome: "done" | "undone" }[]> {
	const settled: { transaction_id: string; outcome: "done" | "undone" }[] = [];
	for (const j of pendingJournals(rt.root)) {
		const recorded = await rt.store.withTransaction("read", (tx) => tx.transactions.get(j.transaction_id));
		const outcome = recorded ? "done" : "undone";
		const refused = recorded ? [] : undo(rt.root, j);
		await rt.store.withTransaction("write", async (tx) => {
			await tx.events.append(
				{
					type: "patch.recovered",
					actor_id: "system",
					payload: {
						transaction_id: j.transaction_id,
						kind: j.kind,
						proposal_id: j.proposal_id,
						outcome,
						paths: j.entries.map((e) => e.path),
						refused,
					},
				},
				nowIso(),
			);
		});
		settleJournal(rt.root, j.transaction_id);
		settled.push({ transaction_id: j.transaction_id, outcome });
	}
	// A process killed while it worked out an apply in a scratch copy (before any journal) or while
	// it wrote a journal or blob left those behind. Holding the lock alone, nothing of ours is live.
	removeLeftovers(rt.root);
	return settled;
}

/** Takes the repository lock alone and settles every pending journal (the owner does so at start). */
export async function recoverNow(rt: Runtime) {
	const held = await lock(rt, "exclusive");
	try {
		return await settleJournals(rt);
	} finally {
		held.release();
	}
}

/** patch.recover: the owner's start-up settlement of applies a crash interrupted. */
export async function recover(_: Args<"patch.recover">, env: Env, key: Key<Result<"patch.recover">>) {
	const { rt } = env;
	const claimed = await key.claim();
	if (claimed.earlier) return claimed.earlier;
	const settled = await recoverNow(rt);
	return rt.store.withTransaction("write", (tx) => key.remember(tx, claimed.ticket, { settled }));
}

/**
 * Runs `fn` holding the repository lock in `mode`, after settling any journal a dead process left.
 * Shared holders only read; an exclusive holder may write the repository.
 */
export async function withRepository<T>(rt: Runtime, mode: LockMode, fn: () => Promise<T>): Promise<T> {
	for (let recovered = false; ; recovered = true) {
		const held = await lock(rt, mode);
		try {
			if (mode === "exclusive") await settleJournals(rt);
			// A shared holder cannot recover; a journal still pending (or a scratch copy) under its lock
			// was left by an apply that died, so settle it alone and come back. A leftover recovery
			// could not remove is no reason to keep the reader waiting.
			const left = mode === "shared" ? journalState(rt.root) : undefined;
			if (!left?.pending && !(left?.leftovers && !recovered)) return await fn();
		} finally {
			held.release();
		}
		await recoverNow(rt);
	}
}
