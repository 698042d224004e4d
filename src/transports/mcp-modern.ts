// MCP's 2026-07-28 revision on the HTTP endpoint, beside the 2025-11-25 sessions (./http.ts): a
// request carrying the per-request `_meta` envelope is served statelessly by the SDK's 2.x handler
// (`server/discover`, the required Mcp-Method/Mcp-Name headers checked with the specified errors),
// a fresh server per request for the caller the bearer credential names on that request. What the
// old era kept per session is per request here: the caller from its own credential, the role's tool
// list from the registry. Its tools/list says how long it stays true (the registry changes only
// with the program; a capability's role never changes), and for whom (`private`: per caller).
import {
	type AuthInfo,
	type CallToolResult,
	createMcpHandler,
	isLegacyRequest,
	ProtocolError,
	Server,
} from "@modelcontextprotocol/server";
import type { CallContext, Caller, Transport } from "../context.ts";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { asToolError } from "../errors.ts";
import { AGENT_TOOLS, findTool } from "../registry/index.ts";
import { publishedTools } from "../registry/mcp.ts";
import type { Hub } from "../subscriptions/hub.ts";
import { isListen, listen } from "../subscriptions/listen.ts";
import { INBOX_URI, parseUri, readResource, runEventsUri } from "../subscriptions/resources.ts";
import { VERSION } from "../version.ts";
import type { InFlight } from "./inflight.ts";

type Principal = CallContext["principal"];

/** How long a client may keep a tools/list answer: the list changes only with a new program. */
export const TOOLS_TTL_MS = 3_600_000;

/** The JSON-RPC code for an unknown tool, as the old era answers it. */
const INVALID_PARAMS = -32602;

export interface ModernOptions {
	inflight: InFlight;
	maxBodyBytes: number;
	/** Hears each tools/list answered: how many tools, and the client as its envelope names it. */
	onToolsList?: (tools: number, client: string | undefined) => void;
	/** Serves `subscriptions/listen` (src/subscriptions/listen.ts); without it, listens get the SDK's answer. */
	subscriptions?: Hub;
	transport?: Transport;
}

export interface ModernEndpoint {
	/** Whether a POST (its body parsed) belongs to the old era: no per-request envelope claim. */
	isLegacy(req: Request, body: unknown): Promise<boolean>;
	/** Serves one new-era request for `principal`, who its own credential says it is. */
	serve(req: Request, body: unknown, principal: Principal): Promise<Response>;
	/** Ends open listens, each with its answer (the owner stops). */
	close(): void;
}

export function modernEndpoint(call: Caller, options: ModernOptions): ModernEndpoint {
	// The caller rides to the factory in the SDK's pass-through AuthInfo.
	const callers = new WeakMap<AuthInfo, Principal>();
	const closing = new AbortController();
	const handler = createMcpHandler(
		(ctx) => {
			const principal = ctx.authInfo && callers.get(ctx.authInfo);
			if (!principal) throw new Error("a new-era request reached the server without its caller");
			return modernServer(call, principal, options);
		},
		{ legacy: "reject", responseMode: "auto", maxRequestBodySize: options.maxBodyBytes },
	);
	return {
		// Only a request that claims the new era goes to it (the SDK's own test would also send it a
		// body that is no JSON-RPC message at all, which the old era answers as it always has).
		isLegacy: async (req, body) =>
			!claimsModern(req.headers, body) ||
			(await isLegacyRequest(req, body, { maxRequestBodySize: options.maxBodyBytes })),
		serve(req, body, principal) {
			const hub = options.subscriptions;
			if (hub && isListen(body) && wellFormedListen(req.headers, body))
				return listen(
					hub,
					body,
					{ principal, transport: options.transport ?? "http", signal: req.signal, progress: () => {} },
					closing.signal,
				);
			const authInfo: AuthInfo = {
				token: "",
				clientId: principal.kind === "agent" ? principal.agent_id : principal.kind,
				scopes: [],
			};
			callers.set(authInfo, principal);
			return handler.fetch(req, { parsedBody: body, authInfo });
		},
		close: () => closing.abort(),
	};
}

/**
 * A listen whose revision and headers are in order; any other goes to the SDK, which answers it
 * with the error the revision specifies.
 */
function wellFormedListen(headers: Headers, body: unknown): boolean {
	const version = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[VERSION_META];
	return (
		version === FIRST_MODERN &&
		headers.get("mcp-protocol-version") === FIRST_MODERN &&
		headers.get("mcp-method") === "subscriptions/listen"
	);
}

/** The first revision without `initialize`; later ones compare greater as dates. */
const FIRST_MODERN = "2026-07-28";
const VERSION_META = "io.modelcontextprotocol/protocolVersion";

/** A request names a 2026-07-28-or-later revision: in its `_meta` envelope, or its version header. */
function claimsModern(headers: Headers, body: unknown): boolean {
	const header = headers.get("mcp-protocol-version");
	if (header !== null && header >= FIRST_MODERN) return true;
	if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
	const params = (body as { params?: unknown }).params;
	const meta =
		typeof params === "object" && params !== null ? (params as { _meta?: unknown })._meta : undefined;
	return typeof meta === "object" && meta !== null && VERSION_META in meta;
}

function modernServer(call: Caller, principal: Principal, options: ModernOptions): Server {
	const { inflight } = options;
	const server = new Server(
		{ name: "roundtable", title: "Roundtable", version: VERSION },
		{
			capabilities: { tools: {}, ...(options.subscriptions && { resources: { subscribe: true } }) },
			instructions:
				"Roundtable coordinates agents on one repository. Start with table.get_state, claim before you propose, and follow table.watch with after_event_id.",
		},
	);
	server.setRequestHandler("tools/list", async (request) => {
		const tools = publishedTools(principal.kind === "agent" ? principal.role : undefined);
		const info = request.params?._meta?.["io.modelcontextprotocol/clientInfo"] as
			| { name?: unknown; version?: unknown }
			| undefined;
		options.onToolsList?.(
			tools.length,
			typeof info?.name === "string" ? `${info.name} ${String(info.version ?? "")}`.trim() : undefined,
		);
		return { tools, ttlMs: TOOLS_TTL_MS, cacheScope: "private" };
	});
	if (options.subscriptions) serveResources(server, call, principal, options.transport ?? "http");
	server.setRequestHandler("tools/call", async (request, extra): Promise<CallToolResult> => {
		const { name, arguments: args } = request.params;
		// Operator and internal tools are not part of the MCP surface: to an MCP client they do not exist.
		if (findTool(name)?.visibility !== "agent") {
			const near = didYouMean(
				name,
				AGENT_TOOLS.map((t) => t.name),
			);
			throw new ProtocolError(
				INVALID_PARAMS,
				`unknown tool ${quoted(name)}${suggestion(near)}`,
				near && { did_you_mean: near },
			);
		}
		const progressToken = request.params._meta?.progressToken;
		const ctx: CallContext = {
			principal,
			transport: "http",
			signal: extra.mcpReq.signal,
			progress: (progress, total, message) => {
				if (progressToken === undefined) return;
				void extra.mcpReq
					.notify({
						method: "notifications/progress",
						params: {
							progressToken,
							progress,
							...(total !== undefined && { total }),
							...(message !== undefined && { message }),
						},
					})
					.catch(() => {});
			},
		};
		try {
			const result = await inflight.track(call(name, args ?? {}, ctx));
			return {
				content: [{ type: "text", text: JSON.stringify(result) }],
				structuredContent: result as Record<string, unknown>,
			};
		} catch (err) {
			return {
				isError: true,
				content: [{ type: "text", text: JSON.stringify({ error: asToolError(err).toJSON() }) }],
			};
		}
	});
	return server;
}

/**
 * resources/list, templates and read in the new era (subscribing is `subscriptions/listen`): the
 * same resources as the old era's, read as the caller; a missing one is −32602 here (SEP-2164).
 */
function serveResources(server: Server, call: Caller, principal: Principal, transport: Transport): void {
	const json = "application/json";
	const ctxOf = (signal: AbortSignal): CallContext => ({ principal, transport, signal, progress: () => {} });
	server.setRequestHandler("resources/list", async (_request, extra) => {
		const state = (await call("table.get_state", {}, ctxOf(extra.mcpReq.signal))) as {
			runs: { id: string; goal: string; status: string }[];
		};
		return {
			resources: [
				{ uri: INBOX_URI, name: "inbox", title: "Your inbox", mimeType: json },
				...state.runs
					.filter((r) => r.status === "active")
					.map((r) => ({
						uri: runEventsUri(r.id),
						name: `${r.id} events`,
						title: r.goal || r.id,
						mimeType: json,
					})),
			],
			ttlMs: 0,
			cacheScope: "private",
		};
	});
	server.setRequestHandler("resources/templates/list", async () => ({
		resourceTemplates: [
			{ uriTemplate: "roundtable://runs/{run_id}/events", name: "run events", mimeType: json },
			{ uriTemplate: "roundtable://requests/{request_id}", name: "peer request", mimeType: json },
		],
		ttlMs: TOOLS_TTL_MS,
		cacheScope: "public",
	}));
	server.setRequestHandler("resources/read", async (request, extra) => {
		const { uri } = request.params;
		const r = parseUri(uri);
		const fail = (message: string, data?: object) =>
			new ProtocolError(INVALID_PARAMS, message, { uri, ...data });
		if (!r) throw fail(`no such resource: ${uri.slice(0, 200)}`);
		try {
			const content = await readResource(call, r, ctxOf(extra.mcpReq.signal));
			return { contents: [{ uri, mimeType: json, text: JSON.stringify(content) }] };
		} catch (err) {
			const e = asToolError(err);
			throw fail(e.message, { code: e.code });
		}
	});
}
