import type { VoteRecord } from "../vocabulary/records.ts";
import type { Vote } from "../vocabulary/statuses.ts";
import type { Conn } from "./db.ts";

const COLUMNS =
	"id, proposal_id, agent_id, vote, confidence, reason_md, patch_revision, revision, created_at, updated_at";

export interface CastVote {
	id: string;
	proposal_id: string;
	agent_id: string;
	vote: Vote;
	confidence: number | null;
	reason_md: string;
	patch_revision: number;
}

export const voteQueries = (c: Conn) => ({
	async byAgent(proposalId: string, agentId: string): Promise<VoteRecord | undefined> {
		return c.get<VoteRecord>(
			`SELECT ${COLUMNS} FROM votes WHERE proposal_id = ? AND agent_id = ?`,
			proposalId,
			agentId,
		);
	},

	/** One vote per agent per proposal: a new one replaces the old (same id, next record revision). */
	async cast(v: CastVote, now: string): Promise<VoteRecord> {
		return c.get<VoteRecord>(
			`INSERT INTO votes (id, proposal_id, agent_id, vote, confidence, reason_md, patch_revision, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (proposal_id, agent_id) DO UPDATE SET vote = excluded.vote, confidence = excluded.confidence,
			   reason_md = excluded.reason_md, patch_revision = excluded.patch_revision, revision = revision + 1,
			   updated_at = excluded.updated_at
			 RETURNING ${COLUMNS}`,
			v.id,
			v.proposal_id,
			v.agent_id,
			v.vote,
			v.confidence,
			v.reason_md,
			v.patch_revision,
			now,
			now,
		) as VoteRecord;
	},

	/** One page, oldest first: the votes after `after` (a cursor's key), at most `limit`. */
	async page(
		proposalId: string,
		after: { created_at: string; id: string } | undefined,
		limit: number,
	): Promise<VoteRecord[]> {
		return after === undefined
			? c.all<VoteRecord>(
					`SELECT ${COLUMNS} FROM votes WHERE proposal_id = ? ORDER BY created_at, id LIMIT ?`,
					proposalId,
					limit,
				)
			: c.all<VoteRecord>(
					`SELECT ${COLUMNS} FROM votes WHERE proposal_id = ? AND (created_at, id) > (?, ?)
					 ORDER BY created_at, id LIMIT ?`,
					proposalId,
					after.created_at,
					after.id,
					limit,
				);
	},

	async list(proposalId: string): Promise<VoteRecord[]> {
		return c.all<VoteRecord>(
			`SELECT ${COLUMNS} FROM votes WHERE proposal_id = ? ORDER BY created_at, id`,
			proposalId,
		);
	},
});
