// Refused calls become `call.denied` events, at most one a minute for each (session, tool, reason):
// an agent retrying a refused call in a loop must not flood the audit trail. Refusals inside the
// minute are counted and folded into the next event's `count`, which session.record_denial appends.
import type { AgentPrincipal } from "../context.ts";
import { clip } from "../domain/text.ts";
import type { ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import type { Tx } from "../store/index.ts";

export const DENIAL_WINDOW_MS = 60_000;
/** Windows remembered at most; the oldest are forgotten first (their folded refusals then go unreported). */
const MAX_WINDOWS = 10_000;

interface Window {
	until: number;
	/** Refusals since the last event. */
	folded: number;
}

export interface Denial {
	agent_id: string;
	session_id: string;
	tool: string;
	code: string;
	reason: string;
	/** Refusals this event stands for: itself and those folded in since the last. */
	count: number;
}

export class Denials {
	private readonly windows = new Map<string, Window>();

	/** The event to record for this refusal, or undefined when it folds into the next one. */
	next(who: AgentPrincipal, tool: string, err: ToolError, now = Date.now()): Denial | undefined {
		const reason = clip(err.message, 500);
		const key = `${who.session_id}\u0000${tool}\u0000${reason}`;
		const open = this.windows.get(key);
		if (open && now < open.until) {
			open.folded++;
			return undefined;
		}
		this.windows.delete(key);
		if (this.windows.size >= MAX_WINDOWS) this.windows.delete(this.windows.keys().next().value as string);
		this.windows.set(key, { until: now + DENIAL_WINDOW_MS, folded: 0 });
		return {
			agent_id: who.agent_id,
			session_id: who.session_id,
			tool: clip(tool),
			code: err.code,
			reason,
			count: 1 + (open?.folded ?? 0),
		};
	}
}

/** session.record_denial: the `call.denied` event for a denial `Denials.next` let through. */
export async function recordDenial(tx: Tx, a: Denial, env: Env) {
	const event = await tx.events.append(
		{
			type: "call.denied",
			actor_id: a.agent_id,
			payload: {
				tool: a.tool,
				code: a.code,
				reason: a.reason,
				agent_id: a.agent_id,
				session_id: a.session_id,
				count: a.count,
			},
		},
		env.now,
	);
	return { event };
}
