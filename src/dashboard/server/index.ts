// The operator's dashboard on the owner's HTTP listener: `/` (the app, or the login page), `/login`,
// `/assets/*` (embedded files), and the JSON API under `/api/` (docs/dashboard.md is the contract).
// A transport like the others: every request becomes tool calls through the Caller the owner gives
// it, always as the operator, reads and the two changes alike (human.decide, patch.rollback). Only
// its session cookie lets a browser in, never an Authorization header; a POST must come from the
// dashboard's own origin and carry its session's CSRF token. http.ts runs the Host/Origin guard first.
import type { CallContext, Caller } from "../../context.ts";
import { ToolError } from "../../errors.ts";
import type { InFlight } from "../../transports/inflight.ts";
import { ASSETS, INDEX, loginPage } from "./assets.ts";
import { DashboardAuth } from "./auth.ts";
import { eventStream, startCursor } from "./events.ts";
import { memoryView, type OperatorCall, proposalView, stateView } from "./views.ts";
import {
	apiError,
	html,
	json,
	parseObject,
	readBody,
	sameOrigin,
	secured,
	toolErrorResponse,
} from "./web.ts";

export interface DashboardOptions {
	/** The tokens that log in besides the one-time one (ROUNDTABLE_MCP_TOKEN, .roundtable/operator.token). */
	operatorTokens: readonly string[];
	/** Served over TLS: cookies get Secure, and the own origin is https. */
	tls: boolean;
	/** Changes in flight are counted here, so a stopping owner drains them. */
	inflight: InFlight;
	/** A request body must have arrived this long after its headers. */
	readDeadlineMs: number;
	/** Event streams open at once, at most (default 32). */
	maxStreams?: number;
	/** For tests: sessions' lifetime and cap. */
	sessionTtlMs?: number;
	maxSessions?: number;
}

export interface Dashboard {
	/** Whether a path is the dashboard's: it is answered before any bearer check. */
	serves(path: string): boolean;
	handle(req: Request, path: string, started: number): Promise<Response>;
	/** The answer to a request of its path that the Host/Origin guard refused (`message` says why). */
	refused(path: string, message: string): Response;
	/** The URL that logs a browser in once: `<origin>/?token=<one-time token>`. */
	loginUrl(origin: string): string;
	/** Ends every event stream: the owner is stopping. */
	close(): void;
}

const MAX_BODY = 64 * 1024;

export function createDashboard(caller: Caller, options: DashboardOptions): Dashboard {
	const auth = new DashboardAuth({
		operatorTokens: options.operatorTokens,
		ttlMs: options.sessionTtlMs,
		maxSessions: options.maxSessions,
	});
	const maxStreams = options.maxStreams ?? 32;
	const streams = new Set<AbortController>();

	const context = (signal: AbortSignal): CallContext => ({
		principal: { kind: "operator" },
		transport: "http",
		signal,
		progress: () => {},
	});
	const operator =
		(signal: AbortSignal): OperatorCall =>
		(tool, args) =>
			caller(tool, args, context(signal)) as never;
	/** A change: counted in flight, and never cut short by the client going away. */
	const change = (tool: string, args: Record<string, unknown>) =>
		options.inflight.track(caller(tool, args, context(new AbortController().signal)));

	const ownOrigin = (req: Request) => `${options.tls ? "https" : "http"}://${req.headers.get("host")}`;
	const signedIn = (session: string) => ({ location: "/", "set-cookie": auth.cookie(session, options.tls) });

	/** `/`: log in with `?token=`, else the app to a signed-in browser, else the login page. */
	function home(req: Request, url: URL): Response {
		const token = url.searchParams.get("token");
		const session = auth.session(req);
		if (token !== null) {
			const opened = auth.login(token);
			if (opened) return new Response(null, { status: 303, headers: signedIn(opened) });
			// A spent token in a browser that is signed in already: just drop it from the address.
			if (session) return new Response(null, { status: 303, headers: { location: "/" } });
			return html(loginPage("That token does not open the dashboard (a one-time link works once)."), 401);
		}
		if (!session) return html(loginPage());
		return html(INDEX.body, 200, { vary: "Cookie" });
	}

	async function login(req: Request, started: number): Promise<Response> {
		if (!sameOrigin(req.headers.get("origin"), ownOrigin(req)))
			return html(loginPage("Sign in from the dashboard's own page."), 403);
		const text = await readBody(req, MAX_BODY, started + options.readDeadlineMs);
		const type = req.headers.get("content-type") ?? "";
		const token = type.includes("application/json")
			? String(parseObject(text).token ?? "")
			: (new URLSearchParams(text).get("token") ?? "");
		const opened = auth.login(token.trim());
		if (!opened) return html(loginPage("That token does not open the dashboard."), 401);
		return new Response(null, { status: 303, headers: signedIn(opened) });
	}

	function asset(req: Request, name: string): Response {
		const file = ASSETS.get(name);
		if (!file) return new Response("not found\n", { status: 404, headers: { "content-type": "text/plain" } });
		const headers = { "content-type": file.type, etag: file.etag, "cache-control": "no-cache" };
		if (req.headers.get("if-none-match") === file.etag) return new Response(null, { status: 304, headers });
		return new Response(file.body, { headers });
	}

	/** Everything under /api/: a POST's origin first, then the session, then a POST's CSRF token. */
	async function api(req: Request, url: URL, started: number): Promise<Response> {
		const post = req.method === "POST";
		if (post && !sameOrigin(req.headers.get("origin"), ownOrigin(req)))
			return apiError(
				403,
				"permission_denied",
				"a dashboard change must come from the dashboard's own origin",
			);
		const session = auth.session(req);
		if (!session)
			return apiError(
				401,
				"unauthenticated",
				"sign in to the dashboard first (its session cookie is missing or expired)",
			);
		if (post && !auth.csrfOk(session, req.headers.get("x-csrf-token")))
			return apiError(403, "permission_denied", "the X-CSRF-Token header is missing or not this session's");
		const parts = url.pathname.split("/").slice(2).map(segment);
		const [head, id, tail, ...rest] = parts;
		const read = operator(req.signal);
		const only = (method: string, run: () => Promise<Response> | Response) =>
			req.method === method || (method === "GET" && req.method === "HEAD")
				? run()
				: withHeader(apiError(405, "invalid_argument", `${url.pathname} takes ${method}`), "allow", method);
		if (rest.length > 0) return notFound(url);
		switch (head) {
			case "state":
				if (id !== undefined) return notFound(url);
				return only("GET", async () => json(await stateView(read, auth.csrfToken(session))));
			case "proposals":
				if (!id || tail !== undefined) return notFound(url);
				return only("GET", async () => json(await proposalView(read, id)));
			case "test-runs":
				if (!id || tail !== "log") return notFound(url);
				return only("GET", () => testLog(read, id, url.searchParams));
			case "sessions":
				if (!id || tail !== "transcript") return notFound(url);
				return only("GET", () => transcript(read, id, url.searchParams));
			case "memory":
				if (id !== undefined) return notFound(url);
				return only("GET", async () => json(await memoryView(read, url.searchParams)));
			case "events":
				if (id !== undefined) return notFound(url);
				return only("GET", () => events(req, url, session));
			case "approvals":
				if (!id || tail !== undefined) return notFound(url);
				return only("POST", async () => {
					const body = parseObject(await readBody(req, MAX_BODY, started + options.readDeadlineMs));
					return json(await change("human.decide", { ...body, approval_id: id }));
				});
			case "tasks":
				// What the Architect proposed, opened or cancelled by the operator; no other change of a task here.
				if (!id || tail !== "status") return notFound(url);
				return only("POST", async () => {
					const body = parseObject(await readBody(req, MAX_BODY, started + options.readDeadlineMs));
					if (body.status !== "open" && body.status !== "cancelled")
						return apiError(400, "invalid_argument", "status must be open or cancelled", { field: "status" });
					return json(await change("task.update_status", { ...body, task_id: id }));
				});
			case "transactions":
				if (!id || tail !== "rollback") return notFound(url);
				return only("POST", async () => {
					const body = parseObject(await readBody(req, MAX_BODY, started + options.readDeadlineMs));
					return json(await change("patch.rollback", { ...body, transaction_id: id }));
				});
			case "logout":
				if (id !== undefined) return notFound(url);
				return only("POST", () => {
					auth.logout(session);
					return new Response(null, {
						status: 204,
						headers: { "set-cookie": auth.clearCookie(options.tls) },
					});
				});
			default:
				return notFound(url);
		}
	}

	/** A page of a test run's log (from `offset`, default 0), as text. */
	async function testLog(read: OperatorCall, id: string, params: URLSearchParams): Promise<Response> {
		const offset = offsetOf(params);
		if (offset === false) return badOffset();
		const out = await read("test.get_result", {
			test_run_id: id,
			offset: offset ?? 0,
			max_bytes: 1024 * 1024,
		});
		return logPage(out.log, out.offset, out.next_offset, out.log_bytes);
	}

	/** A page of a session's transcript (default: its last MiB), as text. */
	async function transcript(read: OperatorCall, id: string, params: URLSearchParams): Promise<Response> {
		const offset = offsetOf(params);
		if (offset === false) return badOffset();
		const out = await read("session.transcript", {
			session_id: id,
			...(offset !== undefined && { offset }),
			max_bytes: 1024 * 1024,
		});
		return logPage(out.transcript, out.offset, out.next_offset, out.transcript_bytes, {
			"x-session-live": String(out.live),
		});
	}

	async function events(req: Request, url: URL, session: string): Promise<Response> {
		const given = startCursor(req, url.searchParams);
		if (typeof given === "object")
			return apiError(400, "invalid_argument", given.error, { field: "Last-Event-ID" });
		if (streams.size >= maxStreams)
			return apiError(
				503,
				"resource_exhausted",
				`too many open event streams (limit ${maxStreams}); close a tab`,
			);
		// Without a cursor: after the newest event as the request arrives, not as the stream first reads.
		const after = given ?? (await operator(req.signal)("table.watch", { limit: 1 })).next_after_event_id;
		const owner = new AbortController();
		streams.add(owner);
		const body = eventStream({
			call: (tool, args, signal) => caller(tool, args, context(signal)),
			after,
			live: () => auth.alive(session),
			ended: () => streams.delete(owner),
			signal: owner.signal,
		});
		return new Response(body, {
			headers: { "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" },
		});
	}

	const notFound = (url: URL) =>
		apiError(404, "not_found", `no dashboard endpoint ${url.pathname.slice(0, 200)}`);

	async function route(req: Request, path: string, started: number): Promise<Response> {
		const url = new URL(req.url);
		const get = req.method === "GET" || req.method === "HEAD";
		if (path === "/api" || path.startsWith("/api/")) return api(req, url, started);
		if (path === "/") return get ? home(req, url) : methodNotAllowed("GET");
		if (path === "/login") return req.method === "POST" ? login(req, started) : methodNotAllowed("POST");
		if (path === "/favicon.ico") return new Response(null, { status: 204 });
		if (!get) return methodNotAllowed("GET");
		return asset(req, path.slice("/assets/".length));
	}

	return {
		serves: (path) =>
			path === "/" ||
			path === "/login" ||
			path === "/favicon.ico" ||
			path === "/api" ||
			path.startsWith("/api/") ||
			path.startsWith("/assets/"),
		async handle(req, path, started) {
			let res: Response;
			try {
				res = await route(req, path, started);
			} catch (err) {
				res = toolErrorResponse(err);
			}
			return secured(res);
		},
		refused(path, message) {
			// A browser's page gets a page it can show; the app's API its JSON error.
			const res =
				path === "/" || path === "/login"
					? html(loginPage("Sign in from the dashboard's own page."), 403)
					: apiError(403, "permission_denied", message);
			return secured(res);
		},
		loginUrl: (origin) => `${origin}/?token=${auth.loginToken}`,
		close() {
			for (const s of streams) s.abort();
		},
	};
}

/** A path segment decoded; a malformed escape is the client's error. */
function segment(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		throw new ToolError("invalid_argument", "the path holds a malformed %-escape");
	}
}

function withHeader(res: Response, name: string, value: string): Response {
	res.headers.set(name, value);
	return res;
}

const methodNotAllowed = (allow: string) =>
	new Response(`method not allowed; use ${allow}\n`, {
		status: 405,
		headers: { allow, "content-type": "text/plain; charset=utf-8" },
	});

/** `?offset=N`: the number, undefined when absent, false when it is not a non-negative integer. */
function offsetOf(params: URLSearchParams): number | undefined | false {
	const offset = params.get("offset");
	if (offset === null) return undefined;
	return /^\d{1,15}$/.test(offset) ? Number(offset) : false;
}

const badOffset = () =>
	apiError(400, "invalid_argument", "offset must be a non-negative integer", { field: "offset" });

/** A page of a log as text, with where it starts, where the next begins (empty at the end) and the whole size. */
function logPage(
	text: string,
	offset: number,
	next: number | null,
	bytes: number,
	extra: Record<string, string> = {},
): Response {
	return new Response(text, {
		headers: {
			"content-type": "text/plain; charset=utf-8",
			"x-log-offset": String(offset),
			"x-log-next-offset": next === null ? "" : String(next),
			"x-log-bytes": String(bytes),
			...extra,
		},
	});
}
