import { ancestors, isPathType, type Scope } from "../domain/claims.ts";
import type { ClaimRecord } from "../vocabulary/records.ts";
import type { ClaimStatus } from "../vocabulary/statuses.ts";
import type { Conn, Params } from "./db.ts";

const COLUMNS =
	"id, resource_id, resource_type, path, symbol, start_line, end_line, agent_id, task_id, run_id, session_id, claim_type, status, status_reason, base_hash, expires_at, renewed_at, renewable, resume_policy, rationale, revision, created_at, updated_at";

interface ClaimRow extends Omit<ClaimRecord, "renewable"> {
	renewable: number;
}

/** Stored `active` past its expiry reads as `expired`: an expired claim neither blocks nor authorizes. */
const toRecord =
	(now: string) =>
	(r: ClaimRow): ClaimRecord => ({
		...r,
		renewable: r.renewable === 1,
		status: r.status === "active" && r.expires_at <= now ? "expired" : r.status,
	});

export type NewClaim = Omit<
	ClaimRecord,
	"status" | "status_reason" | "renewed_at" | "revision" | "created_at" | "updated_at"
>;

export interface ClaimFilter {
	resource_id?: string;
	agent_id?: string;
	task_id?: string;
	status?: ClaimStatus;
}

/** Where a page of claims ended. */
export interface ClaimPosition {
	created_at: string;
	id: string;
}

/** SQL for a status as callers see it (stored `active` past expiry is `expired`). */
function statusClause(status: ClaimStatus, params: Params, now: string): string {
	if (status === "active") {
		params.push(now);
		return "(status = 'active' AND expires_at > ?)";
	}
	if (status === "expired") {
		params.push(now);
		return "(status = 'expired' OR (status = 'active' AND expires_at <= ?))";
	}
	// Literal, so the partial index of suspended claims (migration 13) serves the watch view's count.
	if (status === "suspended") return "status = 'suspended'";
	params.push(status);
	return "status = ?";
}

export const claimQueries = (c: Conn) => ({
	async get(id: string, now: string): Promise<ClaimRecord | undefined> {
		const row = c.get<ClaimRow>(`SELECT ${COLUMNS} FROM claims WHERE id = ?`, id);
		return row && toRecord(now)(row);
	},

	async insert(n: NewClaim, now: string): Promise<ClaimRecord> {
		const row = c.get<ClaimRow>(
			`INSERT INTO claims (id, resource_id, resource_type, path, symbol, start_line, end_line, agent_id, task_id, run_id,
			 session_id, claim_type, status, base_hash, expires_at, renewable, resume_policy, rationale, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
			n.id,
			n.resource_id,
			n.resource_type,
			n.path,
			n.symbol,
			n.start_line,
			n.end_line,
			n.agent_id,
			n.task_id,
			n.run_id,
			n.session_id,
			n.claim_type,
			n.base_hash,
			n.expires_at,
			n.renewable ? 1 : 0,
			n.resume_policy,
			n.rationale,
			now,
			now,
		) as ClaimRow;
		return toRecord(now)(row);
	},

	async setStatus(id: string, status: ClaimStatus, reason: string | null, now: string): Promise<ClaimRecord> {
		const row = c.get<ClaimRow>(
			`UPDATE claims SET status = ?, status_reason = ?, revision = revision + 1, updated_at = ? WHERE id = ?
			 RETURNING ${COLUMNS}`,
			status,
			reason,
			now,
			id,
		) as ClaimRow;
		return toRecord(now)(row);
	},

	/** A new lease (and, when re-basing a suspended claim, a new base hash and status active). */
	async renew(
		id: string,
		expiresAt: string,
		baseHash: string | undefined,
		now: string,
	): Promise<ClaimRecord> {
		const row = c.get<ClaimRow>(
			`UPDATE claims SET status = 'active', status_reason = NULL, expires_at = ?, renewed_at = ?,
			 base_hash = coalesce(?, base_hash), revision = revision + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
			expiresAt,
			now,
			baseHash ?? null,
			now,
			id,
		) as ClaimRow;
		return toRecord(now)(row);
	},

	/**
	 * Live claims (active, unexpired) that could overlap `scope`, found through the indexes: the same
	 * resource, the same path, directories above it, and (for a directory) everything below it.
	 * The caller applies the exact overlap and mode rules.
	 */
	async liveNear(scope: Scope, now: string): Promise<ClaimRecord[]> {
		// One SELECT per way of overlapping, each on its own index, joined with UNION: written as one
		// WHERE with ORs, the planner preferred the expiry index and walked every live claim.
		const live = `SELECT ${COLUMNS} FROM claims WHERE status = 'active' AND expires_at > ?`;
		const parts = [`${live} AND resource_id = ?`];
		const params: Params = [now, scope.resource_id];
		if (isPathType(scope.resource_type) && scope.path !== null) {
			parts.push(`${live} AND path = ?`);
			params.push(now, scope.path);
			const above = ancestors(scope.path);
			if (above.length > 0) {
				parts.push(
					`${live} AND path IN (${above.map(() => "?").join(", ")}) AND resource_type = 'directory'`,
				);
				params.push(now, ...above);
			}
			if (scope.resource_type === "directory") {
				if (scope.path === "") {
					parts.push(`${live} AND path IS NOT NULL`);
					params.push(now);
				} else {
					// Everything under dir/: the range dir/ ≤ path < dir0 ('0' follows '/').
					parts.push(`${live} AND path >= ? AND path < ?`);
					params.push(now, `${scope.path}/`, `${scope.path}0`);
				}
			}
		}
		return c.all<ClaimRow>(parts.join(" UNION "), ...params).map(toRecord(now));
	},

	async list(
		filter: ClaimFilter,
		from: ClaimPosition | undefined,
		limit: number,
		now: string,
	): Promise<ClaimRecord[]> {
		const where: string[] = [];
		const params: Params = [];
		for (const column of ["resource_id", "agent_id", "task_id"] as const) {
			if (filter[column] !== undefined) {
				where.push(`${column} = ?`);
				params.push(filter[column]);
			}
		}
		if (filter.status !== undefined) where.push(statusClause(filter.status, params, now));
		if (from) {
			where.push("(created_at, id) > (?, ?)");
			params.push(from.created_at, from.id);
		}
		const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
		return c
			.all<ClaimRow>(
				`SELECT ${COLUMNS} FROM claims ${clause} ORDER BY created_at, id LIMIT ?`,
				...params,
				limit,
			)
			.map(toRecord(now));
	},

	/** The agent's active (unexpired) claims, by resource id. */
	/** The live (active, unexpired, or suspended) claims a session took, oldest first. */
	async liveOfSession(sessionId: string, now: string): Promise<ClaimRecord[]> {
		return c
			.all<ClaimRow>(
				`SELECT ${COLUMNS} FROM claims WHERE session_id = ?
				 AND ((status = 'active' AND expires_at > ?) OR status = 'suspended') ORDER BY created_at, id`,
				sessionId,
				now,
			)
			.map(toRecord(now));
	},

	async activeOf(agentId: string, now: string): Promise<ClaimRecord[]> {
		return c
			.all<ClaimRow>(
				`SELECT ${COLUMNS} FROM claims WHERE agent_id = ? AND status = 'active' AND expires_at > ?
				 ORDER BY resource_id, created_at, id`,
				agentId,
				now,
			)
			.map(toRecord(now));
	},

	/** Claims in a live status (active, unexpired, or suspended), for the table. */
	async live(now: string): Promise<ClaimRecord[]> {
		return c
			.all<ClaimRow>(
				`SELECT ${COLUMNS} FROM claims WHERE (status = 'active' AND expires_at > ?) OR status = 'suspended' ORDER BY created_at, id`,
				now,
			)
			.map(toRecord(now));
	},

	async countByStatus(status: ClaimStatus, now: string): Promise<number> {
		const params: Params = [];
		const clause = statusClause(status, params, now);
		return c.get<{ n: number }>(`SELECT count(*) AS n FROM claims WHERE ${clause}`, ...params)?.n ?? 0;
	},

	/** Stored `active` whose lease has run out: what the expiry sweep records as `expired`. */
	async due(now: string): Promise<ClaimRecord[]> {
		return c
			.all<ClaimRow>(
				`SELECT ${COLUMNS} FROM claims WHERE status = 'active' AND expires_at <= ? ORDER BY expires_at, id`,
				now,
			)
			.map((r) => ({ ...toRecord(now)(r), status: "active" as const }));
	},

	/** Live write/exclusive claims with a base hash: the ones a changed resource makes stale. */
	async reconcilable(filter: ClaimFilter, now: string): Promise<ClaimRecord[]> {
		const where = [
			"status = 'active'",
			"expires_at > ?",
			"claim_type IN ('write', 'exclusive')",
			"base_hash <> ''",
		];
		const params: Params = [now];
		for (const column of ["resource_id", "agent_id", "task_id"] as const) {
			if (filter[column] !== undefined) {
				where.push(`${column} = ?`);
				params.push(filter[column]);
			}
		}
		return c
			.all<ClaimRow>(
				`SELECT ${COLUMNS} FROM claims WHERE ${where.join(" AND ")} ORDER BY created_at, id`,
				...params,
			)
			.map(toRecord(now));
	},
});
