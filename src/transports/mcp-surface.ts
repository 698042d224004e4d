// What both eras of MCP answer alike (./mcp-server.ts for 2025-11-25, ./mcp-modern.ts for
// 2026-07-28): a tools/call made into the one dispatcher, with its progress and its result's shape;
// which names are no tool of the MCP surface; and the resources' list, templates and contents.
import type { CallContext, Caller, Principal, Transport } from "../context.ts";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { asToolError, type ToolError } from "../errors.ts";
import { AGENT_TOOLS, findTool } from "../registry/index.ts";
import {
	INBOX_URI,
	parseUri,
	type Resource,
	readResource,
	runEventsUri,
} from "../subscriptions/resources.ts";
import { VERSION } from "../version.ts";
import type { InFlight } from "./inflight.ts";

/** Who answers, in both eras. */
export const SERVER_INFO = { name: "roundtable", title: "Roundtable", version: VERSION };
export const INSTRUCTIONS =
	"Roundtable coordinates agents on one repository. Start with table.get_state, claim before you propose, and follow table.watch with after_event_id.";

/** How long a client may keep a tools/list answer: the list changes only with a new program. */
export const TOOLS_TTL_MS = 3_600_000;

/** The JSON-RPC code for an unknown tool (and, in the new era, an unknown resource). */
export const INVALID_PARAMS = -32602;

/**
 * Why `name` is no tool an MCP client may call (operator and internal tools are not part of the MCP
 * surface: to a client they do not exist), or undefined when it is one. A role's call to an agent
 * tool it may not use is refused in call() instead, where it is recorded.
 */
export function unknownTool(name: string): { message: string; data?: { did_you_mean: string } } | undefined {
	if (findTool(name)?.visibility === "agent") return undefined;
	const near = didYouMean(
		name,
		AGENT_TOOLS.map((t) => t.name),
	);
	return {
		message: `unknown tool ${quoted(String(name))}${suggestion(near)}`,
		...(near && { data: { did_you_mean: near } }),
	};
}

type Notify = (n: { method: "notifications/progress"; params: Record<string, unknown> }) => Promise<void>;

/**
 * One tools/call: made as `principal`, counted in flight, its progress sent where the client asked
 * for it (a progress token). A tool's failure is an `isError` result carrying {error}, and no
 * structuredContent: SDK clients check structuredContent against the outputSchema even then.
 */
export async function callTool(
	call: Caller,
	o: {
		name: string;
		args: Record<string, unknown> | undefined;
		principal: Principal;
		transport: Transport;
		signal: AbortSignal;
		progressToken: string | number | undefined;
		notify: Notify;
		inflight: InFlight;
	},
) {
	const ctx: CallContext = {
		principal: o.principal,
		transport: o.transport,
		signal: o.signal,
		progress: (progress, total, message) => {
			if (o.progressToken === undefined) return;
			void o
				.notify({
					method: "notifications/progress",
					params: {
						progressToken: o.progressToken,
						progress,
						...(total !== undefined && { total }),
						...(message !== undefined && { message }),
					},
				})
				.catch(() => {});
		},
	};
	try {
		const result = await o.inflight.track(call(o.name, o.args ?? {}, ctx));
		return {
			content: [{ type: "text" as const, text: JSON.stringify(result) }],
			structuredContent: result as Record<string, unknown>,
		};
	} catch (err) {
		return {
			isError: true,
			content: [{ type: "text" as const, text: JSON.stringify({ error: asToolError(err).toJSON() }) }],
		};
	}
}

const JSON_TYPE = "application/json";

/** A read-only context for the resource methods, as the caller. */
export const resourceContext = (
	principal: Principal,
	transport: Transport,
	signal: AbortSignal,
): CallContext => ({
	principal,
	transport,
	signal,
	progress: () => {},
});

/** The caller's inbox, and each active run's events. */
export async function listResources(call: Caller, ctx: CallContext) {
	const state = (await call("table.get_state", {}, ctx)) as {
		runs: { id: string; goal: string; status: string }[];
	};
	return [
		{ uri: INBOX_URI, name: "inbox", title: "Your inbox", mimeType: JSON_TYPE },
		...state.runs
			.filter((r) => r.status === "active")
			.map((r) => ({
				uri: runEventsUri(r.id),
				name: `${r.id} events`,
				title: r.goal || r.id,
				mimeType: JSON_TYPE,
			})),
	];
}

export const RESOURCE_TEMPLATES = [
	{ uriTemplate: "roundtable://runs/{run_id}/events", name: "run events", mimeType: JSON_TYPE },
	{ uriTemplate: "roundtable://requests/{request_id}", name: "peer request", mimeType: JSON_TYPE },
];

/**
 * A resource's contents as the caller reads them; `missing` answers a URI that names none of ours,
 * `failed` a read the tool behind it refused.
 */
export async function readContents(
	call: Caller,
	uri: string,
	ctx: CallContext,
	errors: { missing: (uri: string) => Error; failed: (e: ToolError) => Error },
) {
	const r: Resource | undefined = parseUri(uri);
	if (!r) throw errors.missing(uri);
	try {
		const content = await readResource(call, r, ctx);
		return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(content) }] };
	} catch (err) {
		throw errors.failed(asToolError(err));
	}
}
