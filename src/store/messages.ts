// Messages, their readers, and what was promoted from them. A message is stored once and never
// changed; reading it is a row of its own per reader, so delivery and read stay distinct.
import type { MessageRecord, PromotionRecord } from "../vocabulary/records.ts";
import type { PromotionKind } from "../vocabulary/statuses.ts";
import type { Conn, Params } from "./db.ts";

const COLUMNS = "m.id, m.sender_id, m.to_agent_id, m.channel, m.thread_id, m.body_md, m.created_at";
/** A message as `reader` sees it: with when it read it. */
const AS_READ_BY = `SELECT ${COLUMNS}, r.read_at FROM messages m
	LEFT JOIN message_reads r ON r.message_id = m.id AND r.reader_id = ?`;
const PROMOTION_COLUMNS = "id, message_id, kind, task_id, decision_id, promoted_by, created_at";

/** A page position: messages and promotions sort by (created_at, id). */
export interface Position {
	created_at: string;
	id: string;
}

export interface ChannelSummary {
	channel: string;
	message_count: number;
	last_message_at: string;
}

export const messageQueries = (c: Conn) => ({
	async get(id: string, reader: string): Promise<MessageRecord | undefined> {
		return c.get<MessageRecord>(`${AS_READ_BY} WHERE m.id = ?`, reader, id);
	},

	async insert(m: Omit<MessageRecord, "created_at" | "read_at">, now: string): Promise<MessageRecord> {
		c.run(
			`INSERT INTO messages (id, sender_id, to_agent_id, channel, thread_id, body_md, created_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?)`,
			m.id,
			m.sender_id,
			m.to_agent_id,
			m.channel,
			m.thread_id,
			m.body_md,
			now,
		);
		return { ...m, created_at: now, read_at: null };
	},

	/** Messages addressed to `reader`, oldest first, after `from`; only unread ones when asked. */
	async inbox(reader: string, unreadOnly: boolean, from: Position | undefined, limit: number) {
		const params: Params = [reader, reader];
		let clause = "WHERE m.to_agent_id = ?";
		if (unreadOnly) clause += " AND r.read_at IS NULL";
		if (from) {
			clause += " AND (m.created_at, m.id) > (?, ?)";
			params.push(from.created_at, from.id);
		}
		return c.all<MessageRecord>(
			`${AS_READ_BY} ${clause} ORDER BY m.created_at, m.id LIMIT ?`,
			...params,
			limit,
		);
	},

	async unreadCount(reader: string): Promise<number> {
		return (
			c.get<{ n: number }>(
				`SELECT count(*) AS n FROM messages m LEFT JOIN message_reads r ON r.message_id = m.id AND r.reader_id = ?
				 WHERE m.to_agent_id = ? AND r.read_at IS NULL`,
				reader,
				reader,
			)?.n ?? 0
		);
	},

	/** Records that `reader` read these messages; a message read before keeps its first time. */
	async markRead(ids: readonly string[], reader: string, now: string): Promise<number> {
		let marked = 0;
		for (const id of ids) {
			marked += c.run(
				"INSERT OR IGNORE INTO message_reads (message_id, reader_id, read_at) VALUES (?, ?, ?)",
				id,
				reader,
				now,
			).changes;
		}
		return marked;
	},

	/** Channels by name, after `from` (a name), at most `limit`. */
	async channels(from: string | undefined, limit: number): Promise<ChannelSummary[]> {
		return c.all<ChannelSummary>(
			`SELECT channel, count(*) AS message_count, max(created_at) AS last_message_at FROM messages
			 WHERE channel IS NOT NULL AND channel > ? GROUP BY channel ORDER BY channel LIMIT ?`,
			from ?? "",
			limit,
		);
	},

	/** A channel exists once its first message does. */
	async hasChannel(channel: string): Promise<boolean> {
		return (
			c.get<{ one: number }>("SELECT 1 AS one FROM messages WHERE channel = ? LIMIT 1", channel) !== undefined
		);
	},

	/** The newest messages to anyone or any channel, newest first, as `reader` sees them. */
	async newest(reader: string, limit: number): Promise<MessageRecord[]> {
		return c.all<MessageRecord>(`${AS_READ_BY} ORDER BY m.created_at DESC, m.id DESC LIMIT ?`, reader, limit);
	},

	/** Every channel's name, for a did-you-mean. */
	async channelNames(): Promise<string[]> {
		return c
			.all<{ channel: string }>(
				"SELECT DISTINCT channel FROM messages WHERE channel IS NOT NULL ORDER BY channel",
			)
			.map((r) => r.channel);
	},

	async channelMessages(channel: string, reader: string, from: Position | undefined, limit: number) {
		const params: Params = [reader, channel];
		let clause = "WHERE m.channel = ?";
		if (from) {
			clause += " AND (m.created_at, m.id) > (?, ?)";
			params.push(from.created_at, from.id);
		}
		return c.all<MessageRecord>(
			`${AS_READ_BY} ${clause} ORDER BY m.created_at, m.id LIMIT ?`,
			...params,
			limit,
		);
	},

	async promote(p: Omit<PromotionRecord, "created_at">, now: string): Promise<PromotionRecord> {
		return c.get<PromotionRecord>(
			`INSERT INTO promotions (id, message_id, kind, task_id, decision_id, promoted_by, created_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${PROMOTION_COLUMNS}`,
			p.id,
			p.message_id,
			p.kind,
			p.task_id,
			p.decision_id,
			p.promoted_by,
			now,
		) as PromotionRecord;
	},

	async promotions(
		filter: { message_id?: string; kind?: PromotionKind },
		from: Position | undefined,
		limit: number,
	) {
		const where: string[] = [];
		const params: Params = [];
		for (const column of ["message_id", "kind"] as const) {
			const value = filter[column];
			if (value !== undefined) {
				where.push(`${column} = ?`);
				params.push(value);
			}
		}
		if (from) {
			where.push("(created_at, id) > (?, ?)");
			params.push(from.created_at, from.id);
		}
		const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
		return c.all<PromotionRecord>(
			`SELECT ${PROMOTION_COLUMNS} FROM promotions ${clause} ORDER BY created_at, id LIMIT ?`,
			...params,
			limit,
		);
	},
});
