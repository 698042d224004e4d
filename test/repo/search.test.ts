// repo.search on real trees: matching rules, limits, and .gitignore both inside a git work tree
// (git ls-files) and outside one (the walk), which must agree.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
	commitAll,
	expectDeclaredOutput,
	makeProject,
	type Project,
	write as writeFile,
} from "../_helpers/helpers.ts";

interface Found {
	matches: { path: string; line: number; column: number; content: string }[];
	truncated: boolean;
	files_searched: number;
}

function write(p: Project, files: Record<string, string | Uint8Array>) {
	for (const [name, content] of Object.entries(files)) writeFile(p.root, name, content);
}

async function search(p: Project, args: Record<string, unknown>): Promise<Found> {
	const out = await p.call("repo.search", args);
	expectDeclaredOutput("repo.search", out);
	return out as unknown as Found;
}

const where = (f: Found) => f.matches.map((m) => `${m.path}:${m.line}:${m.column}`);

const TREE: Record<string, string> = {
	".gitignore": "dist/\n*.log\n!keep.log\n/build\n",
	"src/a.ts": "const Needle = 1;\nno match here\nneedle needle twice\n",
	"src/b.ts": "nothing\n",
	"src/deep/c.py": "def needle():\n    return 'NEEDLE'\n",
	"src/sub/.gitignore": "generated.ts\n",
	"src/sub/generated.ts": "needle in a generated file\n",
	"src/sub/kept.ts": "needle kept\n",
	"dist/bundle.js": "needle in the build output\n",
	"build/x.txt": "needle in build\n",
	"nested/build/y.txt": "needle in nested build\n",
	"debug.log": "needle in a log\n",
	"keep.log": "needle in a kept log\n",
	"docs/readme.md": "A needle.\n",
};

const VISIBLE = [
	"docs/readme.md:1:3",
	"keep.log:1:1",
	"nested/build/y.txt:1:1",
	"src/a.ts:1:7",
	"src/a.ts:3:1",
	"src/deep/c.py:1:5",
	"src/deep/c.py:2:13",
	"src/sub/kept.ts:1:1",
];

async function gitProject(): Promise<Project> {
	const p = await makeProject();
	commitAll(p.root, TREE);
	return p;
}

describe("matching", async () => {
	const p = await makeProject();
	write(p, TREE);

	test("case-insensitive literal by default, one match per line, sorted by path and line, with columns", async () => {
		const f = await search(p, { query: "needle" });
		expect(where(f)).toEqual(VISIBLE);
		expect(f.matches[0]).toEqual({ path: "docs/readme.md", line: 1, column: 3, content: "A needle." });
		expect(f.truncated).toBe(false);
	});

	test("case_sensitive matches case exactly", async () => {
		const f = await search(p, { query: "Needle", case_sensitive: true });
		expect(where(f)).toEqual(["src/a.ts:1:7"]);
	});

	test("a literal query treats regex characters literally", async () => {
		write(p, { "src/re.ts": "call(a.b)\ncallXaYb\n" });
		expect(where(await search(p, { query: "(a.b)" }))).toEqual(["src/re.ts:1:5"]);
	});

	test("regex: true takes a regular expression; an invalid one is invalid_argument", async () => {
		expect(where(await search(p, { query: "^def \\w+\\(", regex: true }))).toEqual(["src/deep/c.py:1:1"]);
		const err = await p.fail("repo.search", { query: "(unclosed", regex: true });
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toEqual({ field: "query" });
	});

	test("path narrows to a file or a directory (recursively)", async () => {
		expect(where(await search(p, { query: "needle", path: "src/a.ts" }))).toEqual([
			"src/a.ts:1:7",
			"src/a.ts:3:1",
		]);
		expect(where(await search(p, { query: "needle", path: "src/deep" }))).toEqual([
			"src/deep/c.py:1:5",
			"src/deep/c.py:2:13",
		]);
		expect((await p.fail("repo.search", { query: "needle", path: "missing" })).code).toBe("not_found");
	});

	test("glob filters by repository-relative path, one glob or several", async () => {
		expect(where(await search(p, { query: "needle", glob: "**/*.py" }))).toEqual([
			"src/deep/c.py:1:5",
			"src/deep/c.py:2:13",
		]);
		expect(where(await search(p, { query: "needle", glob: ["*.log", "docs/**"] }))).toEqual([
			"docs/readme.md:1:3",
			"keep.log:1:1",
		]);
	});

	test("limit cuts the matches and sets truncated", async () => {
		const f = await search(p, { query: "needle", limit: 3 });
		expect(where(f)).toEqual(VISIBLE.slice(0, 3));
		expect(f.truncated).toBe(true);
		expect((await search(p, { query: "needle", limit: VISIBLE.length })).truncated).toBe(false);
		expect((await p.fail("repo.search", { query: "x", limit: 5001 })).code).toBe("invalid_argument");
	});

	test("binary files, huge files and .roundtable/ are never searched", async () => {
		write(p, {
			"assets/blob.bin": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x01]),
			"assets/huge.txt": `needle\n${"x".repeat(17 * 1024 * 1024)}`,
		});
		const f = await search(p, { query: "needle", path: "assets" });
		expect(f.matches).toEqual([]);
		expect((await search(p, { query: "sqlite_path" })).matches).toEqual([]); // it is in .roundtable/config.yaml
	});

	test("very long matching lines are cut in the result", async () => {
		write(p, { "min/app.js": `${"a".repeat(5000)}needle${"b".repeat(5000)}\n` });
		const [m] = (await search(p, { query: "needle", path: "min" })).matches;
		expect(m?.column).toBe(5001);
		expect(m?.content.length).toBe(1001);
		expect(m?.content.endsWith("…")).toBe(true);
	});
});

describe(".gitignore", () => {
	test("inside a git work tree: nested rules, negation, anchored and dir-only patterns; untracked files count", async () => {
		const p = await gitProject();
		write(p, { "src/untracked.ts": "needle not yet committed\n", "src/ignored.log": "needle\n" });
		const f = await search(p, { query: "needle" });
		expect(where(f)).toEqual([...VISIBLE.slice(0, 7), "src/sub/kept.ts:1:1", "src/untracked.ts:1:1"].sort());
	});

	test("a tracked file deleted from disk is skipped, not an error", async () => {
		const p = await gitProject();
		Bun.spawnSync(["rm", join(p.root, "src/a.ts")]);
		expect(where(await search(p, { query: "needle" }))).toEqual(
			VISIBLE.filter((w) => !w.startsWith("src/a.ts")),
		);
	});

	test("outside a work tree the walk gives the same answer", async () => {
		const p = await makeProject();
		write(p, TREE);
		expect(where(await search(p, { query: "needle" }))).toEqual(VISIBLE);
		// Searching below an ignored directory finds nothing; below a visible one its parents' rules apply.
		expect((await search(p, { query: "needle", path: "dist" })).matches).toEqual([]);
		expect(where(await search(p, { query: "needle", path: "src/sub" }))).toEqual(["src/sub/kept.ts:1:1"]);
	});
});

describe("cancellation", () => {
	test("an aborted call stops with cancelled", async () => {
		const p = await makeProject();
		write(p, TREE);
		const { call } = await import("../../src/dispatch.ts");
		const { operatorContext } = await import("../../src/context.ts");
		const abort = new AbortController();
		abort.abort();
		await expect(
			call(p.rt, "repo.search", { query: "needle" }, operatorContext("internal", abort.signal)),
		).rejects.toMatchObject({
			code: "cancelled",
		});
	});
});
