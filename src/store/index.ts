// The store: the only door to the database. Tools get a Tx inside withTransaction and call its typed
// queries; every query is async so another backend (PostgreSQL) can implement the same interface.
import type { Database } from "bun:sqlite";
import { agentQueries } from "./agents.ts";
import { approvalQueries } from "./approvals.ts";
import { claimQueries } from "./claims.ts";
import { Conn, openDatabase } from "./db.ts";
import { decisionQueries } from "./decisions.ts";
import { eventQueries } from "./events.ts";
import { type CommitInfo, GroupCommit } from "./group-commit.ts";
import { idempotencyQueries } from "./idempotency.ts";
import { memoryQueries } from "./memory.ts";
import { messageQueries } from "./messages.ts";
import { peerQueries } from "./peers.ts";
import { proposalQueries } from "./proposals.ts";
import { resourceQueries } from "./resources.ts";
import { reviewQueries } from "./reviews.ts";
import { chairStateQueries, runQueries } from "./runs.ts";
import { savepointQueries } from "./savepoints.ts";
import { sessionQueries } from "./sessions.ts";
import { taskQueries } from "./tasks.ts";
import { testEvidenceQueries, testRunQueries } from "./test-runs.ts";
import { transactionQueries } from "./transactions.ts";
import { turnQueries } from "./turns.ts";
import { voteQueries } from "./votes.ts";

const makeTx = (c: Conn) => ({
	runs: runQueries(c),
	agents: agentQueries(c),
	tasks: taskQueries(c),
	events: eventQueries(c),
	memory: memoryQueries(c),
	decisions: decisionQueries(c),
	resources: resourceQueries(c),
	claims: claimQueries(c),
	proposals: proposalQueries(c),
	votes: voteQueries(c),
	approvals: approvalQueries(c),
	reviews: reviewQueries(c),
	testRuns: testRunQueries(c),
	testEvidence: testEvidenceQueries(c),
	transactions: transactionQueries(c),
	turns: turnQueries(c),
	chairState: chairStateQueries(c),
	sessions: sessionQueries(c),
	idempotency: idempotencyQueries(c),
	peers: peerQueries(c),
	messages: messageQueries(c),
	savepoints: savepointQueries(c),
});

export type Tx = ReturnType<typeof makeTx>;

/** `write` takes the write lock up front (BEGIN IMMEDIATE); `read` sees one consistent snapshot. */
export type { CommitInfo };

export type TxMode = "read" | "write";

export interface Store {
	/**
	 * Runs `fn` in one transaction: its work is kept when `fn` resolves and undone when it throws.
	 * One `fn` at a time per process. Writes waiting their turn share one commit (group commit, see
	 * group-commit.ts), each in its own savepoint; a write resolves only once its commit is durable.
	 * `fn` does database work only: no file, network or process I/O, and no waiting.
	 */
	withTransaction<T>(mode: TxMode, fn: (tx: Tx) => Promise<T>): Promise<T>;
	/** Observes each durable commit of writes (how many calls it held); returns the way to stop. */
	onCommit(observer: (c: CommitInfo) => void): () => void;
	/**
	 * Resolves when new events may be there to read: at once when this process commits events, as
	 * soon as another process's commit is seen (othersMayHaveCommitted, or the data_version poll);
	 * else after `ms`, or on abort, whichever is first.
	 */
	eventsCommitted(ms: number, signal?: AbortSignal): Promise<void>;
	/**
	 * Another process says it committed (the owner's wake listener, src/os/wake.ts): look now, and
	 * wake the waiters if it did. From the first call on, the poll only backs it up, slowly.
	 */
	othersMayHaveCommitted(): void;
	/**
	 * The owner stops: every wait ends now and none begins (a waiting read returns what it sees), so
	 * a client's long wait never holds the drain.
	 */
	endWaits(): void;
	readonly waitsEnded: boolean;
	close(): void;
}

/** How often waiters check whether another connection committed (PRAGMA data_version). */
const DATA_VERSION_POLL_MS = 20;
/** The same, once other processes say when they commit: only a net for a wake that never came. */
const SAFETY_POLL_MS = 1000;

type Family = keyof Tx;

/**
 * What one transaction gets: while it is open, each family is the connection's own (built once);
 * after it ended, the same family over a connection that is never active, so every query throws
 * ("store query after its transaction ended"), even while a later transaction is open.
 */
interface TxView {
	open: boolean;
}

function txViewClass(live: Tx, ended: Tx): new () => TxView & Tx {
	class View {
		open = true;
	}
	for (const family of Object.keys(live) as Family[]) {
		Object.defineProperty(View.prototype, family, {
			get(this: View) {
				return (this.open ? live : ended)[family];
			},
		});
	}
	return View as unknown as new () => TxView & Tx;
}

class SqliteStore implements Store {
	private readonly waiters = new Set<() => void>();
	private poller: Timer | undefined;
	private dataVersion = 0;
	/** Other processes say when they commit (a wake listener runs): the poll is only a net. */
	private told = false;
	waitsEnded = false;
	/** The one Conn of this database; active only while a call's transaction work runs. */
	private readonly conn: Conn;
	private readonly View: new () => TxView & Tx;
	private readonly commits: GroupCommit;

	constructor(private readonly db: Database) {
		this.conn = new Conn(db);
		this.conn.active = false;
		const ended = new Conn(db);
		ended.active = false;
		this.View = txViewClass(makeTx(this.conn), makeTx(ended));
		this.commits = new GroupCommit(db, () => {
			for (const wake of [...this.waiters]) wake();
		});
	}

	withTransaction<T>(mode: TxMode, fn: (tx: Tx) => Promise<T>): Promise<T> {
		if (mode === "read") {
			// The view closes when the read settles, in the read's own callbacks: no promise of its own.
			let view: (TxView & Tx) | undefined;
			return this.commits.read(
				() => {
					view = this.openView();
					return fn(view);
				},
				() => this.closeView(view),
			);
		}
		return this.commits.write(async () => {
			this.conn.wroteEvents = false;
			const result = await this.inView(fn);
			return { result, wroteEvents: this.conn.wroteEvents };
		});
	}

	onCommit(observer: (c: CommitInfo) => void): () => void {
		return this.commits.onCommit(observer);
	}

	private openView(): TxView & Tx {
		const tx = new this.View();
		this.conn.active = true;
		return tx;
	}

	private closeView(tx: TxView | undefined): void {
		if (tx) tx.open = false;
		this.conn.active = false;
	}

	/** Runs `fn` over a fresh view of the families, live only until `fn` settles. */
	private async inView<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
		const tx = this.openView();
		try {
			return await fn(tx);
		} finally {
			this.closeView(tx);
		}
	}

	endWaits(): void {
		this.waitsEnded = true;
		for (const wake of [...this.waiters]) wake();
	}

	eventsCommitted(ms: number, signal?: AbortSignal): Promise<void> {
		if (this.waitsEnded) return Promise.resolve();
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				this.waiters.delete(done);
				signal?.removeEventListener("abort", done);
				resolve();
			};
			const timer = setTimeout(done, ms);
			this.waiters.add(done);
			signal?.addEventListener("abort", done, { once: true });
			this.watchOtherConnections();
		});
	}

	private readDataVersion(): number {
		return this.db.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version ?? 0;
	}

	othersMayHaveCommitted(): void {
		if (!this.told) {
			this.told = true;
			// A poller started at the fast pace goes on at the slow one.
			if (this.poller) {
				clearInterval(this.poller);
				this.poller = undefined;
				this.watchOtherConnections(false);
			}
		}
		if (this.waiters.size > 0) this.lookAtOthers();
	}

	/** Wakes the waiters if another connection committed since the last look. */
	private lookAtOthers(): void {
		const version = this.readDataVersion();
		if (version !== this.dataVersion) {
			this.dataVersion = version;
			for (const wake of [...this.waiters]) wake();
		}
	}

	// One poller for all waiters, running only while someone waits. data_version changes when
	// another connection commits; this process's own commits wake waiters directly.
	private watchOtherConnections(baseline = true): void {
		if (this.poller) return;
		if (baseline) this.dataVersion = this.readDataVersion();
		this.poller = setInterval(
			() => {
				if (this.waiters.size === 0) {
					clearInterval(this.poller);
					this.poller = undefined;
					return;
				}
				this.lookAtOthers();
			},
			this.told ? SAFETY_POLL_MS : DATA_VERSION_POLL_MS,
		);
	}

	close(): void {
		clearInterval(this.poller);
		this.poller = undefined;
		this.commits.flush();
		this.commits.finalize();
		this.db.close();
	}
}

export function openStore(path: string): Store {
	return new SqliteStore(openDatabase(path));
}
