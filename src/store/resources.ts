import type { ResourceRecord } from "../vocabulary/records.ts";
import type { Conn, Params } from "./db.ts";

const COLUMNS =
	"id, type, path, symbol, language, start_line, end_line, current_hash, revision, created_at, updated_at";

export type ResourceFields = Omit<ResourceRecord, "revision" | "created_at" | "updated_at">;

/** `%` and `_` are wildcards to LIKE; a search for them means the characters themselves. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const resourceQueries = (c: Conn) => ({
	async get(id: string): Promise<ResourceRecord | undefined> {
		return c.get<ResourceRecord>(`SELECT ${COLUMNS} FROM resources WHERE id = ?`, id);
	},

	/** Inserts the resource, or brings a known one up to date (a new revision only when something changed). */
	async upsert(r: ResourceFields, now: string): Promise<ResourceRecord> {
		return (
			c.get<ResourceRecord>(
				`INSERT INTO resources (id, type, path, symbol, language, start_line, end_line, current_hash, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (id) DO UPDATE SET type = excluded.type, path = excluded.path, symbol = excluded.symbol,
			   language = excluded.language, start_line = excluded.start_line, end_line = excluded.end_line,
			   current_hash = excluded.current_hash, revision = revision + 1, updated_at = excluded.updated_at
			 WHERE (type, path, symbol, language, start_line, end_line, current_hash) IS NOT
			   (excluded.type, excluded.path, excluded.symbol, excluded.language, excluded.start_line, excluded.end_line, excluded.current_hash)
			 RETURNING ${COLUMNS}`,
				r.id,
				r.type,
				r.path,
				r.symbol,
				r.language,
				r.start_line,
				r.end_line,
				r.current_hash,
				now,
				now,
			) ?? ((await this.get(r.id)) as ResourceRecord)
		);
	},

	async setHash(id: string, hash: string, now: string): Promise<void> {
		c.run(
			"UPDATE resources SET current_hash = ?, revision = revision + 1, updated_at = ? WHERE id = ? AND current_hash IS NOT ?",
			hash,
			now,
			id,
			hash,
		);
	},

	/** Case-insensitive substring search over id, type, path, symbol and language, in id order. */
	async search(q: {
		query: string;
		type?: string;
		after?: string;
		limit: number;
	}): Promise<ResourceRecord[]> {
		const like = `%${likeEscape(q.query.toLowerCase())}%`;
		const where = [
			"(lower(id) LIKE ?1 ESCAPE '\\' OR lower(type) LIKE ?1 ESCAPE '\\' OR lower(coalesce(path, '')) LIKE ?1 ESCAPE '\\' OR lower(coalesce(symbol, '')) LIKE ?1 ESCAPE '\\' OR lower(coalesce(language, '')) LIKE ?1 ESCAPE '\\')",
		];
		const params: Params = [like];
		if (q.type !== undefined) {
			where.push(`type = ?${params.length + 1}`);
			params.push(q.type);
		}
		if (q.after !== undefined) {
			where.push(`id > ?${params.length + 1}`);
			params.push(q.after);
		}
		return c.all<ResourceRecord>(
			`SELECT ${COLUMNS} FROM resources WHERE ${where.join(" AND ")} ORDER BY id LIMIT ?${params.length + 1}`,
			...params,
			q.limit,
		);
	},
});
