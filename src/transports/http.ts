// Streamable HTTP MCP (2025-11-25) at /mcp, and /healthz, in Bun.serve. Each MCP session gets its
// own SDK transport and Server; every request passes the Host/Origin/bearer guard first. The
// operator's dashboard (`/`, `/login`, `/assets/*`, `/api/*`: ./dashboard/) shares the listener and
// the Host/Origin guard, and takes its own session cookie instead of a bearer. Streams
// are resumable (SEP-1699): each opens with a priming event (an id and `retry`), and a client that
// lost one reconnects with Last-Event-ID to get what it missed.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
	isInitializeRequest,
	LATEST_PROTOCOL_VERSION,
	SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { AgentPrincipal, Caller, Principal } from "../context.ts";
import { createDashboard } from "../dashboard/server/index.ts";
import { establishedPeers } from "../os/tcp-table.ts";
import { Hub } from "../subscriptions/hub.ts";
import { readBounded } from "./body.ts";
import { answerDirectly, directCall } from "./direct-call.ts";
import { EventBuffer } from "./event-store.ts";
import type { McpExtension } from "./extension.ts";
import { Connections } from "./http-connections.ts";
import { checkRequest, credentialOf, isLoopbackHostname } from "./http-guard.ts";
import type { InFlight } from "./inflight.ts";
import { modernEndpoint } from "./mcp-modern.ts";
import { createMcpServer } from "./mcp-server.ts";

export interface HttpOptions {
	/** The owner's one hub of subscriptions (shared with the session sockets); without one, its own. */
	subscriptions?: Hub;
	/** host:port; port 0 lets the OS choose. */
	address: string;
	/** Bearer tokens that make a caller the operator (ROUNDTABLE_MCP_TOKEN, .roundtable/operator.token). */
	operatorTokens: readonly string[];
	/** A loopback request without a credential: refused (`token`) or the operator (`none`). */
	loopbackAuth: "token" | "none";
	/** The agent a capability makes the caller; undefined when it is unknown, expired or revoked. */
	identify: (capability: string) => Promise<AgentPrincipal | undefined>;
	tls: { cert: string; key: string } | undefined;
	maxBodyBytes: number;
	/** Open MCP sessions at most; an initialize beyond it gets 503. */
	maxSessions: number;
	/** Open HTTP connections at most (in flight or idle); a request on one more gets 503. Default 512. */
	maxConnections?: number;
	/** A request body must have arrived this long after its headers, else 408. Default 30 s. */
	readDeadlineMs?: number;
	inflight: InFlight;
	/** Health as the owner sees it; /healthz reports it. */
	health: () => Promise<"ready" | "healthy-idle" | "degraded">;
	/** More MCP surface beside the registry (the tests' conformance fixtures); none in the product. */
	extension?: McpExtension;
}

export interface HttpServer {
	/** The real URL of the MCP endpoint (with the port the OS chose). */
	url: string;
	/** The dashboard's one-time login URL (`/?token=…`), for the owner to print. */
	dashboardUrl: string;
	/** Refuses new connections and requests (503) while calls in flight finish. */
	stopAccepting(): void;
	/** Closes every session and connection. */
	close(): Promise<void>;
}

// An idle keep-alive connection is closed after this long (Bun's idleTimeout). Bun checks its
// timers every 4 s, so one may stay up to IDLE_CHECK_S longer; the connection count allows for that.
// Requests in flight and event streams are exempt (server.timeout(req, 0)): a long call or a quiet
// stream is not idle.
const KEEPALIVE_IDLE_S = 5;
const IDLE_CHECK_S = 4;

// Sessions nobody has used for this long are closed (a client that vanished without DELETE).
const SESSION_IDLE_MS = 60 * 60 * 1000;

// What a client that lost a stream can get back, bounded for the whole server however many
// sessions are open (2 Mi characters is 2–4 MB, held for as long as the owner runs). A client that
// was cut off comes back within a second or two (RETRY_MS), and this holds a minute or more of a
// busy table (each call is two events, its priming and its result; 8 agents calling once a second
// with results of a few KB). A larger event (a big tool result) is not kept: resuming across it is
// refused, and the client must send its request again, as it must for an event already dropped.
const EVENT_LIMITS = { maxEvents: 1024, maxChars: 2 * 1024 * 1024, maxEventChars: 1024 * 1024 };
/** The `retry` (ms) each stream's priming event carries: how soon a cut-off client reconnects. */
const RETRY_MS = 1000;

interface Session {
	transport: WebStandardStreamableHTTPServerTransport;
	lastSeen: number;
	/** The protocol version initialize negotiated. */
	protocolVersion: string;
	/** Who opened it ("operator", or an agent's session id): every later request must be the same caller. */
	caller: string;
}

const callerKey = (p: Principal) => (p.kind === "agent" ? p.session_id : p.kind);

function rpcError(status: number, code: number, message: string): Response {
	return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/** An error after which the connection is closed (the rest of its body is never read). */
function closingError(status: number, code: number, message: string): Response {
	const res = rpcError(status, code, message);
	res.headers.set("connection", "close");
	return res;
}

const isStream = (res: Response) =>
	res.body !== null && (res.headers.get("content-type")?.includes("text/event-stream") ?? false);

/**
 * An event stream passed through, calling `ended` once when it ends, however it ends (`cut` when
 * the client went away). The SDK's GET stream sends nothing until its first keep-alive (15 s), and
 * the response headers wait for that first byte, so a client would wait 15 s to learn its stream
 * is open: `prefix` (an SSE comment) sends the headers at once.
 */
function watched(res: Response, ended: (cut: boolean) => void, prefix?: string): Response {
	const source = res.body as ReadableStream<Uint8Array>;
	let once = false;
	const end = (cut: boolean) => {
		if (!once) ended(cut);
		once = true;
	};
	// The source is locked to this reader, so a cancel must go through it (source.cancel would throw).
	const reader = source.getReader();
	const body = new ReadableStream<Uint8Array>({
		async start(controller) {
			if (prefix) controller.enqueue(new TextEncoder().encode(prefix));
			try {
				for (;;) {
					const { value, done } = await reader.read();
					if (done) break;
					controller.enqueue(value);
				}
				end(false);
				controller.close();
			} catch (err) {
				end(true);
				controller.error(err);
			}
		},
		cancel(reason) {
			end(true);
			return reader.cancel(reason);
		},
	});
	return new Response(body, { status: res.status, headers: res.headers });
}

/**
 * The SDK decides per request, from its MCP-Protocol-Version header, whether a stream gets a
 * priming event and may be closed for polling (2025-11-25 and later). A client that negotiated
 * 2025-11-25 but labels a request with an older version it also speaks (the conformance suite's
 * raw requests do) would lose resumability, so within a session the negotiated version decides.
 * An unsupported version stays as sent, for the SDK to refuse with 400.
 */
function withSessionVersion(req: Request, negotiated: string): Request {
	const sent = req.headers.get("mcp-protocol-version");
	if (sent === negotiated || (sent !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(sent))) return req;
	const headers = new Headers(req.headers);
	headers.set("mcp-protocol-version", negotiated);
	// The body was read already (readJson) and goes to the SDK parsed.
	return new Request(req.url, { method: req.method, headers, signal: req.signal });
}

/** The version the SDK's initialize answers with: the client's, if supported, else the latest. */
function negotiatedVersion(initialize: unknown): string {
	const asked = (initialize as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
	return typeof asked === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
		? asked
		: LATEST_PROTOCOL_VERSION;
}

/** Splits `host:port` (IPv6 in brackets) into its parts. */
function parseAddress(address: string): { hostname: string; port: number } {
	const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address);
	if (!m) throw new Error(`invalid MCP HTTP address '${address}': expected host:port`);
	return { hostname: (m[1] ?? m[2]) as string, port: Number(m[3]) };
}

export function startHttp(call: Caller, options: HttpOptions): HttpServer {
	const { hostname, port } = parseAddress(options.address);
	const loopback = isLoopbackHostname(hostname);
	if (!loopback && (!options.tls || options.operatorTokens.length === 0)) {
		throw new Error(
			`refusing to serve MCP on non-loopback address ${options.address} without TLS (mcp.tls_cert_file, mcp.tls_key_file) and an operator token (.roundtable/operator.token or ROUNDTABLE_MCP_TOKEN)`,
		);
	}
	const sessions = new Map<string, Session>();
	const guard = { loopback };
	/** The extension's tools (the conformance fixtures) are always the SDK's to answer. */
	const extensionTools = new Set(options.extension?.legacy.tools.map((t) => t.name) ?? []);

	/** Who the request is from, or the 401 that says why nobody. */
	async function caller(req: Request): Promise<Principal | Response> {
		const unauthorized = (message: string) => {
			const res = rpcError(401, -32001, message);
			res.headers.set("www-authenticate", 'Bearer realm="roundtable"');
			return res;
		};
		const credential = credentialOf(req.headers.get("authorization"), options.operatorTokens);
		switch (credential.kind) {
			case "operator":
				return { kind: "operator" };
			case "none":
				if (loopback && options.loopbackAuth === "none") return { kind: "operator" };
				return unauthorized(
					"unauthenticated: send Authorization: Bearer <token>, the operator's (.roundtable/operator.token) or an agent's capability",
				);
			case "malformed":
				return unauthorized("unauthenticated: the Authorization header is not 'Bearer <token>'");
			case "bearer":
				return (
					(await options.identify(credential.token)) ??
					unauthorized("unauthenticated: the bearer token is neither the operator's nor a live capability")
				);
		}
	}
	const events = new EventBuffer(EVENT_LIMITS);
	// The operator's dashboard: its paths are answered before the bearer check, with its own login.
	const dashboard = createDashboard(call, {
		operatorTokens: options.operatorTokens,
		tls: options.tls !== undefined,
		inflight: options.inflight,
		readDeadlineMs: options.readDeadlineMs ?? 30_000,
	});
	let stopping = false;
	// Subscriptions to Roundtable's resources: the owner's hub, or (an endpoint alone) one of its own.
	const own = options.subscriptions ? undefined : new Hub(call);
	const subscriptions = options.subscriptions ?? (own as Hub);
	const modern = modernEndpoint(call, {
		inflight: options.inflight,
		maxBodyBytes: options.maxBodyBytes,
		subscriptions,
		transport: "http",
		...(options.extension && { extension: options.extension.modern }),
	});

	const readDeadlineMs = options.readDeadlineMs ?? 30_000;
	const connections = new Connections(
		options.maxConnections ?? 512,
		(KEEPALIVE_IDLE_S + IDLE_CHECK_S) * 1000,
		() => establishedPeers(server.port as number),
	);

	/** The body within the read deadline (counted from the headers) and the size cap (./body.ts). */
	async function readText(req: Request, started: number): Promise<string | Response> {
		const read = await readBounded(req, options.maxBodyBytes, started + readDeadlineMs);
		if ("text" in read) return read.text;
		if (read.failure === "too_big")
			return closingError(413, -32600, `request body exceeds ${options.maxBodyBytes} bytes`);
		if (read.failure === "late")
			return closingError(
				408,
				-32000,
				`the request body did not arrive within ${readDeadlineMs / 1000} s (limits.read_deadline_seconds)`,
			);
		return closingError(400, -32700, "Parse error: the request body could not be read");
	}

	async function readJson(req: Request, started: number): Promise<{ body: unknown } | Response> {
		const text = await readText(req, started);
		if (text instanceof Response) return text;
		try {
			const body = JSON.parse(text) as unknown;
			// Batching left the protocol in 2025-06-18.
			if (Array.isArray(body)) return rpcError(400, -32600, "JSON-RPC batches are not supported");
			return { body };
		} catch {
			return rpcError(400, -32700, "Parse error: the body is not valid JSON");
		}
	}

	async function handleMcp(req: Request, started: number, principal: Principal): Promise<Response> {
		const sid = req.headers.get("mcp-session-id");
		const parsed = req.method === "POST" ? await readJson(req, started) : undefined;
		if (parsed instanceof Response) return parsed;
		// The body is in: what follows (a long call, an event stream) is not bounded by Bun's timers.
		server.timeout(req, 0);
		// A request carrying the 2026-07-28 envelope is served on its own, whatever session id it names.
		if (parsed && !(await modern.isLegacy(req, parsed.body)))
			return modern.serve(req, parsed.body, principal);
		if (sid) {
			const session = sessions.get(sid);
			if (!session) return rpcError(404, -32001, "session not found; initialize a new one");
			// A session id is no credential: its requests come from whoever opened it, or nobody.
			if (session.caller !== callerKey(principal))
				return rpcError(403, -32000, "this MCP session was opened by another caller");
			session.lastSeen = Date.now();
			const direct = parsed && directCall(req.headers, parsed.body, extensionTools);
			if (direct)
				return answerDirectly(call, direct, {
					principal,
					inflight: options.inflight,
					signal: req.signal,
					sessionId: sid,
				});
			const res = await session.transport.handleRequest(
				withSessionVersion(req, session.protocolVersion),
				parsed && { parsedBody: parsed.body },
			);
			return res;
		}
		if (!parsed || !isInitializeRequest(parsed.body)) {
			return rpcError(400, -32000, "Bad Request: no valid session id; send initialize first");
		}
		if (sessions.size >= options.maxSessions) {
			return rpcError(
				503,
				-32000,
				`too many open sessions (limit ${options.maxSessions}); end one with DELETE`,
			);
		}
		const { extension } = options;
		const protocolVersion = negotiatedVersion(parsed.body);
		const replay = events.forSession();
		const transport = new WebStandardStreamableHTTPServerTransport({
			sessionIdGenerator: () => crypto.randomUUID(),
			maxRequestBodySize: options.maxBodyBytes,
			eventStore: replay.store,
			retryInterval: RETRY_MS,
			onsessioninitialized: (id) => {
				sessions.set(id, { transport, lastSeen: Date.now(), protocolVersion, caller: callerKey(principal) });
			},
			onsessionclosed: (id) => {
				sessions.delete(id);
			},
		});
		transport.onclose = () => {
			if (transport.sessionId) sessions.delete(transport.sessionId);
			replay.drop();
		};
		await createMcpServer(call, {
			transport: "http",
			principal,
			inflight: options.inflight,
			...(extension && { extension: extension.legacy }),
			subscriptions,
		}).connect(transport);
		return transport.handleRequest(req, { parsedBody: parsed.body });
	}

	async function route(req: Request, started: number): Promise<Response> {
		const verdict = checkRequest(req.headers, guard);
		if (!verdict.ok) {
			// A browser refused on the dashboard's paths gets a page (or its API's error), not JSON-RPC.
			const refused = URL.parse(req.url)?.pathname;
			if (refused !== undefined && dashboard.serves(refused))
				return dashboard.refused(refused, verdict.message);
			return rpcError(verdict.status, -32000, verdict.message);
		}
		if (stopping) return rpcError(503, -32000, "the owner is shutting down");
		// The guard checked the Host, so Bun's URL parses; a request line that still does not is the
		// client's fault, not ours.
		const path = URL.parse(req.url)?.pathname;
		if (path !== undefined && dashboard.serves(path)) {
			const res = await dashboard.handle(req, path, started);
			// An event stream is not bounded by Bun's timers (its keep-alives hold it open).
			if (isStream(res)) server.timeout(req, 0);
			return res;
		}
		// Health says nothing about the project, so a loopback probe needs no credential.
		const open = path === "/healthz" && loopback;
		const principal = open ? undefined : await caller(req);
		if (principal instanceof Response) return principal;
		if (path === "/mcp") return handleMcp(req, started, principal as Principal);
		if (path === "/healthz" && req.method === "GET") {
			const status = await options.health();
			return Response.json({ status }, { status: status === "degraded" ? 503 : 200 });
		}
		return new Response("not found\n", { status: 404 });
	}

	const maxConnections = options.maxConnections ?? 512;
	const server = Bun.serve({
		hostname,
		port,
		idleTimeout: KEEPALIVE_IDLE_S,
		maxRequestBodySize: options.maxBodyBytes + 1024,
		...(options.tls && { tls: { cert: Bun.file(options.tls.cert), key: Bun.file(options.tls.key) } }),
		async fetch(req, srv) {
			const started = Date.now();
			const client = srv.requestIP(req);
			const conn = connections.admit(client ? `${client.address}:${client.port}` : undefined, started);
			if (conn === undefined) {
				return closingError(
					503,
					-32000,
					`too many open HTTP connections (limit ${maxConnections}, limits.max_http_connections); close idle ones or retry later`,
				);
			}
			// Until the body is in, Bun's timer backs up the read deadline (the 408 comes first).
			srv.timeout(req, Math.ceil(readDeadlineMs / 1000) + IDLE_CHECK_S);
			let res: Response;
			try {
				res = await route(req, started);
			} catch {
				res = rpcError(500, -32603, "internal error");
			}
			// From its last byte on, the connection is idle: Bun's keep-alive timer applies again.
			const idle = (cut: boolean) => {
				if (!cut) srv.timeout(req, KEEPALIVE_IDLE_S);
				connections.release(conn, cut);
			};
			if (!isStream(res)) {
				// Either side's Connection: close ends the connection with this response.
				const closes = [req.headers, res.headers].some((h) => /\bclose\b/i.test(h.get("connection") ?? ""));
				idle(closes);
				return res;
			}
			return watched(res, idle, req.method === "GET" ? ": stream open\n\n" : undefined);
		},
	});

	const sweep = setInterval(() => {
		const cutoff = Date.now() - SESSION_IDLE_MS;
		for (const [id, s] of sessions)
			if (s.lastSeen < cutoff) void s.transport.close().finally(() => sessions.delete(id));
	}, 60_000);
	sweep.unref();

	const host = hostname.includes(":") ? `[${hostname}]` : hostname;
	const origin = `${options.tls ? "https" : "http"}://${host}:${server.port}`;
	return {
		url: `${origin}/mcp`,
		dashboardUrl: dashboard.loginUrl(origin),
		stopAccepting() {
			stopping = true;
			dashboard.close();
			modern.close();
			clearInterval(sweep);
			void server.stop();
		},
		async close() {
			dashboard.close();
			modern.close();
			own?.close();
			await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => {})));
			sessions.clear();
			await server.stop(true);
		},
	};
}
