// The arrows between the parts of src/ (docs/architecture.md): no import cycles, type-only imports
// included, and none of the arrows the layering forbids. The checker is shown to catch a planted
// cycle and planted forbidden arrows in fixtures/import-rules.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO } from "./_helpers/helpers.ts";
import { cycles, importGraph, outsideTheTree, type Rule, violations } from "./_helpers/import-graph.ts";

/** Packages that do I/O: the pure parts never import them. */
const IO = [
	"node:fs",
	"node:fs/promises",
	"node:child_process",
	"node:net",
	"node:http",
	"node:os",
	"bun:sqlite",
	"bun:ffi",
];
const pure = (part: string, why: string): Rule[] => IO.map((to) => ({ from: part, to, why }));

/**
 * The engines: each feature's machinery, whole in the folder of its name, with its family's front
 * door (index.ts) that the dispatcher's switch calls; and the families small enough to be one file.
 */
const ENGINES = [
	"handlers",
	"apply",
	"claims",
	"gates",
	"briefing",
	"proposals",
	"approvals",
	"security",
	"runs",
	"turns",
	"test-runs",
	"repo",
	"sessions",
	"policy",
	"sandbox",
	"messages",
	"peers",
	"workspaces",
	"adapters",
	// The families small enough to be one file.
	"tasks",
	"table",
	"memory",
	"config-sync",
];
/** What calls the engines: none of it may be imported by one. */
const ABOVE = ["dispatch", "transports", "dashboard", "owner", "chair", "cli", "launch", "main"];
const engineRules: Rule[] = ENGINES.flatMap((engine) => [
	...ABOVE.map((to) => ({ from: engine, to, why: "an engine is called, it never calls up" })),
	{ from: "registry", to: engine, why: "the registry declares, the engines implement" },
	{ from: "store", to: engine, why: "the store knows no engine" },
]);

const RULES: Rule[] = [
	{ from: "transports", to: "store", why: "transports only turn frames into calls" },
	...ENGINES.map((engine) => ({
		from: "transports",
		to: engine,
		why: "transports only turn frames into calls",
	})),
	{ from: "transports", to: "dispatch", why: "transports are given a caller" },
	{ from: "transports", to: "runtime", why: "transports are given a caller" },
	// The dashboard's server side is a transport too (the page, dashboard/web/, is text it serves).
	{ from: "dashboard", to: "store", why: "the dashboard turns requests into calls" },
	...ENGINES.map((engine) => ({
		from: "dashboard",
		to: engine,
		why: "the dashboard turns requests into calls",
	})),
	{ from: "dashboard", to: "dispatch", why: "the dashboard is given a caller" },
	{ from: "dashboard", to: "runtime", why: "the dashboard is given a caller" },
	{ from: "domain", to: "store", why: "the domain is pure" },
	{ from: "domain", to: "transports", why: "the domain is pure" },
	{ from: "vocabulary", to: "store", why: "the vocabulary is the bottom layer" },
	...pure("domain", "the domain does no I/O"),
	...pure("vocabulary", "the vocabulary does no I/O"),
	...engineRules,
];

describe("the import graph of src/", () => {
	const graph = importGraph(join(REPO, "src"));

	test("has no cycles", () => {
		expect(cycles(graph)).toEqual([]);
	});

	test("has none of the forbidden arrows", () => {
		expect(violations(graph, RULES)).toEqual([]);
	});

	test("never reaches outside src/: no test code in the product", () => {
		expect(outsideTheTree(join(REPO, "src"), graph)).toEqual([]);
	});

	test("reaches arktype only through vocabulary/arktype.ts, which sets arktype's mode first", () => {
		const door = ["vocabulary/arktype.ts", "vocabulary/arktype-mode.ts"];
		const around = [...graph]
			.filter(
				([file, { external }]) => !door.includes(file) && [...external].some((s) => /^arktype(\/|$)/.test(s)),
			)
			.map(([file]) => file);
		expect(around).toEqual([]);
	});

	test("is read whole: every file, type-only imports included", () => {
		expect(graph.size).toBeGreaterThan(150);
		// handlers/env.ts is imported by the families for types alone.
		expect(graph.get("tasks.ts")?.local.has("handlers/env.ts")).toBe(true);
	});
});

describe("the checker catches what it is for (fixtures/import-rules)", () => {
	const graph = importGraph(join(REPO, "fixtures/import-rules/src"));

	test("a cycle made by a type-only import", () => {
		expect(cycles(graph)).toEqual([["domain/a.ts", "domain/b.ts"]]);
	});

	test("test code reached from the product, by an import or by a URL built to load it", () => {
		expect(outsideTheTree(join(REPO, "fixtures/import-rules/src"), graph)).toEqual([
			"transports/leak.ts names ../../test/helper.ts",
			"transports/leak.ts → ../test/helper.ts",
		]);
	});

	test("a forbidden arrow between parts, and I/O in a pure part", () => {
		expect(violations(graph, RULES)).toEqual([
			"domain/io.ts → node:fs (the domain does no I/O)",
			"transports/http.ts → store/rows.ts (transports only turn frames into calls)",
		]);
	});
});
