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
	type InputRequiredResult,
	isLegacyRequest,
	ProtocolError,
	Server,
	type ServerCapabilities,
} from "@modelcontextprotocol/server";
import type { CallContext, Caller, Transport } from "../context.ts";
import { publishedTools } from "../registry/mcp.ts";
import type { Hub } from "../subscriptions/hub.ts";
import { isListen, listen } from "../subscriptions/listen.ts";
import { claimsModern, FIRST_MODERN, VERSION_META } from "./envelope.ts";
import { announcedLists, type ModernExtension } from "./extension.ts";
import type { InFlight } from "./inflight.ts";
import {
	callTool,
	INSTRUCTIONS,
	INVALID_PARAMS,
	listResources,
	RESOURCE_TEMPLATES,
	readContents,
	resourceContext,
	SERVER_INFO,
	TOOLS_TTL_MS,
	unknownTool,
} from "./mcp-surface.ts";
import { HEADER_MISMATCH, paramHeaderMismatch } from "./param-headers.ts";

type Principal = CallContext["principal"];

export interface ModernOptions {
	inflight: InFlight;
	maxBodyBytes: number;
	/** Hears each tools/list answered: how many tools, and the client as its envelope names it. */
	onToolsList?: (tools: number, client: string | undefined) => void;
	/** Serves `subscriptions/listen` (src/subscriptions/listen.ts); without it, listens get the SDK's answer. */
	subscriptions?: Hub;
	/** The door its calls are recorded as coming through. */
	transport: Transport;
	/** More to serve beside the registry (see ./extension.ts). */
	extension?: ModernExtension;
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
	const { extension } = options;
	const capabilities = {
		tools: {},
		...(options.subscriptions && { resources: { subscribe: true } }),
		...extension?.capabilities,
	};
	const announced = announcedLists(capabilities);
	const handler = createMcpHandler(
		(ctx) => {
			const principal = ctx.authInfo && callers.get(ctx.authInfo);
			if (!principal) throw new Error("a new-era request reached the server without its caller");
			return modernServer(call, principal, capabilities, options);
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
					resourceContext(principal, options.transport, req.signal),
					closing.signal,
					announced,
				);
			const mismatch = paramMismatch(req.headers, body, principal, extension);
			if (mismatch) return Promise.resolve(mismatch);
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

/**
 * A tools/call whose Mcp-Param-* headers disagree with its arguments (./param-headers.ts), answered
 * as SEP-2243 says: 400, −32020, naming the header. Undefined for any other request.
 */
function paramMismatch(
	headers: Headers,
	body: unknown,
	principal: Principal,
	extension: ModernExtension | undefined,
): Response | undefined {
	const m = body as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } };
	if (m?.method !== "tools/call" || typeof m.params?.name !== "string") return undefined;
	const name = m.params.name;
	const tool =
		extension?.tools.find((t) => t.name === name) ?? toolsOf(principal).find((t) => t.name === name);
	const mismatch = tool && paramHeaderMismatch(tool.inputSchema, m.params.arguments, headers);
	if (!mismatch) return undefined;
	return Response.json(
		{
			jsonrpc: "2.0",
			id: typeof m.id === "string" || typeof m.id === "number" ? m.id : null,
			error: {
				code: HEADER_MISMATCH,
				message: `Bad Request: the request headers and body disagree: ${mismatch.message}`,
				data: { mismatch: { header: mismatch.header, body: mismatch.message } },
			},
		},
		{ status: 400 },
	);
}

const toolsOf = (principal: Principal) =>
	publishedTools(principal.kind === "agent" ? principal.role : undefined);

function modernServer(
	call: Caller,
	principal: Principal,
	capabilities: ServerCapabilities,
	options: ModernOptions,
): Server {
	const { inflight, extension } = options;
	const server = new Server(SERVER_INFO, {
		capabilities,
		instructions: INSTRUCTIONS,
		...(extension?.requestState && { requestState: extension.requestState }),
	});
	server.setRequestHandler("tools/list", async (request) => {
		const tools = extension ? [...toolsOf(principal), ...extension.tools] : toolsOf(principal);
		const info = request.params?._meta?.["io.modelcontextprotocol/clientInfo"] as
			| { name?: unknown; version?: unknown }
			| undefined;
		options.onToolsList?.(
			tools.length,
			typeof info?.name === "string" ? `${info.name} ${String(info.version ?? "")}`.trim() : undefined,
		);
		return { tools, ttlMs: TOOLS_TTL_MS, cacheScope: "private" };
	});
	if (options.subscriptions) serveResources(server, call, principal, options.transport);
	// The extension, where given, answers the resource methods in ours' stead.
	const hub = options.subscriptions;
	const extensionCall = extension?.install(server, { changed: (list) => hub?.listChanged(list) });
	server.setRequestHandler(
		"tools/call",
		async (request, extra): Promise<CallToolResult | InputRequiredResult> => {
			const { name, arguments: args } = request.params;
			if (extensionCall && extension?.tools.some((t) => t.name === name))
				return extensionCall(name, args ?? {}, extra);
			const unknown = unknownTool(name);
			if (unknown) throw new ProtocolError(INVALID_PARAMS, unknown.message, unknown.data);
			return callTool(call, {
				name,
				args,
				principal,
				transport: options.transport,
				signal: extra.mcpReq.signal,
				progressToken: request.params._meta?.progressToken,
				notify: (n) => extra.mcpReq.notify(n),
				inflight,
			});
		},
	);
	return server;
}

/**
 * resources/list, templates and read in the new era (subscribing is `subscriptions/listen`): the
 * same resources as the old era's, read as the caller; a missing one is −32602 here (SEP-2164).
 */
function serveResources(server: Server, call: Caller, principal: Principal, transport: Transport): void {
	const ctxOf = (signal: AbortSignal) => resourceContext(principal, transport, signal);
	server.setRequestHandler("resources/list", async (_request, extra) => ({
		resources: await listResources(call, ctxOf(extra.mcpReq.signal)),
		ttlMs: 0,
		cacheScope: "private",
	}));
	server.setRequestHandler("resources/templates/list", async () => ({
		resourceTemplates: RESOURCE_TEMPLATES,
		ttlMs: TOOLS_TTL_MS,
		cacheScope: "public",
	}));
	// What a resource holds changes with every event, and is the caller's own view of it.
	server.setRequestHandler("resources/read", async (request, extra) => ({
		...(await readContents(call, request.params.uri, ctxOf(extra.mcpReq.signal), {
			missing: (uri) => new ProtocolError(INVALID_PARAMS, `no such resource: ${uri.slice(0, 200)}`, { uri }),
			failed: (e) => new ProtocolError(INVALID_PARAMS, e.message, { uri: request.params.uri, code: e.code }),
		})),
		ttlMs: 0,
		cacheScope: "private" as const,
	}));
}
