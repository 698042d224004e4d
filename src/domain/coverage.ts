// Which resources a proposal affects, and whether claims and resources cover what its patch
// changes (reference §7.2), without I/O.
import { canonicalId, inside, isPathType, parseCanonicalId, type Scope } from "./claims.ts";
import type { PatchFile } from "./patch.ts";

/** The scope a resource id names (lines unknown unless a stored resource gives them). */
export function scopeOfId(id: string): Scope {
	const named = parseCanonicalId(id);
	return {
		resource_id: id,
		resource_type: named?.type ?? "other",
		path: named?.path ?? null,
		symbol: named?.symbol ?? null,
		start_line: null,
		end_line: null,
	};
}

/**
 * The explicit affected resources (deduplicated), plus `file:<path>` for every touched path that no
 * explicit file, symbol or directory entry already covers.
 */
export function mergeAffected(explicit: string[], touched: string[]): string[] {
	const ids = [...new Set(explicit)];
	const scopes = ids.map(scopeOfId);
	for (const path of touched) {
		const covered = scopes.some(
			(s) =>
				s.path !== null &&
				((s.resource_type !== "directory" && s.path === path) ||
					(s.resource_type === "directory" && inside(path, s.path))),
		);
		if (!covered) ids.push(canonicalId("file", path, null));
	}
	return ids.sort();
}

/** Whether a claim's scope contains a resource's scope. */
export function covers(claim: Scope, r: Scope): boolean {
	if (claim.resource_id === r.resource_id) return true;
	if (!isPathType(claim.resource_type) || claim.path === null || r.path === null) return false;
	if (claim.resource_type === "directory") return inside(r.path, claim.path);
	if (claim.path !== r.path || r.resource_type === "directory") return false;
	if (claim.resource_type === "file") return true;
	// A symbol claim covers a symbol within its lines.
	if (r.resource_type !== "symbol") return false;
	if (claim.start_line !== null && claim.end_line !== null && r.start_line !== null && r.end_line !== null) {
		return claim.start_line <= r.start_line && r.end_line <= claim.end_line;
	}
	return claim.symbol === r.symbol;
}

/** The resources no claim covers, by id. */
export function uncovered(resources: Scope[], claims: Scope[]): string[] {
	return resources.filter((r) => !claims.some((c) => covers(c, r))).map((r) => r.resource_id);
}

/**
 * The first change of the patch that the proposal's resources do not cover, described for a human,
 * or undefined when everything is covered: creates, deletes and renames need a file or directory
 * resource; other changes need one, or symbols whose lines contain every changed range.
 */
export function uncoveredChange(files: PatchFile[], resources: Scope[]): string | undefined {
	const wholeFile = (path: string) =>
		resources.some(
			(r) =>
				r.path !== null &&
				((r.resource_type === "file" && r.path === path) ||
					(r.resource_type === "directory" && inside(path, r.path))),
		);
	for (const f of files) {
		const paths = [f.old_path, f.new_path].filter((p): p is string => p !== null);
		if (paths.some(wholeFile)) continue;
		if (f.change !== "modify") {
			const what =
				f.change === "rename" ? `rename ${f.old_path} -> ${f.new_path}` : `${f.change} ${paths[0]}`;
			return `patch operation requires file or directory coverage: ${what}`;
		}
		const path = f.old_path as string;
		const symbols = resources.filter(
			(r): r is Scope & { start_line: number; end_line: number } =>
				r.resource_type === "symbol" && r.path === path && r.start_line !== null && r.end_line !== null,
		);
		if (symbols.length === 0) return `patch touches a file no proposal resource covers: ${path}`;
		// Only the lines really changed count, not the context lines around them: a removed line must
		// lie within a symbol, and an insertion between two of its lines (or in place of removed ones).
		const removedOutside = f.removed.find(
			(line) => !symbols.some((s) => s.start_line <= line && line <= s.end_line),
		);
		if (removedOutside !== undefined) {
			return `patch touches lines outside claimed symbols in ${path} at line ${removedOutside}`;
		}
		// An insertion after a symbol's last line is outside it, unless it replaces that line.
		const within = (s: { start_line: number; end_line: number }, after: number) =>
			s.start_line <= after && (after < s.end_line || (after === s.end_line && f.removed.includes(after)));
		const insertedOutside = f.inserted_after.find((after) => !symbols.some((s) => within(s, after)));
		if (insertedOutside !== undefined) {
			return `patch touches lines outside claimed symbols in ${path}: an insertion after line ${insertedOutside}`;
		}
	}
	return undefined;
}
