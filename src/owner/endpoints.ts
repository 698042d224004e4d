// The owner serves each launched session its private MCP socket for as long as the session stands:
// a session minted with `endpoint` gets its socket (the path session.mint recorded in mcp_socket),
// and a session that ends, is revoked or expires loses it. It follows the database, not the
// launcher: whatever process mints or closes a session, the owner sees the commit and reconciles.
import { dirname } from "node:path";
import { systemContext } from "../context.ts";
import { call, callerOf } from "../dispatch.ts";
import { sleep } from "../os/sleep.ts";
import type { Runtime } from "../runtime.ts";
import { principalOf } from "../sessions/capability.ts";
import { privateDir } from "../sessions/paths.ts";
import type { Hub } from "../subscriptions/hub.ts";
import type { InFlight } from "../transports/inflight.ts";
import { type SessionSocket, startSessionSocket } from "../transports/session-socket.ts";
import { nowIso } from "../vocabulary/ids.ts";

export interface EndpointsOptions {
	inflight: InFlight;
	maxFrameBytes: number;
	log: (line: string) => void;
	/** The owner's one hub of subscriptions, shared by every session's socket and by HTTP. */
	subscriptions: Hub;
	/** How often to look again when no commit wakes it (expiry needs no commit). */
	intervalMs?: number;
}

export interface Endpoints {
	/** Settles once the sessions standing at start are served (or reported unservable). */
	ready: Promise<void>;
	/** Serves what stands now, without waiting for the loop (a session this owner just minted). */
	now(): Promise<void>;
	stop(): Promise<void>;
}

/**
 * After a commit wakes the loop it rests this long before reading the sessions, so a burst of
 * commits (every call writes events) costs one read of the sessions, not one per call.
 */
const RECONCILE_GAP_MS = 100;

export function serveSessionEndpoints(rt: Runtime, options: EndpointsOptions): Endpoints {
	const served = new Map<string, SessionSocket>();
	/** Sessions whose socket could not be made: reported once, not tried again. */
	const failed = new Set<string>();
	const stop = new AbortController();

	// One reconcile at a time: the loop's and one asked for now never both serve a session.
	let queue = Promise.resolve();
	const reconcileOnce = () => {
		queue = queue.then(reconcile, reconcile);
		return queue;
	};

	async function reconcile(): Promise<void> {
		const live = await rt.store.withTransaction("read", (tx) => tx.sessions.withEndpoints(nowIso()));
		const wanted = new Map(live.map((s) => [s.id, s]));
		for (const [id, socket] of served) {
			if (wanted.has(id)) continue;
			socket.close();
			served.delete(id);
			options.log(`roundtable: session ${id} ended: its socket is closed`);
		}
		for (const session of live) {
			if (served.has(session.id) || failed.has(session.id)) continue;
			const path = session.mcp_socket as string;
			try {
				privateDir(dirname(path));
				const principal = principalOf(session);
				served.set(
					session.id,
					await startSessionSocket(callerOf(rt), {
						path,
						principal,
						maxFrameBytes: options.maxFrameBytes,
						maxConnections: 8,
						inflight: options.inflight,
						subscriptions: options.subscriptions,
						onToolsList: (tools, client) => {
							void call(
								rt,
								"session.touch",
								{ session_id: session.id, tools, ...(client && { client }) },
								systemContext(),
							).catch(() => {});
						},
					}),
				);
				options.log(`roundtable: session ${session.id} (${session.agent_id}) is served at ${path}`);
			} catch (err) {
				failed.add(session.id);
				options.log(`roundtable: cannot serve session ${session.id} at ${path}: ${(err as Error).message}`);
			}
		}
	}

	let served1: () => void = () => {};
	const ready = new Promise<void>((resolve) => {
		served1 = resolve;
	});
	const loop = (async () => {
		while (!stop.signal.aborted) {
			try {
				await reconcileOnce();
			} catch (err) {
				options.log(`roundtable: session endpoints: ${(err as Error).message}`);
			}
			served1();
			await rt.store.eventsCommitted(options.intervalMs ?? 1000, stop.signal);
			await sleep(RECONCILE_GAP_MS, stop.signal);
		}
	})();

	return {
		ready,
		now: () => reconcileOnce(),
		async stop() {
			stop.abort();
			await loop;
			for (const socket of served.values()) socket.close();
			served.clear();
		},
	};
}
