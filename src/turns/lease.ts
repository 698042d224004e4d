// A turn's lease: when a scheduled or started turn runs out, whether it has, and the event that ends it.
import type { Tx } from "../store/index.ts";
import type { TurnRow } from "../store/turns.ts";

export const leaseEnd = (now: string, seconds: number) =>
	new Date(Date.parse(now) + seconds * 1000).toISOString();

/** A scheduled or started turn whose lease ran out, whether or not the Chair's sweep recorded it yet. */
export const leaseRanOut = (t: TurnRow, now: string) =>
	(t.status === "scheduled" || t.status === "started") &&
	t.lease_expires_at !== null &&
	t.lease_expires_at <= now;

/** Ends a turn whose lease ran out: `agent.turn_expired`. The Chair's sweep and the turn tools share it. */
export async function expireTurn(tx: Tx, t: TurnRow, now: string, actor: string): Promise<TurnRow> {
	const phase = t.status === "started" ? "started" : "scheduled";
	const ended = await tx.turns.end(t.request_event_id, "expired", now);
	await tx.events.append(
		{
			type: "agent.turn_expired",
			actor_id: actor,
			run_id: t.run_id,
			payload: {
				agent_id: t.agent_id,
				request_event_id: t.request_event_id,
				phase,
				lease_expires_at: t.lease_expires_at,
			},
		},
		now,
	);
	return ended;
}
