// Capabilities: 32 random bytes an agent presents as its bearer token. Only their SHA-256 is
// stored (with the session they open); the token itself lives in the process that minted it and
// in the agent's environment, never in a row, an event, an argument or a message.
import { randomBytes } from "node:crypto";
import type { AgentPrincipal } from "../context.ts";
import { sha256 } from "../domain/canonical.ts";
import type { Store } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";
import { nowIso } from "../vocabulary/ids.ts";

/** A fresh capability, base64url (43 characters). */
export const newCapability = (): string => randomBytes(32).toString("base64url");

/** What is stored of a capability. */
export const capabilityHash = (capability: string): string => sha256(capability);

const SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The caller a minted session's capability makes. */
export function principalOf(s: SessionRow): AgentPrincipal {
	return {
		kind: "agent",
		agent_id: s.agent_id,
		role: s.role ?? "",
		session_id: s.id,
		...(s.expires_at !== null && { expires_at: s.expires_at }),
		...(s.task_id !== null && { task_id: s.task_id }),
		...(s.proposal_id !== null && { proposal_id: s.proposal_id }),
		...(s.run_id !== null && { run_id: s.run_id }),
	};
}

/** Why a minted session's capability no longer authenticates anyone; undefined while it does. */
export function lapsed(s: SessionRow, now: string): string | undefined {
	if (s.revoked_at !== null) return `the capability of session ${s.id} was revoked at ${s.revoked_at}`;
	if (s.expires_at !== null && s.expires_at <= now)
		return `the capability of session ${s.id} expired at ${s.expires_at}`;
	return undefined;
}

/**
 * The agent a presented capability makes the caller; undefined when it is unknown, expired or
 * revoked (all one answer to the presenter: unauthenticated).
 */
export async function resolveCapability(
	store: Store,
	presented: string,
): Promise<AgentPrincipal | undefined> {
	if (!SHAPE.test(presented)) return undefined;
	const session = await store.withTransaction("read", (tx) =>
		tx.sessions.byCapability(capabilityHash(presented)),
	);
	if (!session || lapsed(session, nowIso()) !== undefined) return undefined;
	return principalOf(session);
}
