// The shipped migrations are literal SQL: their CHECK constraints, as a new database has them in
// sqlite_master, must list exactly today's status sets. A status added to a list without a
// migration that changes the table fails here, not in a user's database.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import * as V from "../../src/vocabulary/statuses.ts";
import { tempDir } from "../_helpers/helpers.ts";

/** Table and column → the live list its CHECK must hold. */
const EXPECTED: Record<string, readonly string[]> = {
	"runs.status": V.RUN_STATUSES,
	"tasks.status": V.TASK_STATUSES,
	"tasks.risk": V.RISKS,
	"memory_entries.status": V.MEMORY_STATUSES,
	"claims.claim_type": V.CLAIM_TYPES,
	"claims.status": V.CLAIM_STATUSES,
	"proposals.risk": V.RISKS,
	"proposals.status": V.PROPOSAL_STATUSES,
	"votes.vote": V.VOTES,
	"human_approvals.status": V.APPROVAL_STATUSES,
	"security_reviews.status": V.REVIEW_STATUSES,
	"test_runs.status": V.TEST_RUN_STATUSES,
	"turns.status": V.TURN_STATUSES,
	"sessions.status": V.SESSION_STATUSES,
	"test_evidence.outcome": V.TEST_OUTCOMES,
	"decisions.status": V.DECISION_STATUSES,
	"peer_requests.status": V.REQUEST_STATUSES,
	"promotions.kind": V.PROMOTION_KINDS,
};

test("every CHECK of a status column in a new database lists exactly the live status set", () => {
	const path = join(tempDir("rt-migrations-"), "rt.db");
	openStore(path).close();
	const db = new Database(path, { readonly: true });
	const tables = db
		.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
		.all();
	db.close();
	const found: Record<string, string[]> = {};
	for (const { name, sql } of tables) {
		for (const m of sql.matchAll(/\b(\w+) TEXT NOT NULL(?: DEFAULT '\w+')? CHECK \(\1 IN \(([^)]*)\)\)/g)) {
			const key = `${name}.${m[1]}`;
			if (key in EXPECTED)
				found[key] = [...(m[2] as string).matchAll(/'([^']*)'/g)].map((v) => v[1] as string);
		}
	}
	expect(found).toEqual(Object.fromEntries(Object.entries(EXPECTED).map(([k, v]) => [k, [...v]])));
});
