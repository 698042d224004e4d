// The rules of claims, without I/O: which modes conflict, which resources overlap, what a
// resource's canonical id is, and which status changes are allowed.
import type { ClaimStatus, ClaimType } from "../vocabulary/statuses.ts";

/** Where a claim or resource applies. `path` is repo-relative ("" is the root directory). */
export interface Scope {
	resource_id: string;
	resource_type: string;
	path: string | null;
	symbol: string | null;
	start_line: number | null;
	end_line: number | null;
}

/** The types whose overlap is decided by path; every other type overlaps only by identical id. */
export const PATH_TYPES = ["file", "directory", "symbol"] as const;
export type PathType = (typeof PATH_TYPES)[number];
export const isPathType = (t: string): t is PathType => (PATH_TYPES as readonly string[]).includes(t);

/** Reference §6's matrix: exclusive conflicts with everything, write with write; the rest share. */
export function modesConflict(a: ClaimType, b: ClaimType): boolean {
	return a === "exclusive" || b === "exclusive" || (a === "write" && b === "write");
}

/** Whether `path` is `dir` or lies under it ("" is the root, which holds everything). */
export const inside = (path: string, dir: string) => dir === "" || path === dir || path.startsWith(`${dir}/`);

export function overlaps(a: Scope, b: Scope): boolean {
	if (a.resource_id === b.resource_id) return true;
	if (!isPathType(a.resource_type) || !isPathType(b.resource_type) || a.path === null || b.path === null)
		return false;
	const [x, y] = a.resource_type === "directory" ? [a, b] : [b, a];
	if (x.resource_type === "directory") {
		// A directory overlaps what lies inside it, and a directory that contains it.
		return (
			inside(y.path as string, x.path as string) ||
			(y.resource_type === "directory" && inside(x.path as string, y.path as string))
		);
	}
	if (a.path !== b.path) return false;
	if (a.resource_type === "file" || b.resource_type === "file") return true;
	// Two symbols of one file overlap when their lines do (or, lines unknown, when they are the same symbol).
	if (a.start_line !== null && a.end_line !== null && b.start_line !== null && b.end_line !== null) {
		return a.start_line <= b.end_line && b.start_line <= a.end_line;
	}
	return a.symbol === b.symbol;
}

/** "a/b/c.ts" → ["", "a", "a/b"]: the directories that contain a path. */
export function ancestors(path: string): string[] {
	const parts = path === "" ? [] : path.split("/");
	return parts.map((_, i) => parts.slice(0, i).join("/"));
}

export function canonicalId(type: PathType, path: string, symbol: string | null): string {
	return type === "symbol" ? `symbol:${path}#${symbol}` : `${type}:${path}`;
}

/** The parts a canonical id names, e.g. `symbol:src/a.ts#Foo` → symbol, src/a.ts, Foo. */
export function parseCanonicalId(
	id: string,
): { type: PathType; path: string; symbol: string | null } | undefined {
	const m = /^(file|directory|symbol):(.*)$/.exec(id);
	if (!m) return undefined;
	const type = m[1] as PathType;
	if (type !== "symbol") return { type, path: m[2] as string, symbol: null };
	const hash = (m[2] as string).lastIndexOf("#");
	if (hash <= 0) return undefined;
	return { type, path: (m[2] as string).slice(0, hash), symbol: (m[2] as string).slice(hash + 1) };
}

const NEXT: Record<ClaimStatus, readonly ClaimStatus[]> = {
	active: ["released", "revoked", "expired", "suspended"],
	// A suspended claim comes back on renew once its holder re-bases it on the current content.
	suspended: ["active", "released", "revoked"],
	released: [],
	revoked: [],
	expired: [],
};

export const canMove = (from: ClaimStatus, to: ClaimStatus) => NEXT[from].includes(to);
