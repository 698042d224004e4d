// A 2025-11-25 session's plain read, answered directly with one JSON response (which the transport
// spec lets a server choose for any POSTed request) instead of through the SDK's transport and
// event stream. "Plain": a read-only registry tool that does not wait, called without a progress
// token, so nothing but the answer could ever be sent for it, and a connection lost before the
// answer loses nothing (asking again reads again). A change or a wait keeps its resumable stream
// (SEP-1699: its result is not lost with the connection), and everything else (progress, the
// conformance fixtures' sampling and logging, other methods) still goes through the SDK. The call
// is the one every door makes (./mcp-surface.ts); only its framing is lighter: no stream, no event
// stored for a resumption nobody needs, no second validation of a result whose shape is ours.
// Reads are most of what agents call; this one saves ~110 µs of the ~330 µs a task.get took over
// loopback (bench/http.bench.ts).
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Caller, Principal } from "../context.ts";
import { findTool } from "../registry/index.ts";
import type { InFlight } from "./inflight.ts";
import { callTool, unknownTool } from "./mcp-surface.ts";

export interface Direct {
	id: string | number;
	name: string;
	args: Record<string, unknown> | undefined;
}

/**
 * The call in `body` if it is one to answer directly: a tools/call request naming a read-only
 * registry tool, without a wait or a progress token, sent as JSON by a client that accepts JSON,
 * labelled with a version the SDK would accept. Undefined for anything else, which the SDK answers
 * as before.
 */
export function directCall(
	headers: Headers,
	body: unknown,
	extensionTools: ReadonlySet<string>,
): Direct | undefined {
	const m = body as {
		jsonrpc?: unknown;
		id?: unknown;
		method?: unknown;
		params?: { name?: unknown; arguments?: unknown; _meta?: { progressToken?: unknown } };
	};
	if (m?.jsonrpc !== "2.0" || m.method !== "tools/call") return undefined;
	if (typeof m.id !== "string" && typeof m.id !== "number") return undefined;
	const p = m.params;
	if (typeof p?.name !== "string" || extensionTools.has(p.name) || unknownTool(p.name)) return undefined;
	if (!findTool(p.name)?.annotations.readOnlyHint) return undefined;
	const args = p.arguments as { wait_ms?: unknown } | undefined;
	if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
		return undefined;
	if (args?.wait_ms !== undefined && args.wait_ms !== 0) return undefined;
	if (p._meta?.progressToken !== undefined) return undefined;
	// What the SDK would refuse (415, 406) it still refuses.
	if (!(headers.get("content-type") ?? "").includes("application/json")) return undefined;
	if (!(headers.get("accept") ?? "").includes("application/json")) return undefined;
	const version = headers.get("mcp-protocol-version");
	if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
	return { id: m.id, name: p.name, args: args as Record<string, unknown> | undefined };
}

/**
 * Makes the call and answers it; the client going away aborts it. A notifications/cancelled for it
 * is not looked for: a read is short and bounded, and the spec lets a receiver finish what it was
 * asked (the client ignores an answer it cancelled).
 */
export async function answerDirectly(
	call: Caller,
	d: Direct,
	o: { principal: Principal; inflight: InFlight; signal: AbortSignal; sessionId: string },
): Promise<Response> {
	const result = await callTool(call, {
		name: d.name,
		args: d.args,
		principal: o.principal,
		transport: "http",
		signal: o.signal,
		progressToken: undefined,
		notify: async () => {},
		inflight: o.inflight,
	});
	return Response.json({ jsonrpc: "2.0", id: d.id, result }, { headers: { "mcp-session-id": o.sessionId } });
}
