// What Roundtable offers as MCP resources, each a view a tool already gives, read through call() as
// the caller (so its rights are the tool's): a run's events (table.watch), the caller's inbox
// (message.inbox), and one peer request with its answers (peer.wait, not waiting). Their URIs are
// stable; a subscription to one hears of each event that changes it (./hub.ts).
import type { CallContext, Caller, Principal } from "../context.ts";
import type { EventRecord } from "../vocabulary/records.ts";

export type Resource =
	| { kind: "run"; runId: string; after: number }
	| { kind: "inbox" }
	| { kind: "request"; requestId: string };

const ID = "[A-Za-z0-9][A-Za-z0-9._:-]{0,127}";
const RUN = new RegExp(`^roundtable://runs/(${ID})/events(?:\\?after=(\\d{1,15}))?$`);
const REQUEST = new RegExp(`^roundtable://requests/(${ID})$`);
export const INBOX_URI = "roundtable://inbox";

export const runEventsUri = (runId: string) => `roundtable://runs/${runId}/events`;
export const requestUri = (requestId: string) => `roundtable://requests/${requestId}`;

/** The resource a URI names, or undefined when it names none of ours. */
export function parseUri(uri: string): Resource | undefined {
	if (uri === INBOX_URI) return { kind: "inbox" };
	const run = RUN.exec(uri);
	if (run) return { kind: "run", runId: run[1] as string, after: Number(run[2] ?? 0) };
	const request = REQUEST.exec(uri);
	if (request) return { kind: "request", requestId: request[1] as string };
	return undefined;
}

/** What a subscription stands for: a run's events and a request are the same for everyone; an inbox is its caller's. */
export const subscriptionUri = (r: Resource) =>
	r.kind === "run" ? runEventsUri(r.runId) : r.kind === "request" ? requestUri(r.requestId) : INBOX_URI;

/** Whose inbox: an agent's own, or the operator's (what message.inbox reads for each). */
export const inboxOf = (p: Principal) => (p.kind === "agent" || p.kind === "chair" ? p.agent_id : "operator");

/** The resource's content now, read as the caller: a tool's answer, or its error (thrown). */
export function readResource(call: Caller, r: Resource, ctx: CallContext): Promise<object> {
	switch (r.kind) {
		case "run":
			return call("table.watch", { run_id: r.runId, after_event_id: r.after, limit: 200 }, ctx);
		case "inbox":
			return call("message.inbox", {}, ctx);
		case "request":
			return call("peer.wait", { request_id: r.requestId, wait_ms: 0 }, ctx);
	}
}

/**
 * The subscriptions an event changes: its run's events; the request it is about; and the inboxes
 * it reaches (a message to an agent, a request to its assignee, a decision for the operator, a
 * reader marking its own read).
 */
export function touchedBy(e: EventRecord): { uri: string; inbox?: string }[] {
	const p = e.payload as Record<string, unknown>;
	const out: { uri: string; inbox?: string }[] = [];
	if (e.run_id !== null) out.push({ uri: runEventsUri(e.run_id) });
	if (typeof p.request_id === "string") out.push({ uri: requestUri(p.request_id) });
	const inbox =
		e.type === "message.posted"
			? p.to_agent_id
			: e.type.startsWith("peer.")
				? p.assignee_id
				: e.type.startsWith("approval.")
					? "operator"
					: e.type === "message.read"
						? e.actor_id
						: undefined;
	if (typeof inbox === "string") out.push({ uri: INBOX_URI, inbox });
	return out;
}
