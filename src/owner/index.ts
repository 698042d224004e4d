// The owner: the one process per project that holds the lock and serves the transports (`start`
// serves HTTP and the socket; `mcp serve` the socket alone). It publishes where it listens, and on
// SIGINT/SIGTERM stops accepting, drains calls in flight (bounded), and cleans up after itself.

import { realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Coordinator } from "../chair/coordinator.ts";
import type { TickReport } from "../chair/tick.ts";
import { ensureOperatorToken, operatorTokens } from "../config/operator-token.ts";
import { endpointsOf } from "../config/peek.ts";
import { systemContext } from "../context.ts";
import { call, callerOf } from "../dispatch.ts";
import { writeMcpAssets } from "../init/index.ts";
import { DOT } from "../layout.ts";
import { tryLock } from "../os/lock.ts";
import { listenForWakes, type WakeListener } from "../os/wake.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import { resolveCapability } from "../sessions/capability.ts";
import { Hub } from "../subscriptions/hub.ts";
import { describeSandbox } from "../test-runs/sandboxed.ts";
import type { McpExtension } from "../transports/extension.ts";
import { type HttpServer, startHttp } from "../transports/http.ts";
import { InFlight } from "../transports/inflight.ts";
import { type SocketServer, startSocket } from "../transports/socket.ts";
import { VERSION } from "../version.ts";
import { type Endpoints, serveSessionEndpoints } from "./endpoints.ts";
import { collectWhenIdle } from "./idle-gc.ts";
import { findOwner, OWNER_LOCK_PATH, publishOwner, withdrawOwner } from "./presence.ts";
import { type Reloader, startReloader } from "./reload.ts";
import { headlessSessions } from "./supervisor.ts";

export interface OwnerOptions {
	/** false for `mcp serve`: the legacy socket only. */
	http: boolean;
	/** false for `mcp serve`: no Chair ticks the runs. */
	chair: boolean;
	/** How often the Chair ticks every active run. */
	intervalMs: number;
	/** Where HTTP listens for this run, instead of mcp.http_address (`start --address/--port`). */
	httpAddress?: string;
	/** More MCP surface on HTTP beside the registry: only the tests' conformance entry gives one. */
	mcpExtension?: McpExtension;
	/** Sees every tick report (`run --headless` counts its run's ticks) and every failed tick. */
	onTick?: (report: TickReport) => void;
	onTickError?: (runId: string, failed: boolean) => void;
	/** Resolves when the owner should stop; by default on SIGINT or SIGTERM. */
	until?: Promise<unknown>;
	/** The ready line goes here (stdout); logs go to `log` (stderr). */
	ready: (line: string) => void;
	log: (line: string) => void;
}

const DRAIN_MS = 5000;

export function stopSignal(): Promise<string> {
	return new Promise((resolve) => {
		const on = (signal: string) => {
			process.off("SIGINT", on);
			process.off("SIGTERM", on);
			resolve(signal);
		};
		process.on("SIGINT", on);
		process.on("SIGTERM", on);
	});
}

const formatInterval = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/** Bun.serve's "Is port N in use?" says neither which setting chose the port nor what to do. */
function listenOrExplain<T>(address: string, listen: () => T): T {
	try {
		return listen();
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
		throw new Error(
			`mcp.http_address ${address} is in use (another program, or another project's owner, listens there); start with --port N (0 lets the system choose) or set mcp.http_address in .roundtable/config.yaml to a free port, or to 127.0.0.1:0 (clients find the port in .roundtable/owner.json)`,
		);
	}
}

export async function runOwner(rootDir: string, options: OwnerOptions): Promise<number> {
	const root = realpathSync(rootDir);
	const lock = tryLock(join(root, OWNER_LOCK_PATH));
	if (!lock) {
		const owner = findOwner(root);
		const where = owner ? ` (pid ${owner.pid}${owner.http_url ? `, ${owner.http_url}` : ""})` : "";
		throw new Error(`the project at ${root} is already owned by another process${where}`);
	}
	const until = options.until ?? stopSignal();
	let rt: Runtime | undefined;
	let socket: SocketServer | undefined;
	let http: HttpServer | undefined;
	const inflight = new InFlight();
	const collector = collectWhenIdle(inflight);
	let coordinator: Coordinator | undefined;
	let reloader: Reloader | undefined;
	let endpoints: Endpoints | undefined;
	let headless: ReturnType<typeof headlessSessions> | undefined;
	let wakes: WakeListener | undefined;
	let subscriptions: Hub | undefined;
	try {
		rt = openRuntime(root);
		// Other processes' commits (a --direct CLI call, a second tool) wake this one's waiters at once.
		const store = rt.store;
		wakes = await listenForWakes(() => store.othersMayHaveCommitted());
		store.othersMayHaveCommitted();
		// One hub of subscriptions for every MCP door: one loop follows the table however many listen.
		subscriptions = new Hub(callerOf(rt));
		// Headless sessions (session.start) run in this process, and only here.
		headless = headlessSessions(rt, options.log, async () => {
			await endpoints?.now();
		});
		rt.sessions = headless;
		// Holds the policy from here on and reloads config and policy when their files change.
		reloader = startReloader(rt, { log: options.log });
		await reloader.ready;
		const { config } = rt;
		// The start-up upkeep, as the system: agents synced, then any apply and test run a crash
		// interrupted settled before anyone is served.
		const system = systemContext();
		await call(rt, "config.sync_agents", {}, system);
		const { settled } = await call(rt, "patch.recover", {}, system);
		for (const s of settled) options.log(`recovered ${s.transaction_id}: ${s.outcome}`);
		const { test_run_ids } = await call(rt, "test.sweep_interrupted", {}, system);
		for (const id of test_run_ids) options.log(`test run ${id} was interrupted by a crash`);
		// The sandbox probe, once: test runs use its answer from here on.
		options.log(describeSandbox(config.tests));
		const { socketPath } = endpointsOf(root, config.mcp);
		socket = await startSocket(callerOf(rt), {
			path: socketPath,
			privateDir: dirname(socketPath).startsWith(join(root, DOT)),
			maxFrameBytes: config.limits.max_frame_bytes,
			readDeadlineMs: config.limits.read_deadline_seconds * 1000,
			writeDeadlineMs: config.limits.write_deadline_seconds * 1000,
			maxConnections: config.limits.max_connections,
			inflight,
		});
		// Launched agents' private sockets, for as long as their sessions stand.
		endpoints = serveSessionEndpoints(rt, {
			inflight,
			subscriptions,
			maxFrameBytes: config.limits.max_frame_bytes,
			log: options.log,
		});
		// Headless sessions an earlier owner died under: each started once more, once its socket is served.
		const recovering = headless;
		void endpoints.ready
			.then(() => recovering.recover())
			.catch((err: unknown) =>
				options.log(`roundtable: could not resume headless sessions: ${(err as Error).message}`),
			);
		if (options.http) {
			const { tls_cert_file: cert, tls_key_file: key } = config.mcp;
			ensureOperatorToken(root);
			if (config.mcp.loopback_auth === "none")
				options.log(
					"roundtable: mcp.loopback_auth is none: any local process that reaches the HTTP port acts as the operator",
				);
			const live = rt;
			const address = options.httpAddress ?? config.mcp.http_address;
			http = listenOrExplain(address, () =>
				startHttp(callerOf(live), {
					address,
					subscriptions,
					...(options.mcpExtension && { extension: options.mcpExtension }),
					operatorTokens: operatorTokens(root),
					loopbackAuth: config.mcp.loopback_auth,
					identify: (capability) => resolveCapability(store, capability),
					tls: cert && key ? { cert: resolve(root, cert), key: resolve(root, key) } : undefined,
					maxBodyBytes: config.limits.max_frame_bytes,
					maxSessions: config.limits.max_connections,
					maxConnections: config.limits.max_http_connections,
					readDeadlineMs: config.limits.read_deadline_seconds * 1000,
					inflight,
					health: async () => {
						if (coordinator) return coordinator.health();
						try {
							const runs = await store.withTransaction("read", (tx) => tx.runs.active());
							return runs.length > 0 ? "ready" : "healthy-idle";
						} catch {
							return "degraded";
						}
					},
				}),
			);
		}
		publishOwner(root, {
			pid: process.pid,
			http_url: http?.url ?? null,
			socket_path: socket.path,
			chair_interval_ms: options.chair ? options.intervalMs : null,
			wake_port: wakes.port,
			started_at: new Date().toISOString(),
			version: VERSION,
		});
		// Now that owner.json names it, server.json and the manifest get the URL bound (never port 0).
		if (http) writeMcpAssets(root, config);
		if (options.chair) {
			coordinator = new Coordinator(rt, {
				intervalMs: options.intervalMs,
				log: options.log,
				onTick: options.onTick,
				onTickError: options.onTickError,
			});
			coordinator.start();
		}
		// Start-up's one-time work (migrations, recovery, config, schemas) leaves garbage and code behind.
		collector.soon();
		options.ready(
			`roundtable ready: project=${root} http=${http?.url ?? "-"} socket=${socket.path} interval=${formatInterval(options.intervalMs)}`,
		);
		// The dashboard's one-time login link (a new one each start); the operator's token logs in too.
		if (http) options.ready(`roundtable dashboard: ${http.dashboardUrl}`);
		const signal = await until;
		options.log(`roundtable: ${typeof signal === "string" ? signal : "stop"} received; draining`);
		return 0;
	} finally {
		await reloader?.stop();
		await coordinator?.stop();
		// Headless sessions end with their owner: each agent asked to stop, killed 10 s later at most.
		await headless?.stopAll();
		http?.stopAccepting();
		socket?.stopAccepting();
		// Waiting reads (a follower's table.watch, an agent's peer.wait) answer now, not at their timeout.
		rt?.store.endWaits();
		if (!(await inflight.drain(DRAIN_MS)))
			options.log("roundtable: calls still running after the drain timeout were cut off");
		collector.stop();
		await endpoints?.stop();
		await http?.close();
		socket?.close();
		withdrawOwner(root);
		subscriptions?.close();
		wakes?.close();
		rt?.close();
		lock.release();
	}
}
