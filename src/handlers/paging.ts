// Keyset paging for list tools: a page of rows and an opaque cursor to the next.

import { invalidArgument } from "../errors.ts";

type KeyPart = string | number;

/**
 * Keyset paging. The store fetched limit + 1 rows; this returns the page and, when more exist, an
 * opaque cursor holding the sort key of the page's last row.
 */
export function page<T>(
	rows: T[],
	limit: number,
	key: (row: T) => KeyPart[],
): { rows: T[]; next: string | null } {
	if (rows.length <= limit) return { rows, next: null };
	const kept = rows.slice(0, limit);
	return { rows: kept, next: Buffer.from(JSON.stringify(key(kept.at(-1) as T))).toString("base64url") };
}

/** The sort key a cursor holds, checked against the kinds of its parts. */
export function cursorKey(cursor: string, kinds: ("string" | "number")[]): KeyPart[] {
	try {
		const parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
		if (
			Array.isArray(parts) &&
			parts.length === kinds.length &&
			parts.every((p, i) => (kinds[i] === "number" ? Number.isSafeInteger(p) : typeof p === "string"))
		) {
			return parts as KeyPart[];
		}
	} catch {
		// reported below
	}
	throw invalidArgument("argument 'cursor' is not a cursor this tool returned", { field: "cursor" });
}
