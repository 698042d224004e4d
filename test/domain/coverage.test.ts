// Affected-resource merging and coverage (reference §7.2, with exact changed lines for symbols).
import { describe, expect, test } from "bun:test";
import type { Scope } from "../../src/domain/claims.ts";
import { covers, mergeAffected, uncoveredChange } from "../../src/domain/coverage.ts";
import type { PatchFile } from "../../src/domain/patch.ts";

const symbol = (path: string, name: string, start: number, end: number): Scope => ({
	resource_id: `symbol:${path}#${name}`,
	resource_type: "symbol",
	path,
	symbol: name,
	start_line: start,
	end_line: end,
});
const file = (path: string): Scope => ({
	resource_id: `file:${path}`,
	resource_type: "file",
	path,
	symbol: null,
	start_line: null,
	end_line: null,
});
const dir = (path: string): Scope => ({
	...file(path),
	resource_id: `directory:${path}`,
	resource_type: "directory",
});

const modify = (path: string, removed: number[], inserted_after: number[]): PatchFile => ({
	old_path: path,
	new_path: path,
	change: "modify",
	symlink: false,
	binary: false,
	hunks: [],
	added: inserted_after.map((_, i) => ({ line: i + 1, text: "x" })),
	removed,
	inserted_after,
});

describe("mergeAffected", () => {
	test("adds a file resource for each touched path nothing explicit covers", () => {
		expect(mergeAffected(["symbol:a.ts#f", "directory:lib"], ["a.ts", "lib/x.ts", "b.ts"])).toEqual([
			"directory:lib",
			"file:b.ts",
			"symbol:a.ts#f",
		]);
		expect(mergeAffected(["file:a.ts", "file:a.ts"], ["a.ts"])).toEqual(["file:a.ts"]);
	});
});

describe("covers", () => {
	test("a directory covers what lies inside; a file its symbols; a symbol the symbols within its lines", () => {
		expect(covers(dir("src"), file("src/a.ts"))).toBe(true);
		expect(covers(dir("src"), file("srcx/a.ts"))).toBe(false);
		expect(covers(dir(""), file("any/where.ts"))).toBe(true);
		expect(covers(file("a.ts"), symbol("a.ts", "f", 1, 3))).toBe(true);
		expect(covers(file("a.ts"), file("b.ts"))).toBe(false);
		expect(covers(symbol("a.ts", "C", 1, 20), symbol("a.ts", "C.m", 4, 8))).toBe(true);
		expect(covers(symbol("a.ts", "f", 1, 3), symbol("a.ts", "g", 5, 7))).toBe(false);
		expect(covers(symbol("a.ts", "f", 1, 3), file("a.ts"))).toBe(false);
	});
});

describe("uncoveredChange", () => {
	const one = [symbol("lib.ts", "one", 1, 3)];

	test("changes inside a symbol's lines are covered", () => {
		expect(uncoveredChange([modify("lib.ts", [2], [2])], one)).toBeUndefined();
		// Replacing the symbol's last line is inside it too.
		expect(uncoveredChange([modify("lib.ts", [3], [3])], one)).toBeUndefined();
	});

	test("a removal or an insertion outside the symbol is not", () => {
		expect(uncoveredChange([modify("lib.ts", [6], [6])], one)).toMatch(/at line 6$/);
		expect(uncoveredChange([modify("lib.ts", [], [3])], one)).toMatch(/an insertion after line 3$/);
		expect(uncoveredChange([modify("lib.ts", [], [0])], one)).toMatch(/an insertion after line 0$/);
	});

	test("creates, deletes and renames need a file or directory resource", () => {
		const create: PatchFile = { ...modify("new.ts", [], [0]), old_path: null, change: "create" };
		expect(uncoveredChange([create], [])).toBe(
			"patch operation requires file or directory coverage: create new.ts",
		);
		expect(uncoveredChange([create], [dir("")])).toBeUndefined();
		expect(uncoveredChange([modify("other.ts", [1], [1])], one)).toBe(
			"patch touches a file no proposal resource covers: other.ts",
		);
	});
});
