import type { MemoryRecord } from "../vocabulary/records.ts";
import type { Conn, Params } from "./db.ts";

const COLUMNS =
	"id, scope, kind, title, body_md, source_event_id, importance, status, stale_reason, task_id, proposal_id, revision, created_at, updated_at";
const M_COLUMNS = COLUMNS.split(", ")
	.map((c) => `m.${c}`)
	.join(", ");

// Title matches weigh most; scope and kind words count more than body words.
const BM25 = "bm25(memory_fts, 5.0, 1.0, 2.0, 2.0)";

export interface MemorySearch {
	/** Words to find; an entry matching more of them ranks higher. The last also matches as a prefix. */
	words: string[];
	scope?: string;
	kind?: string;
	includeStale: boolean;
	limit: number;
}

export interface MemoryDigestFilter {
	scope?: string;
	task_id?: string;
	proposal_id?: string;
	limit: number;
}

/** Letters (code points) a last word needs before it also matches as a prefix: "no" must not find "note". */
const PREFIX_MIN = 3;

/**
 * FTS5 query text, any of the words: each quoted (so no word is read as syntax) and matched as a
 * whole word; the last one also as a prefix, for a query typed as far as it goes ("authent").
 */
function ftsQuery(words: string[]): string {
	return words
		.map((w, i) => {
			const prefix = i === words.length - 1 && [...w].length >= PREFIX_MIN;
			return `"${w.replaceAll('"', '""')}"${prefix ? "*" : ""}`;
		})
		.join(" OR ");
}

export const memoryQueries = (c: Conn) => ({
	async get(id: string): Promise<MemoryRecord | undefined> {
		return c.get<MemoryRecord>(`SELECT ${COLUMNS} FROM memory_entries WHERE id = ?`, id);
	},

	async list(): Promise<MemoryRecord[]> {
		return c.all<MemoryRecord>(
			`SELECT ${COLUMNS} FROM memory_entries ORDER BY importance DESC, created_at, id`,
		);
	},

	async insert(
		e: Omit<MemoryRecord, "status" | "stale_reason" | "revision" | "created_at" | "updated_at">,
		now: string,
	): Promise<MemoryRecord> {
		return c.get<MemoryRecord>(
			`INSERT INTO memory_entries (id, scope, kind, title, body_md, source_event_id, importance, status, task_id,
			 proposal_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?) RETURNING ${COLUMNS}`,
			e.id,
			e.scope,
			e.kind,
			e.title,
			e.body_md,
			e.source_event_id,
			e.importance,
			e.task_id,
			e.proposal_id,
			now,
			now,
		) as MemoryRecord;
	},

	async markStale(id: string, reason: string, now: string): Promise<MemoryRecord> {
		return c.get<MemoryRecord>(
			`UPDATE memory_entries SET status = 'stale', stale_reason = ?, revision = revision + 1, updated_at = ?
			 WHERE id = ? RETURNING ${COLUMNS}`,
			reason,
			now,
			id,
		) as MemoryRecord;
	},

	async search(q: MemorySearch): Promise<(MemoryRecord & { score: number; snippet: string })[]> {
		const where = ["memory_fts MATCH ?"];
		const params: Params = [ftsQuery(q.words)];
		if (q.scope !== undefined) {
			where.push("m.scope = ?");
			params.push(q.scope);
		}
		if (q.kind !== undefined) {
			where.push("m.kind = ?");
			params.push(q.kind);
		}
		if (!q.includeStale) where.push("m.status = 'active'");
		return c.all(
			`SELECT ${M_COLUMNS}, -${BM25} AS score, snippet(memory_fts, -1, '**', '**', '…', 16) AS snippet
			 FROM memory_fts JOIN memory_entries m ON m.seq = memory_fts.rowid
			 WHERE ${where.join(" AND ")}
			 ORDER BY ${BM25}, m.importance DESC, m.id LIMIT ?`,
			...params,
			q.limit,
		);
	},

	/** Active entries for a digest, most important first. */
	async digest(f: MemoryDigestFilter): Promise<MemoryRecord[]> {
		const where = ["status = 'active'"];
		const params: Params = [];
		if (f.scope !== undefined) {
			where.push("scope = ?");
			params.push(f.scope);
		}
		if (f.task_id !== undefined) {
			where.push("(task_id = ? OR scope = ?)");
			params.push(f.task_id, f.task_id);
		}
		if (f.proposal_id !== undefined) {
			where.push("(proposal_id = ? OR scope = ?)");
			params.push(f.proposal_id, f.proposal_id);
		}
		return c.all<MemoryRecord>(
			`SELECT ${COLUMNS} FROM memory_entries WHERE ${where.join(" AND ")}
			 ORDER BY importance DESC, created_at, id LIMIT ?`,
			...params,
			f.limit,
		);
	},
});
