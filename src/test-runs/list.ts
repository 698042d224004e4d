// test.list: the operator's list of recorded test runs, newest first, of one proposal (which must
// exist) or of all; what the dashboard shows beside a proposal's revisions.
import { requireProposal } from "../handlers/records.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

export async function list(tx: Tx, a: Args<"test.list">) {
	if (a.proposal_id !== undefined) await requireProposal(tx, a.proposal_id);
	const filter = { proposal_id: a.proposal_id, status: a.status };
	return { test_runs: await tx.testRuns.list(filter, a.limit ?? 200) };
}
