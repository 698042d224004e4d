// `subscriptions/listen`, the 2026-07-28 era's push (basic/patterns/subscriptions): one request that
// stays open as an event stream. Served here rather than by the SDK's own router, which publishes
// every update to every stream that names its URI: ours must never tell a caller of what it may not
// read. Each URI asked for is read first as the caller (./hub.ts); only those it may read are
// acknowledged, and only their updates follow, each carrying the subscription's id.
import type { CallContext } from "../context.ts";
import { type Hub, type ListKind, SUBSCRIPTIONS_PER_SESSION } from "./hub.ts";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** A comment line this often keeps proxies and idle timers from cutting a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

type Id = string | number;

export interface ListenRequest {
	id: Id;
	params?: {
		notifications?: {
			toolsListChanged?: unknown;
			promptsListChanged?: unknown;
			resourceSubscriptions?: unknown;
		};
	};
}

/** Whether a new-era request is a listen this module serves (a well-formed one). */
export function isListen(body: unknown): body is ListenRequest {
	const m = body as { method?: unknown; id?: unknown };
	return m?.method === "subscriptions/listen" && (typeof m.id === "string" || typeof m.id === "number");
}

const sse = (message: object) => `data: ${JSON.stringify(message)}\n\n`;

/**
 * The stream for one listen: the acknowledgement (what is honoured), then an update per event that
 * changes a subscribed resource, and word of each change to a list it asked about that the server
 * announces (`announced`, from its capabilities), until the client closes it (`ctx.signal`), or the
 * server stops (`closing`) or the caller's capability ends, either of which ends it with the
 * listen's own answer.
 */
export async function listen(
	hub: Hub,
	m: ListenRequest,
	ctx: CallContext,
	closing: AbortSignal,
	announced: ReadonlySet<ListKind> = new Set(),
): Promise<Response> {
	const wanted = m.params?.notifications ?? {};
	const asked = Array.isArray(wanted.resourceSubscriptions)
		? [...new Set(wanted.resourceSubscriptions.filter((u): u is string => typeof u === "string"))]
		: [];
	if (asked.length > SUBSCRIPTIONS_PER_SESSION)
		return Response.json(
			{
				jsonrpc: "2.0",
				id: m.id,
				error: {
					code: -32602,
					message: `a listen may name at most ${SUBSCRIPTIONS_PER_SESSION} resources; it named ${asked.length}`,
					data: { code: "resource_exhausted", limit: SUBSCRIPTIONS_PER_SESSION },
				},
			},
			{ status: 200 },
		);
	const meta = { [SUBSCRIPTION_ID]: m.id };
	const session = {};
	const encoder = new TextEncoder();
	const pending: string[] = [];
	let push: (text: string) => void = (text) => pending.push(text);
	// Updates may come while the reads below still run: they wait behind the acknowledgement.
	const honoured: string[] = [];
	for (const uri of asked) {
		try {
			await hub.subscribe(session, uri, ctx, (u, eventId) =>
				push(
					sse({
						jsonrpc: "2.0",
						method: "notifications/resources/updated",
						params: { _meta: { ...meta, "roundtable/event_id": eventId }, uri: u },
					}),
				),
			);
			honoured.push(uri);
		} catch {
			// Not ours, or not the caller's to read: left out of what is acknowledged, and never heard of.
		}
	}
	const lists = new Set<ListKind>();
	if (wanted.toolsListChanged === true && announced.has("tools")) lists.add("tools");
	if (wanted.promptsListChanged === true && announced.has("prompts")) lists.add("prompts");
	hub.hearLists(session, lists, (list) =>
		push(sse({ jsonrpc: "2.0", method: `notifications/${list}/list_changed`, params: { _meta: meta } })),
	);
	const notifications = {
		...(lists.has("tools") && { toolsListChanged: true }),
		...(lists.has("prompts") && { promptsListChanged: true }),
		...(asked.length > 0 && { resourceSubscriptions: honoured }),
	};
	let timer: ReturnType<typeof setInterval> | undefined;
	const end = () => {
		clearInterval(timer);
		hub.drop(session);
	};
	const body = new ReadableStream<Uint8Array>({
		start(controller) {
			push = (text) => {
				try {
					controller.enqueue(encoder.encode(text));
				} catch {
					end(); // the stream is gone
				}
			};
			push(
				sse({
					jsonrpc: "2.0",
					method: "notifications/subscriptions/acknowledged",
					params: { _meta: meta, notifications },
				}),
			);
			for (const text of pending.splice(0)) push(text);
			timer = setInterval(() => push(": keep-alive\n\n"), KEEP_ALIVE_MS);
			const stop = () => {
				push(sse({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", _meta: meta } }));
				end();
				try {
					controller.close();
				} catch {
					// already closed
				}
			};
			ctx.signal.addEventListener("abort", end, { once: true });
			closing.addEventListener("abort", stop, { once: true });
			// Its capability ended: it may read nothing now. A new listen would be refused (401).
			hub.onCapabilityEnd(session, ctx.principal, stop);
		},
		cancel: end,
	});
	return new Response(body, {
		status: 200,
		headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
	});
}
