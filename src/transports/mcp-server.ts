// The registry as an MCP server of the 2025-11-25 era (SDK 1.32, low-level Server, one per session):
// tools/list from the registry, and tools/call into the one dispatcher (./mcp-surface.ts, as the
// 2026-07-28 era's ./mcp-modern.ts does). Protocol problems are JSON-RPC errors (unknown tool → −32602);
// tool failures are `isError` results carrying {"error":{code,message,details}} and no
// structuredContent, because SDK clients check structuredContent against outputSchema even then.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
	ErrorCode,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ListToolsRequestSchema,
	type Tool as McpTool,
	ReadResourceRequestSchema,
	type ServerCapabilities,
	SubscribeRequestSchema,
	UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CallContext, Caller, Transport } from "../context.ts";
import { asToolError } from "../errors.ts";
import { publishedTools } from "../registry/mcp.ts";
import type { Hub } from "../subscriptions/hub.ts";
import { announcedLists, type LegacyExtension } from "./extension.ts";
import type { InFlight } from "./inflight.ts";
import {
	callTool,
	INSTRUCTIONS,
	listResources,
	RESOURCE_TEMPLATES,
	readContents,
	resourceContext,
	SERVER_INFO,
	TOOLS_TTL_MS,
	unknownTool,
} from "./mcp-surface.ts";

/** A JSON-RPC error the SDK passes through as is (an McpError would get its prefix doubled). */
const rpcError = (code: number, message: string, data?: unknown) =>
	Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });

// Accepts any params, so that malformed tools/call params reach the SDK's own check, which answers
// −32602, instead of failing this schema, which the SDK would answer with −32603.
const AnyToolsCall = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() }).loose();

/**
 * Every tool the caller may call, in registry order, as the registry publishes it (lean schemas, no
 * outputSchema): all agent tools for the operator, a capability's role's own for an agent.
 */
function mcpTools(principal: CallContext["principal"]): McpTool[] {
	return publishedTools(principal.kind === "agent" ? principal.role : undefined);
}

export interface McpServerOptions {
	/** Resources to read and subscribe to, served by this hub (its owner's, one per transport). */
	subscriptions?: Hub;
	transport: Transport;
	/** The caller, as the transport established it: the operator, or an agent's capability. */
	principal: CallContext["principal"];
	/** Calls in progress, for a bounded drain at shutdown. */
	inflight: InFlight;
	/** More to serve beside the registry (see ./extension.ts). */
	extension?: LegacyExtension;
	/** Hears each tools/list answered, with how many tools it held. */
	onToolsList?: (tools: number) => void;
}

export function createMcpServer(call: Caller, options: McpServerOptions): Server {
	const { extension, subscriptions: hub } = options;
	// Only what is answered: an undeclared method (resources/list, logging/setLevel, …) gets −32601
	// from the SDK. The extension's capabilities go in here, at construction, because the SDK
	// installs logging/setLevel only for a server constructed with `logging`.
	const capabilities: ServerCapabilities = {
		tools: {},
		...(hub && { resources: { subscribe: true } }),
		...extension?.capabilities,
	};
	const server = new Server(SERVER_INFO, { capabilities, instructions: INSTRUCTIONS });
	// The session, as the hub knows it: its subscriptions, and the lists it hears changes of.
	const session = {};
	if (hub) {
		server.onclose = () => hub.drop(session);
		hub.hearLists(session, announcedLists(capabilities), (list) => {
			void server.notification({ method: `notifications/${list}/list_changed` }).catch(() => {});
		});
	}
	server.setRequestHandler(ListToolsRequestSchema, async () => {
		const tools = extension
			? [...mcpTools(options.principal), ...extension.tools]
			: mcpTools(options.principal);
		options.onToolsList?.(tools.length);
		// As the 2026-07-28 era says it (./mcp-modern.ts): the list holds until a new program, per caller.
		return { tools, ttlMs: TOOLS_TTL_MS, cacheScope: "private" };
	});
	if (hub) serveResources(server, call, options, hub, session);
	// The conformance fixtures, where given, answer the resource methods in ours' stead.
	const extensionCall = extension?.install(server);
	server.setRequestHandler(AnyToolsCall, async (request, extra) => {
		const params = request.params as {
			name: string;
			arguments?: Record<string, unknown>;
			_meta?: { progressToken?: string | number };
		};
		if (extensionCall && extension?.tools.some((t) => t.name === params?.name)) {
			return extensionCall(params.name, params.arguments ?? {}, extra);
		}
		const unknown = unknownTool(params.name);
		if (unknown) throw rpcError(ErrorCode.InvalidParams, unknown.message, unknown.data);
		return callTool(call, {
			name: params.name,
			args: params.arguments,
			principal: options.principal,
			transport: options.transport,
			signal: extra.signal,
			progressToken: params._meta?.progressToken,
			notify: (n) => extra.sendNotification(n),
			inflight: options.inflight,
		});
	});
	return server;
}

/** A tool's error as MCP's resource methods answer it: not found as −32002, the rest −32602. */
function resourceError(err: unknown): Error {
	const e = asToolError(err);
	return rpcError(e.code === "not_found" ? -32002 : ErrorCode.InvalidParams, e.message, {
		code: e.code,
		...e.details,
	});
}

/** resources/list, templates, read, subscribe and unsubscribe: Roundtable's own (src/subscriptions/). */
function serveResources(
	server: Server,
	call: Caller,
	options: McpServerOptions,
	hub: Hub,
	session: object,
): void {
	const ctxOf = (signal: AbortSignal) => resourceContext(options.principal, options.transport, signal);
	server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
		resources: await listResources(call, ctxOf(extra.signal)),
	}));
	server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
		resourceTemplates: RESOURCE_TEMPLATES,
	}));
	server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
		readContents(call, request.params.uri, ctxOf(extra.signal), {
			missing: (uri) => rpcError(-32002, `no such resource: ${uri.slice(0, 200)}`),
			failed: resourceError,
		}),
	);
	server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
		try {
			await hub.subscribe(session, request.params.uri, ctxOf(extra.signal), (uri, eventId) => {
				void server.sendResourceUpdated({ uri, _meta: { "roundtable/event_id": eventId } }).catch(() => {});
			});
		} catch (err) {
			throw resourceError(err);
		}
		return {};
	});
	server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
		hub.unsubscribe(session, request.params.uri);
		return {};
	});
}
