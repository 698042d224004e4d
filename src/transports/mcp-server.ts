// The registry as an MCP server (SDK 1.32, low-level Server): tools/list from the registry, and
// tools/call into the one dispatcher. Protocol problems are JSON-RPC errors (unknown tool → −32602);
// tool failures are `isError` results carrying {"error":{code,message,details}} and no
// structuredContent, because SDK clients check structuredContent against outputSchema even then.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, ListToolsRequestSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CallContext, Transport } from "../context.ts";
import { call } from "../dispatch.ts";
import { didYouMean, suggestion } from "../domain/suggest.ts";
import { asToolError } from "../errors.ts";
import { findTool, jsonSchemas, TOOLS } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import { VERSION } from "../version.ts";
import type { InFlight } from "./inflight.ts";

/** A JSON-RPC error the SDK passes through as is (an McpError would get its prefix doubled). */
const rpcError = (code: number, message: string, data?: unknown) =>
	Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });

// Accepts any params, so that malformed tools/call params reach the SDK's own check, which answers
// −32602, instead of failing this schema, which the SDK would answer with −32603.
const AnyToolsCall = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() }).loose();

let toolList: McpTool[] | undefined;
/** Every tool, in registry order. Computed once: schemas never change while a process runs. */
function mcpTools(): McpTool[] {
	toolList ??= TOOLS.map((t) => {
		const { input, output } = jsonSchemas(t);
		return {
			name: t.name,
			title: t.title,
			description: t.description,
			inputSchema: input as McpTool["inputSchema"],
			outputSchema: output as McpTool["outputSchema"],
			annotations: t.annotations,
		};
	});
	return toolList;
}

export interface McpServerOptions {
	transport: Transport;
	/** The caller, as the transport established it (the operator, until capability tokens). */
	principal: CallContext["principal"];
	/** Calls in progress, for a bounded drain at shutdown. */
	inflight: InFlight;
}

export function createMcpServer(rt: Runtime, options: McpServerOptions): Server {
	const server = new Server(
		{ name: "roundtable", title: "Roundtable", version: VERSION },
		{
			capabilities: { tools: {} },
			instructions:
				"Roundtable coordinates agents on one repository. Start with table.get_state, claim before you propose, and follow table.watch with after_event_id.",
		},
	);
	server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpTools() }));
	server.setRequestHandler(AnyToolsCall, async (request, extra) => {
		const params = request.params as {
			name: string;
			arguments?: Record<string, unknown>;
			_meta?: { progressToken?: string | number };
		};
		if (!findTool(params.name)) {
			const near = didYouMean(
				params.name,
				TOOLS.map((t) => t.name),
			);
			throw rpcError(
				ErrorCode.InvalidParams,
				`unknown tool '${params.name}'${suggestion(near)}`,
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
			const result = await options.inflight.track(call(rt, params.name, params.arguments ?? {}, ctx));
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
