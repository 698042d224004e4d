// What `roundtable resume` adds to an agent's briefing: the session it comes back to and the claims
// the resume suspended because their resource changed since they were taken.

import type { Tx } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";
import type { ClaimRecord } from "../vocabulary/records.ts";
import type { Briefing } from "./build.ts";

export type ResumeBriefing = Briefing & { session: SessionRow; suspended_claims: ClaimRecord[] };

/** The claims with these ids, by resource then id (the ids the resume's reconcile suspended). */
export async function claimsById(tx: Tx, ids: readonly string[], now: string): Promise<ClaimRecord[]> {
	const claims: ClaimRecord[] = [];
	for (const id of ids) {
		const c = await tx.claims.get(id, now);
		if (c) claims.push(c);
	}
	return claims.sort((a, b) => a.resource_id.localeCompare(b.resource_id) || a.id.localeCompare(b.id));
}
