// One transaction at a time per process, with group commit: writers waiting their turn share one
// durable commit. Each write call still runs alone, in its own savepoint inside the group's
// transaction, so a call's error undoes only that call. A call's result is handed back only after
// the commit that holds it returned (synchronous=FULL: it is on disk), so no reply ever speaks of
// work that could still be lost.
import type { Database, Statement } from "bun:sqlite";

/** Calls one commit may hold; with the time bound, how long other processes wait for the lock. */
export const GROUP_MAX_CALLS = 64;
export const GROUP_MAX_MS = 20;

/** What a commit looked like, for whoever observes them (tests, benches). */
export interface CommitInfo {
	/** Write calls whose work this commit made durable. */
	calls: number;
}

interface Member {
	deliver(): void;
	fail(err: unknown): void;
}

interface Group {
	members: Member[];
	startedAt: number;
	wroteEvents: boolean;
}

/**
 * SQLite errors after which the transaction itself cannot be trusted (SQLite may already have rolled
 * it back): every call of the group fails, not just the one that met it.
 */
const ABORTS = [
	"SQLITE_FULL",
	"SQLITE_IOERR",
	"SQLITE_NOMEM",
	"SQLITE_CORRUPT",
	"SQLITE_NOTADB",
	"SQLITE_CANTOPEN",
];

const abortsTransaction = (err: unknown): boolean => {
	const code = String((err as { code?: unknown } | null)?.code ?? "");
	if (ABORTS.some((c) => code.startsWith(c))) return true;
	// A batch wraps what ended the transaction under one of its records (store/savepoints.ts).
	const cause = (err as { cause?: unknown } | null)?.cause;
	return cause !== undefined && cause !== err && abortsTransaction(cause);
};

/** Why a call whose own work succeeded still failed: the commit it shared did not happen. */
function sharedFailure(cause: unknown): Error {
	const code = (cause as { code?: unknown } | null)?.code;
	const why = cause instanceof Error ? cause.message : String(cause);
	return Object.assign(
		new Error(`the commit this call shared with others failed (${why}); nothing of it was kept`),
		{
			code,
			cause,
		},
	);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class GroupCommit {
	private tail: Promise<unknown> = Promise.resolve();
	/** Reads and writes scheduled on `tail` and not yet settled. */
	private queued = 0;
	private readonly dequeue = (): void => {
		this.queued--;
	};
	private group: Group | undefined;
	/** Write calls queued behind the one running: while there are any, the group stays open. */
	private waitingWrites = 0;
	private readonly observers = new Set<(c: CommitInfo) => void>();
	private readonly s: Record<
		"beginWrite" | "beginRead" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo",
		Statement
	>;

	constructor(
		private readonly db: Database,
		/** Called after a commit that held writes of events, to wake those who wait for them. */
		private readonly eventsCommitted: () => void,
	) {
		this.s = {
			beginWrite: db.prepare("BEGIN IMMEDIATE"),
			beginRead: db.prepare("BEGIN"),
			commit: db.prepare("COMMIT"),
			rollback: db.prepare("ROLLBACK"),
			savepoint: db.prepare("SAVEPOINT call"),
			release: db.prepare("RELEASE call"),
			rollbackTo: db.prepare("ROLLBACK TO call"),
		};
	}

	/**
	 * Runs `work` in a read transaction of its own, after any open group committed; `ended` hears
	 * that `work` settled, before the transaction ends.
	 */
	read<T>(work: () => Promise<T>, ended: () => void = () => {}): Promise<T> {
		// Plain callbacks, not async functions, and no promise of the queue's own: a read is one
		// SELECT or a few, and each promise layer around it cost more than its SQLite work.
		const finish = () => {
			ended();
			this.queued--;
		};
		const rollback = (err: unknown): never => {
			finish();
			if (this.db.inTransaction) this.s.rollback.run();
			throw err;
		};
		const commit = (result: T) => {
			finish();
			try {
				this.s.commit.run();
			} catch (err) {
				if (this.db.inTransaction) this.s.rollback.run();
				throw err;
			}
			return result;
		};
		const run = (): Promise<T> => {
			try {
				this.commitGroup();
				this.s.beginRead.run();
			} catch (err) {
				this.queued--; // never began: nothing to end
				return Promise.reject(err);
			}
			let done: Promise<T>;
			try {
				done = work();
			} catch (err) {
				return Promise.reject(err).catch(rollback);
			}
			return done.then(commit, rollback);
		};
		// With nothing queued, no turn to wait for: the read starts now.
		const result = this.queued++ > 0 ? this.tail.then(run, run) : run();
		// Whoever comes next waits for this read to settle, however it settles.
		this.tail = result;
		return result;
	}

	/**
	 * Runs `work` in its own savepoint of the group's write transaction. Resolves with its result once
	 * the group's commit returned; rejects with its error at once (its savepoint is undone), or with
	 * the shared failure when the group's transaction fails.
	 */
	write<T>(work: () => Promise<{ result: T; wroteEvents: boolean }>): Promise<T> {
		this.waitingWrites++;
		return new Promise<T>((resolve, reject) => {
			const run = async () => {
				this.waitingWrites--;
				await this.member(work, resolve, reject);
			};
			this.queued++;
			this.tail = this.tail.then(run, run).then(this.dequeue, this.dequeue);
		});
	}

	/** Observes every commit of a write group; returns the way to stop. */
	onCommit(observer: (c: CommitInfo) => void): () => void {
		this.observers.add(observer);
		return () => this.observers.delete(observer);
	}

	/** Commits an open group now (before closing the database). */
	flush(): void {
		this.commitGroup();
	}

	finalize(): void {
		for (const s of Object.values(this.s)) s.finalize();
	}

	private async member<T>(
		work: () => Promise<{ result: T; wroteEvents: boolean }>,
		resolve: (v: T) => void,
		reject: (e: unknown) => void,
	): Promise<void> {
		let group = this.group;
		if (!group) {
			try {
				this.s.beginWrite.run();
			} catch (err) {
				reject(err);
				return;
			}
			group = { members: [], startedAt: performance.now(), wroteEvents: false };
			this.group = group;
		}
		this.s.savepoint.run();
		try {
			const { result, wroteEvents } = await work();
			this.s.release.run();
			group.wroteEvents ||= wroteEvents;
			group.members.push({ deliver: () => resolve(result), fail: reject });
		} catch (err) {
			if (abortsTransaction(err) || !this.db.inTransaction) {
				reject(err);
				this.abortGroup(err);
				return;
			}
			this.s.rollbackTo.run();
			this.s.release.run();
			reject(err);
		}
		await this.closeOrKeepOpen(group);
	}

	/**
	 * A group closes when no write is waiting (one event-loop turn lets writers whose requests have
	 * already arrived join; a lone call waits for nothing else) or when it reached its bounds.
	 */
	private async closeOrKeepOpen(group: Group): Promise<void> {
		const full = () =>
			group.members.length >= GROUP_MAX_CALLS || performance.now() - group.startedAt >= GROUP_MAX_MS;
		if (this.waitingWrites > 0 && !full()) return;
		if (!full()) await nextTurn();
		if (this.waitingWrites > 0 && !full()) return;
		this.commitGroup();
	}

	private commitGroup(): void {
		const group = this.group;
		if (!group) return;
		this.group = undefined;
		try {
			this.s.commit.run();
		} catch (err) {
			if (this.db.inTransaction) this.s.rollback.run();
			for (const m of group.members) m.fail(sharedFailure(err));
			return;
		}
		for (const observe of this.observers) observe({ calls: group.members.length });
		for (const m of group.members) m.deliver();
		if (group.wroteEvents) this.eventsCommitted();
	}

	private abortGroup(cause: unknown): void {
		const group = this.group;
		this.group = undefined;
		if (this.db.inTransaction) this.s.rollback.run();
		for (const m of group?.members ?? []) m.fail(sharedFailure(cause));
	}
}
