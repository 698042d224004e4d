// What the operator reads of headless sessions: the list of live and recent ones, each with the
// last line its agent wrote, and a page of one's transcript. The files are read after the store's
// transaction, never inside one.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import { readLogPage } from "../os/log-page.ts";
import type { Args } from "../registry/index.ts";
import { transcriptPath } from "./paths.ts";
import { requireSession } from "./registration.ts";

/** How much of a transcript's end is searched for its last line, and how much of that line is shown. */
const TAIL_BYTES = 8192;
const LINE_CHARS = 300;

/** A transcript's size and its last non-blank line (null when it has none). */
function lastLine(path: string): { transcript_bytes: number; last_line: string | null } {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		return { transcript_bytes: 0, last_line: null };
	}
	try {
		const size = fstatSync(fd).size;
		const buffer = Buffer.alloc(Math.min(TAIL_BYTES, size));
		const read = readSync(fd, buffer, 0, buffer.length, size - buffer.length);
		const line = buffer
			.subarray(0, read)
			.toString("utf8")
			.split("\n")
			.map((l) => l.trim())
			.filter((l) => l !== "")
			.at(-1);
		return {
			transcript_bytes: size,
			last_line:
				line === undefined ? null : line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line,
		};
	} finally {
		closeSync(fd);
	}
}

export async function list(a: Args<"session.list">, env: Env) {
	const limit = a.limit ?? 50;
	const key = a.cursor === undefined ? undefined : cursorKey(a.cursor, ["string", "string"]);
	const rows = await env.rt.store.withTransaction("read", (tx) =>
		tx.sessions.page(
			a.status ?? "all",
			key && { started_at: key[0] as string, id: key[1] as string },
			limit + 1,
		),
	);
	const { rows: sessions, next } = page(rows, limit, (s) => [s.started_at, s.id]);
	return {
		sessions: sessions.map((s) => ({ ...s, ...lastLine(transcriptPath(env.rt.root, s.id)) })),
		next_cursor: next,
	};
}

export async function transcript(a: Args<"session.transcript">, env: Env) {
	const session = await env.rt.store.withTransaction("read", (tx) => requireSession(tx, a.session_id));
	const p = readLogPage(transcriptPath(env.rt.root, session.id), a.offset, a.max_bytes ?? 65536);
	return {
		session_id: session.id,
		live: session.status !== "ended",
		transcript: p.log,
		offset: p.offset,
		next_offset: p.next_offset,
		transcript_bytes: p.log_bytes,
	};
}
