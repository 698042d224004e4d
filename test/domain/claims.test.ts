// The claim rules without a database: the mode matrix, overlap of files, directories and symbols,
// canonical ids, and the status machine. (test/claims/claims.test.ts takes them through the tools.)
import { describe, expect, test } from "bun:test";
import {
	ancestors,
	canMove,
	canonicalId,
	modesConflict,
	overlaps,
	parseCanonicalId,
	type Scope,
} from "../../src/domain/claims.ts";
import { CLAIM_STATUSES, CLAIM_TYPES } from "../../src/vocabulary/statuses.ts";

const scope = (resource_type: string, path: string | null, extra: Partial<Scope> = {}): Scope => ({
	resource_id:
		path === null ? `${resource_type}:x` : canonicalId(resource_type as "file", path, extra.symbol ?? null),
	resource_type,
	path,
	symbol: null,
	start_line: null,
	end_line: null,
	...extra,
});

test("the mode matrix: exclusive conflicts with everything, write with write, the rest share", () => {
	const conflicts = CLAIM_TYPES.flatMap((a) =>
		CLAIM_TYPES.filter((b) => modesConflict(a, b)).map((b) => `${a}/${b}`),
	);
	expect(conflicts.sort()).toEqual(
		[
			"exclusive/exclusive",
			"exclusive/read",
			"exclusive/review",
			"exclusive/write",
			"read/exclusive",
			"review/exclusive",
			"write/exclusive",
			"write/write",
		].sort(),
	);
});

describe("overlap", () => {
	test("a directory overlaps what lies inside it, not its siblings; the root holds everything", () => {
		expect(overlaps(scope("directory", "src"), scope("file", "src/a.ts"))).toBe(true);
		expect(overlaps(scope("file", "src/a.ts"), scope("directory", "src"))).toBe(true);
		expect(overlaps(scope("directory", "src"), scope("file", "srcx/a.ts"))).toBe(false);
		expect(overlaps(scope("directory", "src"), scope("directory", "src/deep"))).toBe(true);
		expect(overlaps(scope("directory", ""), scope("file", "anything/at/all.ts"))).toBe(true);
	});

	test("a file overlaps itself and its symbols; two symbols by their lines, or by name when lines are unknown", () => {
		expect(overlaps(scope("file", "a.ts"), scope("file", "a.ts"))).toBe(true);
		expect(overlaps(scope("file", "a.ts"), scope("file", "b.ts"))).toBe(false);
		expect(overlaps(scope("file", "a.ts"), scope("symbol", "a.ts", { symbol: "f" }))).toBe(true);
		const f = scope("symbol", "a.ts", { symbol: "f", start_line: 1, end_line: 5 });
		expect(overlaps(f, scope("symbol", "a.ts", { symbol: "g", start_line: 5, end_line: 9 }))).toBe(true);
		expect(overlaps(f, scope("symbol", "a.ts", { symbol: "g", start_line: 6, end_line: 9 }))).toBe(false);
		expect(overlaps(scope("symbol", "a.ts", { symbol: "f" }), scope("symbol", "a.ts", { symbol: "g" }))).toBe(
			false,
		);
	});

	test("a resource of another type overlaps only by identical id", () => {
		expect(overlaps(scope("endpoint", null), scope("endpoint", null))).toBe(true);
		expect(overlaps(scope("endpoint", null), { ...scope("endpoint", null), resource_id: "endpoint:y" })).toBe(
			false,
		);
		expect(overlaps(scope("endpoint", null), scope("directory", ""))).toBe(false);
	});
});

test("canonical ids round-trip; ancestors list the containing directories", () => {
	for (const [type, path, symbol] of [
		["file", "src/a.ts", null],
		["directory", "src", null],
		["symbol", "src/a.ts", "Foo"],
	] as const) {
		expect(parseCanonicalId(canonicalId(type, path, symbol))).toEqual({ type, path, symbol });
	}
	expect(parseCanonicalId("symbol:src/a.ts")).toBeUndefined();
	expect(parseCanonicalId("endpoint:x")).toBeUndefined();
	expect(ancestors("a/b/c.ts")).toEqual(["", "a", "a/b"]);
});

test("the status machine: only live claims move, and a suspended one comes back only to active", () => {
	const moves = CLAIM_STATUSES.flatMap((a) =>
		CLAIM_STATUSES.filter((b) => canMove(a, b)).map((b) => `${a}→${b}`),
	);
	expect(moves.sort()).toEqual(
		[
			"active→released",
			"active→revoked",
			"active→expired",
			"active→suspended",
			"suspended→active",
			"suspended→released",
			"suspended→revoked",
		].sort(),
	);
});
