// More MCP surface beside the registry, given by whoever starts the owner: the conformance suite's
// fixtures (tools, resources, prompts), which only the tests' own entry
// (test/_helpers/conformance-owner.ts) passes in, one part for each era. Its tools are listed after
// the registry's and answered by it; their names never collide with the registry's dotted ones.
import type { Server as LegacyServer } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
	CallToolResult as LegacyResult,
	Tool as LegacyTool,
	ServerCapabilities,
	ServerNotification,
	ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type {
	InputRequiredResult,
	ServerCapabilities as ModernCapabilities,
	CallToolResult as ModernResult,
	Server as ModernServer,
	Tool as ModernTool,
	ServerContext,
	ServerOptions,
} from "@modelcontextprotocol/server";
import type { ListKind } from "../subscriptions/hub.ts";

export interface McpExtension {
	/** For 2025-11-25 sessions (./mcp-server.ts). */
	legacy: LegacyExtension;
	/** For 2026-07-28 requests (./mcp-modern.ts). */
	modern: ModernExtension;
}

export interface LegacyExtension {
	capabilities: ServerCapabilities;
	tools: LegacyTool[];
	/** Registers its request handlers on one session's server; returns how it answers its tools there. */
	install(server: LegacyServer): LegacyCall;
}

export type LegacyCall = (
	name: string,
	args: Record<string, unknown>,
	extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<LegacyResult>;

export interface ModernExtension {
	capabilities: ModernCapabilities;
	tools: ModernTool[];
	/** How its servers check a multi-round-trip request's echoed state before a handler sees it. */
	requestState?: ServerOptions["requestState"];
	/** Registers its request handlers on one request's server; returns how it answers its tools there. */
	install(server: ModernServer, lists: ListChanges): ModernCall;
}

export type ModernCall = (
	name: string,
	args: Record<string, unknown>,
	ctx: ServerContext,
) => Promise<ModernResult | InputRequiredResult>;

export interface ListChanges {
	changed(list: ListKind): void;
}

/** The lists `capabilities` promise to announce changes of. */
export function announcedLists(capabilities: {
	tools?: { listChanged?: boolean };
	prompts?: { listChanged?: boolean };
}): Set<ListKind> {
	const lists = new Set<ListKind>();
	if (capabilities.tools?.listChanged) lists.add("tools");
	if (capabilities.prompts?.listChanged) lists.add("prompts");
	return lists;
}
