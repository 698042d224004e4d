// The registry as an MCP server (SDK 1.32, low-level Server): tools/list from the registry, and
// tools/call into the one dispatcher. Protocol problems are JSON-RPC errors (unknown tool → −32602);
// tool failures are `isError` results carrying {"error":{code,message,details}} and no
// structuredContent, because SDK clients check structuredContent against outputSchema even then.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
	type CallToolResult,
	ErrorCode,
	ListToolsRequestSchema,
	type Tool as McpTool,
	type ServerCapabilities,
	type ServerNotification,
	type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CallContext, Caller, Transport } from "../context.ts";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { asToolError } from "../errors.ts";
import { AGENT_TOOLS, findTool } from "../registry/index.ts";
import { publishedTools } from "../registry/mcp.ts";
import { VERSION } from "../version.ts";
import type { InFlight } from "./inflight.ts";
import { TOOLS_TTL_MS } from "./mcp-modern.ts";

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

/**
 * More MCP surface beside the registry, given by whoever starts the owner: the conformance suite's
 * fixtures (tools, resources, prompts), which only the tests' own entry
 * (test/_helpers/conformance-owner.ts) passes in. Its tools are listed after the registry's and
 * answered by it; their names never collide with the registry's dotted ones.
 */
export interface McpExtension {
	capabilities: ServerCapabilities;
	tools: McpTool[];
	/** Registers its request handlers on one session's server; returns how it answers its tools there. */
	install(server: Server): ExtensionCall;
}

export type ExtensionCall = (
	name: string,
	args: Record<string, unknown>,
	extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<CallToolResult>;

export interface McpServerOptions {
	transport: Transport;
	/** The caller, as the transport established it: the operator, or an agent's capability. */
	principal: CallContext["principal"];
	/** Calls in progress, for a bounded drain at shutdown. */
	inflight: InFlight;
	/** More to serve beside the registry (see McpExtension). */
	extension?: McpExtension;
	/** Hears each tools/list answered, with how many tools it held. */
	onToolsList?: (tools: number) => void;
}

export function createMcpServer(call: Caller, options: McpServerOptions): Server {
	const { extension } = options;
	const server = new Server(
		{ name: "roundtable", title: "Roundtable", version: VERSION },
		{
			// Only what is answered: an undeclared method (resources/list, logging/setLevel, …) gets
			// −32601 from the SDK. The extension's capabilities go in here, at construction, because
			// the SDK installs logging/setLevel only for a server constructed with `logging`.
			capabilities: { tools: {}, ...extension?.capabilities },
			instructions:
				"Roundtable coordinates agents on one repository. Start with table.get_state, claim before you propose, and follow table.watch with after_event_id.",
		},
	);
	server.setRequestHandler(ListToolsRequestSchema, async () => {
		const tools = extension
			? [...mcpTools(options.principal), ...extension.tools]
			: mcpTools(options.principal);
		options.onToolsList?.(tools.length);
		// As the 2026-07-28 era says it (./mcp-modern.ts): the list holds until a new program, per caller.
		return { tools, ttlMs: TOOLS_TTL_MS, cacheScope: "private" };
	});
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
		// Operator and internal tools are not part of the MCP surface: to an MCP client they do not exist.
		// (A role's call to an agent tool it may not use is refused in call(), where it is recorded.)
		if (findTool(params.name)?.visibility !== "agent") {
			const near = didYouMean(
				params.name,
				AGENT_TOOLS.map((t) => t.name),
			);
			throw rpcError(
				ErrorCode.InvalidParams,
				`unknown tool ${quoted(String(params.name))}${suggestion(near)}`,
				near && { did_you_mean: near },
			);
		}
		const progressToken = params._meta?.progressToken;
		const ctx: CallContext = {
			principal: options.principal,
			transport: options.transport,
			signal: extra.signal,
			progress: (progress, total, message) => {
				if (progressToken === undefined) return;
				void extra
					.sendNotification({
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
			const result = await options.inflight.track(call(params.name, params.arguments ?? {}, ctx));
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
