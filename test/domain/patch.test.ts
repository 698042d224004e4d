// parsePatch against patches printed by real `git diff` and `diff -ruN` in temp directories, plus
// hand-written malformed ones whose errors must name the exact offending line.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
	changedRanges,
	type ParsedPatch,
	PatchError,
	parsePatch,
	touchedPaths,
} from "../../src/domain/patch.ts";
import { lacks, tempDir } from "../_helpers/helpers.ts";

// A user's git config (diff.noprefix, color, external diff) must not change what the tools print.
const ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };

function run(cwd: string, cmd: string[], env: Record<string, string> = {}): string {
	const p = Bun.spawnSync(cmd, { cwd, env: { ...ENV, ...env } });
	// diff exits 1 when the inputs differ, which is the point.
	if (p.exitCode !== 0 && !(cmd[0] === "diff" && p.exitCode === 1))
		throw new Error(`${cmd.join(" ")} exited ${p.exitCode}: ${p.stderr.toString()}`);
	return p.stdout.toString();
}

type Files = Record<string, string | Uint8Array | null>;

/** Writes files under dir; null removes one. */
function put(dir: string, files: Files) {
	for (const [path, content] of Object.entries(files)) {
		const full = join(dir, path);
		if (content === null) rmSync(full, { force: true });
		else {
			mkdirSync(dirname(full), { recursive: true });
			writeFileSync(full, content);
		}
	}
}

/** A git repository committed with `before`; `diff(after, ...flags)` stages `after` and prints the diff. */
function gitRepo(before: Files) {
	const dir = tempDir("rt-patch-");
	const git = (...args: string[]) => run(dir, ["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args]);
	git("init", "-q");
	put(dir, before);
	git("add", "-A");
	git("commit", "-qm", "before");
	return {
		dir,
		diff(after: Files, ...flags: string[]) {
			put(dir, after);
			git("add", "-A");
			return git("diff", "--cached", "--no-color", "--no-ext-diff", ...flags);
		},
		apply: (patch: string) =>
			Bun.spawnSync(["git", "apply", "--check", "-"], { cwd: dir, stdin: Buffer.from(patch) }),
	};
}

/** Two trees `a/` and `b/` in a temp dir; `diff(...flags)` runs `diff <flags> a b` there. */
function trees(a: Files, b: Files) {
	const dir = tempDir("rt-patch-");
	put(join(dir, "a"), a);
	put(join(dir, "b"), b);
	mkdirSync(join(dir, "a"), { recursive: true });
	mkdirSync(join(dir, "b"), { recursive: true });
	return {
		dir,
		diff: (args: string[], env: Record<string, string> = {}) => run(dir, ["diff", ...args], env),
	};
}

const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join("");

/** The PatchError a patch raises (fails when it parses). */
function errorOf(text: string): PatchError {
	try {
		parsePatch(text);
	} catch (err) {
		if (err instanceof PatchError) return err;
		throw err;
	}
	throw new Error("patch parsed but was expected to fail");
}

function expectError(text: string, line: number, message: RegExp) {
	const err = errorOf(text);
	expect({ line: err.line, message: err.message }).toEqual({ line, message: expect.stringMatching(message) });
	expect(err.message).toStartWith(`patch line ${line}: `);
}

type Summary = { old: string | null; new: string | null; change: string; binary: boolean };
const summary = (p: ParsedPatch): Summary[] =>
	p.files.map((f) => ({ old: f.old_path, new: f.new_path, change: f.change, binary: f.binary }));

describe("git-style patches from real git diff", () => {
	test("modify: hunks, added lines with new-file line numbers, changed ranges", () => {
		const repo = gitRepo({ "src/app.ts": lines(30) });
		const after = lines(30)
			.replace("line 3\n", "line 3\nnew A\nnew B\n")
			.replace("line 25\n", "changed 25\n");
		const patch = parsePatch(repo.diff({ "src/app.ts": after }));
		expect(patch.format).toBe("git");
		expect(patch.strip).toBe(1);
		expect(summary(patch)).toEqual([
			{ old: "src/app.ts", new: "src/app.ts", change: "modify", binary: false },
		]);
		const [file] = patch.files;
		if (!file) throw new Error("no file");
		expect(file.hunks).toEqual([
			{ old_start: 1, old_lines: 6, new_start: 1, new_lines: 8 },
			{ old_start: 22, old_lines: 7, new_start: 24, new_lines: 7 },
		]);
		expect(file.added).toEqual([
			{ line: 4, text: "new A" },
			{ line: 5, text: "new B" },
			{ line: 27, text: "changed 25" },
		]);
		expect(changedRanges(file)).toEqual([
			[1, 6],
			[22, 28],
		]);
	});

	test("create, delete, mode change and the paths they touch", () => {
		const repo = gitRepo({ "gone.txt": "bye\n", "run.sh": "echo hi\n", "keep.txt": "k\n" });
		put(repo.dir, { "gone.txt": null, "new/file.txt": "a\nb\n" });
		Bun.spawnSync(["chmod", "+x", "run.sh"], { cwd: repo.dir });
		const text = repo.diff({});
		expect(text).toContain("old mode 100644\nnew mode 100755\n");
		const patch = parsePatch(text);
		expect(summary(patch)).toEqual([
			{ old: "gone.txt", new: null, change: "delete", binary: false },
			{ old: null, new: "new/file.txt", change: "create", binary: false },
			{ old: "run.sh", new: "run.sh", change: "modify", binary: false },
		]);
		expect(patch.files.map((f) => f.hunks)).toEqual([
			[{ old_start: 1, old_lines: 1, new_start: 0, new_lines: 0 }],
			[{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 2 }],
			[],
		]);
		expect(patch.files[1]?.added).toEqual([
			{ line: 1, text: "a" },
			{ line: 2, text: "b" },
		]);
		expect(touchedPaths(patch)).toEqual(["gone.txt", "new/file.txt", "run.sh"]);
		expect(patch.files.map(changedRanges)).toEqual([[[1, 1]], [[1, 1]], []]);
	});

	test("renames: pure, with edits, and unquoted names with spaces", () => {
		const body = lines(20);
		const repo = gitRepo({ "old.ts": body, "edit.ts": body.replace(/line/g, "edit"), "my file.txt": "x\n" });
		const text = repo.diff(
			{
				"old.ts": null,
				"lib/new.ts": body,
				"edit.ts": null,
				"edited.ts": body.replace(/line/g, "edit").replace("edit 10\n", "EDIT 10\n"),
				"my file.txt": null,
				"your file.txt": "x\n",
			},
			"-M",
		);
		expect(text).toContain("diff --git a/my file.txt b/your file.txt");
		const patch = parsePatch(text);
		expect(summary(patch)).toEqual([
			{ old: "edit.ts", new: "edited.ts", change: "rename", binary: false },
			{ old: "old.ts", new: "lib/new.ts", change: "rename", binary: false },
			{ old: "my file.txt", new: "your file.txt", change: "rename", binary: false },
		]);
		expect(patch.files[0]?.added).toEqual([{ line: 10, text: "EDIT 10" }]);
		expect(patch.files[1]?.hunks).toEqual([]);
		expect(touchedPaths(patch)).toEqual([
			"edit.ts",
			"edited.ts",
			"lib/new.ts",
			"my file.txt",
			"old.ts",
			"your file.txt",
		]);
	});

	test("a copy is a create of the new path", () => {
		const repo = gitRepo({ "src.ts": lines(20) });
		const text = repo.diff(
			{ "copy.ts": lines(20).replace("line 20\n", "line 20\nmore\n") },
			"-C",
			"--find-copies-harder",
		);
		expect(text).toContain("copy from src.ts");
		const patch = parsePatch(text);
		expect(summary(patch)).toEqual([{ old: null, new: "copy.ts", change: "create", binary: false }]);
		expect(patch.files[0]?.added).toEqual([{ line: 21, text: "more" }]);
		expect(touchedPaths(patch)).toEqual(["copy.ts"]);
	});

	test("binary files: 'Binary files … differ' and GIT binary patch bodies are skipped", () => {
		const repo = gitRepo({
			"img.bin": new Uint8Array([0, 1, 2]),
			"old.bin": new Uint8Array([0, 9]),
			"a.txt": "a\n",
		});
		const after = {
			"img.bin": new Uint8Array([0, 1, 3, ...new Uint8Array(200).fill(7)]),
			"new.bin": new Uint8Array([0, 5, 5]),
			"old.bin": null,
			"a.txt": "a\nb\n",
		};
		const expected = [
			{ old: "a.txt", new: "a.txt", change: "modify", binary: false },
			{ old: "img.bin", new: "img.bin", change: "modify", binary: true },
			{ old: null, new: "new.bin", change: "create", binary: true },
			{ old: "old.bin", new: null, change: "delete", binary: true },
		];
		const plain = repo.diff(after);
		expect(plain).toContain("Binary files a/img.bin and b/img.bin differ");
		expect(summary(parsePatch(plain))).toEqual(expected);
		const full = repo.diff({}, "--binary");
		expect(full).toContain("GIT binary patch");
		const patch = parsePatch(full);
		expect(summary(patch)).toEqual(expected);
		expect(patch.files.filter((f) => f.binary).map((f) => [f.hunks, f.added])).toEqual([
			[[], []],
			[[], []],
			[[], []],
		]);
	});

	test("quoted paths with C escapes (tab, quote, backslash, UTF-8 octal) and spaces", () => {
		const repo = gitRepo({
			"sp ace\tx": "1\n",
			'q"uote\\d.txt': "1\n",
			"dir/é.txt": "1\n",
			"a b/c d.txt": "1\n",
		});
		const text = repo.diff({
			"sp ace\tx": "2\n",
			'q"uote\\d.txt': "2\n",
			"dir/é.txt": "2\n",
			"a b/c d.txt": "2\n",
		});
		expect(text).toContain('diff --git "a/sp ace\\tx" "b/sp ace\\tx"');
		expect(text).toContain('"a/dir/\\303\\251.txt"');
		const patch = parsePatch(text);
		expect(touchedPaths(patch)).toEqual(["a b/c d.txt", "dir/é.txt", 'q"uote\\d.txt', "sp ace\tx"]);
		expect(patch.files.every((f) => f.change === "modify" && f.added.length === 1)).toBe(true);
	});

	test("quoted names in a diff --git header with nothing after it (deleted empty file)", () => {
		const repo = gitRepo({ "e\tmpty file": "", "keep.txt": "k\n" });
		const text = repo.diff({ "e\tmpty file": null });
		expect(text).not.toContain("---");
		expect(summary(parsePatch(text))).toEqual([
			{ old: "e\tmpty file", new: null, change: "delete", binary: false },
		]);
	});

	test("'\\ No newline at end of file' is allowed and not counted", () => {
		const repo = gitRepo({ "f.txt": "a\nb" });
		const text = repo.diff({ "f.txt": "a\nc" });
		expect(text.match(/\\ No newline at end of file/g)).toHaveLength(2);
		const [file] = parsePatch(text).files;
		expect(file?.hunks).toEqual([{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2 }]);
		expect(file?.added).toEqual([{ line: 2, text: "c" }]);
	});

	test("CRLF patches parse like LF ones, content \\r included", () => {
		const repo = gitRepo({ "w.txt": "one\r\ntwo\r\n", "u.txt": "x\n" });
		const text = repo.diff({ "w.txt": "one\r\n2\r\n", "u.txt": "y\n", "n.txt": "z\n" });
		const crlf = text.replace(/\r?\n/g, "\r\n");
		const lf = parsePatch(text.replace(/\r\n/g, "\n"));
		expect(parsePatch(crlf)).toEqual(lf);
		expect(lf.files[2]?.added).toEqual([{ line: 2, text: "2" }]);
	});

	test("hunks with context lines beginning with '--- ' or '+++ ' are counted, not taken as headers", () => {
		const repo = gitRepo({ "m.md": "-- a\nc\n" });
		const text = repo.diff({ "m.md": "++ b\nc\n" });
		expect(text).toContain("@@ -1,2 +1,2 @@\n--- a\n+++ b\n c\n");
		const [file] = parsePatch(text).files;
		expect(file?.hunks).toEqual([{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2 }]);
		expect(file?.added).toEqual([{ line: 1, text: "++ b" }]);
	});
});

describe.skipIf(lacks("diff") !== null)("plain unified diffs from real diff", () => {
	test("diff -ruN a b: creates and deletes by epoch timestamps, binary lines, command lines", () => {
		const t = trees(
			{ "sub/m.txt": "x\ny\n", "del.txt": "gone\n", bin: new Uint8Array([0, 1]), "empty.txt": "" },
			{ "sub/m.txt": "x\nz\nw\n", "new.txt": "new\n", bin: new Uint8Array([0, 2]), "empty.txt": "now\n" },
		);
		const text = t.diff(["-ruN", "a", "b"]);
		expect(text).toContain("diff -ruN a/del.txt b/del.txt");
		expect(text).toContain("Binary files a/bin and b/bin differ");
		const patch = parsePatch(text);
		expect(patch.format).toBe("unified");
		expect(patch.strip).toBe(1);
		expect(summary(patch)).toEqual([
			{ old: "bin", new: "bin", change: "modify", binary: true },
			{ old: "del.txt", new: null, change: "delete", binary: false },
			// An existing empty file gets content: a real timestamp, so modify, not create.
			{ old: "empty.txt", new: "empty.txt", change: "modify", binary: false },
			{ old: null, new: "new.txt", change: "create", binary: false },
			{ old: "sub/m.txt", new: "sub/m.txt", change: "modify", binary: false },
		]);
		expect(patch.files[4]?.added).toEqual([
			{ line: 2, text: "z" },
			{ line: 3, text: "w" },
		]);
		expect(touchedPaths(patch)).toEqual(["bin", "del.txt", "empty.txt", "new.txt", "sub/m.txt"]);
	});

	test("epoch timestamps are recognised in any timezone", () => {
		const t = trees({ "del.txt": "gone\n" }, { "new.txt": "new\n" });
		for (const TZ of ["PST8PDT", "IST-5:30"]) {
			const text = t.diff(["-ruN", "a", "b"], { TZ });
			expect(text).not.toContain("1970-01-01 00:00:00");
			expect(summary(parsePatch(text)).map((f) => f.change)).toEqual(["delete", "create"]);
		}
	});

	test("diff -ru: 'Only in' lines are ignored", () => {
		const t = trees({ "m.txt": "1\n", "old.txt": "o\n" }, { "m.txt": "2\n", "new.txt": "n\n" });
		const text = t.diff(["-ru", "a", "b"]);
		expect(text).toContain("Only in a: old.txt");
		expect(summary(parsePatch(text))).toEqual([
			{ old: "m.txt", new: "m.txt", change: "modify", binary: false },
		]);
	});

	test("differing first components (base/x vs new/x) strip 1", () => {
		const t = trees({}, {});
		put(t.dir, { "base/src/x.ts": "1\n", "next/src/x.ts": "2\n" });
		const patch = parsePatch(t.diff(["-u", "base/src/x.ts", "next/src/x.ts"]));
		expect({ strip: patch.strip, paths: touchedPaths(patch) }).toEqual({ strip: 1, paths: ["src/x.ts"] });
	});

	test("equal paths as given strip 0", () => {
		const t = trees({ "x.ts": "1\n" }, { "x.ts": "2\n" });
		const text = t.diff(["-u", "--label", "src/x.ts", "--label", "src/x.ts", "a/x.ts", "b/x.ts"]);
		expect(text).toStartWith("--- src/x.ts\n+++ src/x.ts\n");
		const patch = parsePatch(text);
		expect({ strip: patch.strip, paths: touchedPaths(patch) }).toEqual({ strip: 0, paths: ["src/x.ts"] });
	});

	test("/dev/null creates and deletes; /dev/null is never stripped", () => {
		const create = "--- /dev/null\n+++ b/src/n.ts\n@@ -0,0 +1 @@\n+n\n";
		const del = "--- a/src/d.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n";
		const patch = parsePatch(create + del);
		expect(patch.strip).toBe(1);
		expect(summary(patch)).toEqual([
			{ old: null, new: "src/n.ts", change: "create", binary: false },
			{ old: "src/d.ts", new: null, change: "delete", binary: false },
		]);
		// Without a/ b/ a lone create cannot tell: it follows the other files, else strip 0.
		expect(touchedPaths(parsePatch("--- /dev/null\n+++ src/n.ts\n@@ -0,0 +1 @@\n+n\n"))).toEqual([
			"src/n.ts",
		]);
		const withBase =
			"--- /dev/null\n+++ next/n.ts\n@@ -0,0 +1 @@\n+n\n--- base/m.ts\n+++ next/m.ts\n@@ -1 +1 @@\n-a\n+b\n";
		expect(touchedPaths(parsePatch(withBase))).toEqual(["m.ts", "n.ts"]);
	});

	test("hand-written plain diff: counts default to 1, timestamps after a tab, section headings", () => {
		const text = [
			"--- src/a.ts\t2024-05-01 10:00:00.000000000 +0200",
			"+++ src/a.ts\t2024-05-02 10:00:00.000000000 +0200",
			"@@ -7 +7,2 @@ function main() {",
			"-old",
			"+new",
			"+more",
		].join("\n");
		const [file] = parsePatch(text).files;
		expect(file?.hunks).toEqual([{ old_start: 7, old_lines: 1, new_start: 7, new_lines: 2 }]);
		expect(file?.added).toEqual([
			{ line: 7, text: "new" },
			{ line: 8, text: "more" },
		]);
		expect(changedRanges(file ?? ({} as never))).toEqual([[7, 7]]);
	});
});

describe.skipIf(lacks("diff") !== null)("randomized edits against real tools", () => {
	/** A small seeded PRNG so a failure reproduces. */
	function rng(seed: number) {
		return (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return (seed >>> 16) % n; // the low bits of this generator cycle
		};
	}
	const words = ["alpha", "-- dash", "++ plus", " lead", "", "@@ at", "\\ slash", "tail\t"];

	function edit(text: string, rand: (n: number) => number): string {
		const out = text.split("\n").slice(0, -1);
		for (let k = rand(4) + 1; k > 0; k--) {
			const at = rand(out.length + 1);
			const word = words[rand(words.length)] ?? "";
			const op = rand(3);
			if (op === 0) out.splice(at, 0, `${word} ${rand(100)}`);
			else if (op === 1) out.splice(at, 1);
			else out.splice(at, 1, `${word}!`);
		}
		return out.map((l) => `${l}\n`).join("");
	}

	test("added lines sit at their new-file line numbers; touched paths are the changed files", () => {
		const rand = rng(7);
		for (let round = 0; round < 12; round++) {
			const before: Record<string, string> = {};
			for (let i = 0; i < 4; i++) before[`d${i % 2}/f${i}.txt`] = lines(rand(40) + 1, `r${round}`);
			const after: Record<string, string | null> = Object.fromEntries(
				Object.entries(before).map(([p, t]) => [p, edit(t, rand)]),
			);
			after[`d1/new${round}.txt`] = lines(rand(5) + 1, "n");
			after["d0/f0.txt"] = null;
			after[`moved/m${round}.txt`] = before["d0/f0.txt"] ?? ""; // a rename under -M
			const repo = gitRepo(before);
			const t = trees(before, after);
			const renamed = repo.diff(after, "-U0", "-M30%");
			expect(renamed).toContain(`rename to moved/m${round}.txt`);
			for (const text of [
				renamed,
				repo.diff({}, "--no-renames"),
				repo.diff({}, "-U7"),
				t.diff(["-ruN", "a", "b"]),
			]) {
				const patch = parsePatch(text);
				const changed = Object.keys(after).filter((p) => after[p] !== (before[p] ?? null));
				expect(touchedPaths(patch)).toEqual(changed.sort());
				for (const f of patch.files) {
					const content = (f.new_path && after[f.new_path]) || "";
					const newLines = content.split("\n");
					for (const a of f.added) expect(newLines[a.line - 1]).toBe(a.text);
					expect(f.added.length).toBeLessThanOrEqual(f.hunks.reduce((n, h) => n + h.new_lines, 0));
				}
			}
		}
	});
});

describe("hand-written patches", () => {
	test("an empty line inside a hunk is an empty context line (as git apply reads it); blank lines between files are skipped", () => {
		const text =
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n\n\n--- a/g\n+++ b/g\n@@ -2 +2 @@\n-x\n+y\n\n";
		const patch = parsePatch(text);
		expect(patch.files.map((f) => f.added)).toEqual([[{ line: 3, text: "C" }], [{ line: 2, text: "y" }]]);
	});

	test("'Binary files … differ' names containing ' and ' split where the names agree", () => {
		const patch = parsePatch("Binary files a/x and y.png and b/x and y.png differ\n");
		expect(summary(patch)).toEqual([
			{ old: "x and y.png", new: "x and y.png", change: "modify", binary: true },
		]);
		const create = parsePatch("Binary files /dev/null and b/logo.png differ\n");
		expect(summary(create)).toEqual([{ old: null, new: "logo.png", change: "create", binary: true }]);
	});

	test("git extended headers without hunks: mode-only change and pure rename", () => {
		const text = [
			"diff --git a/run.sh b/run.sh",
			"old mode 100644",
			"new mode 100755",
			"diff --git a/x.ts b/y.ts",
			"similarity index 100%",
			"rename from x.ts",
			"rename to y.ts",
		].join("\n");
		expect(summary(parsePatch(text))).toEqual([
			{ old: "run.sh", new: "run.sh", change: "modify", binary: false },
			{ old: "x.ts", new: "y.ts", change: "rename", binary: false },
		]);
	});
});

describe("errors name the offending line", () => {
	const header = "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n";

	test("empty patches", () => {
		expectError("", 1, /empty patch/);
		expectError("\n\nOnly in a: x\n", 1, /empty patch/);
	});

	test("a hunk before any file header, or after a header-only git file", () => {
		expectError("@@ -1 +1 @@\n-a\n+b\n", 1, /hunk before any file header/);
		const modeOnly = "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n@@ -1 +1 @@\n-a\n+b\n";
		expectError(modeOnly, 4, /hunk without a ---\/\+\+\+ file header/);
	});

	test("malformed hunk headers", () => {
		expectError(`${header}@@ -1,a +1 @@\n`, 4, /malformed hunk header/);
		expectError(`${header}@@ -1 +1\n-a\n+b\n`, 4, /malformed hunk header/);
		expectError(`${header}@@ -1,1 +1,1 @@\n-a\n+b\n@@-3 +3 @@\n-c\n+d\n`, 7, /malformed hunk header/);
	});

	test("too few lines: at the next hunk, the next file, or the end", () => {
		expectError(
			`${header}@@ -1,3 +1,3 @@\n a\n-b\n+B\n`,
			4,
			/hunk @@ -1,3 \+1,3 @@ ends after 2 old and 2 new lines/,
		);
		expectError(
			`${header}@@ -1 +1 @@\n-a\n+b\n@@ -5,2 +5,2 @@\n x\n@@ -9 +9 @@\n`,
			7,
			/ends after 1 old and 1 new/,
		);
		expectError(
			`${header}@@ -1,2 +1,2 @@\n a\n${header}@@ -1 +1 @@\n-a\n+b\n`,
			4,
			/ends after 1 old and 1 new/,
		);
	});

	test("too many lines", () => {
		expectError(`${header}@@ -1 +1 @@\n-a\n+b\n+c\n`, 7, /more lines than announced/);
		expectError(`${header}@@ -1,2 +1,1 @@\n a\n b\n`, 6, /more lines than announced/);
		expectError(
			`${header}@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n c\n`,
			8,
			/more lines than announced/,
		);
	});

	test("garbage where a hunk line is expected (the line git apply also reports)", () => {
		const text = `${header}@@ -1,3 +1,3 @@\n a\n-b\n+B\nxx\n`;
		expectError(text, 8, /expected a hunk line .* got "xx"/);
		const repo = gitRepo({ "f.txt": "a\nb\nc\n" });
		expect(repo.apply(text).stderr.toString()).toContain("corrupt patch at line 8");
		expect(repo.apply(`${header}@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n`).exitCode).toBe(0);
	});

	test("garbage outside files and in git headers", () => {
		expectError(
			"From: someone\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
			1,
			/unexpected text outside a file/,
		);
		expectError(`${header}@@ -1 +1 @@\n-a\n+b\nthanks!\n`, 7, /unexpected text outside a file: "thanks!"/);
		expectError("diff --git a/x b/x\nindex 1..2 100644\nweird header\n", 3, /unexpected text/);
		expectError("--- a/x\nno plus line\n", 1, /unexpected text/);
		expectError(`${header}`, 4, /expected a hunk header/);
		expectError("diff --git a/b b/b\nGIT binary patch\nliteral\n", 3, /literal or delta/);
	});

	test("a file entry with neither old nor new path", () => {
		expectError(
			"--- x\n+++ y\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ /dev/null\n@@ -0,0 +0,0 @@\n",
			6,
			/neither/,
		);
		expectError("diff --git a/x b/y z\nsimilarity index 90%\n", 1, /paths apart/);
	});

	test("absolute paths and .. segments after stripping", () => {
		expectError("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", 1, /absolute path \/etc\/passwd/);
		expectError("diff --git a//etc/x b//etc/x\n", 1, /absolute path/);
		expectError(
			`${header.replaceAll("f.txt", "../f.txt")}@@ -1 +1 @@\n-a\n+b\n`,
			1,
			/escapes the repository/,
		);
		expectError("--- /dev/null\n+++ b/src/../../up\n@@ -0,0 +1 @@\n+x\n", 1, /escapes the repository/);
		const later = `${header}@@ -1 +1 @@\n-a\n+b\ndiff --git a/ok b/ok\nrename from ok\nrename to x/../../y\n`;
		expectError(later, 7, /x\/\.\.\/\.\.\/y escapes/);
		// A `..` inside a name is fine; only whole segments climb.
		expect(touchedPaths(parsePatch("--- a/x..y\n+++ b/x..y\n@@ -1 +1 @@\n-a\n+b\n"))).toEqual(["x..y"]);
	});

	test("a NUL byte names its line", () => {
		expectError(`${header}@@ -1 +1 @@\n-a\n+b\0\n`, 6, /NUL byte/);
	});

	test("mixed strips and mixed formats", () => {
		const strip0 = "--- src/x.ts\n+++ src/x.ts\n@@ -1 +1 @@\n-a\n+b\n";
		const strip1 = "--- a/src/y.ts\n+++ b/src/y.ts\n@@ -1 +1 @@\n-a\n+b\n";
		expectError(strip0 + strip1, 6, /needs strip 1 but earlier files need strip 0/);
		expectError(`${header}@@ -1 +1 @@\n-a\n+b\n${strip1}`, 7, /mixes git-style and plain/);
	});

	test("plain diffs cannot rename", () => {
		expectError("--- a/x.ts\n+++ b/y.ts\n@@ -1 +1 @@\n-a\n+b\n", 1, /differ; plain diffs cannot rename/);
		expectError("--- x.c.orig\n+++ x.c\n@@ -1 +1 @@\n-a\n+b\n", 1, /plain diffs cannot rename/);
	});

	test("git-style names need a component to strip; bad quoting", () => {
		expectError("diff --git x x\nold mode 100644\nnew mode 100755\n", 1, /no leading component to strip/);
		expectError('diff --git "a/x b/x\n', 1, /unterminated quoted path/);
		expectError('diff --git "a/\\q" "b/\\q"\n', 1, /bad escape/);
	});

	test("CRLF does not shift line numbers", () => {
		const text = `${header}@@ -1,3 +1,3 @@\n a\n-b\n+B\n?\n`.replace(/\n/g, "\r\n");
		expectError(text, 8, /got "\?"/);
	});
});

describe("changedRanges", () => {
	test("pure insertions and pure deletions", () => {
		const text = "--- a/f\n+++ b/f\n@@ -4,0 +5,2 @@\n+x\n+y\n@@ -10,3 +12,0 @@\n-a\n-b\n-c\n";
		const [file] = parsePatch(text).files;
		if (!file) throw new Error("no file");
		expect(changedRanges(file)).toEqual([
			[4, 4],
			[10, 12],
		]);
		expect(file.added).toEqual([
			{ line: 5, text: "x" },
			{ line: 6, text: "y" },
		]);
	});
});

describe("changed lines in old-file coordinates", () => {
	test("removed lines and the old line each insertion follows", () => {
		const [f] = parsePatch(
			[
				"diff --git a/f.txt b/f.txt",
				"--- a/f.txt",
				"+++ b/f.txt",
				"@@ -1,5 +1,6 @@",
				" a",
				"-b",
				"+B",
				" c",
				" d",
				"+x",
				" e",
				"@@ -9,0 +11,2 @@",
				"+y",
				"+z",
				"",
			].join("\n"),
		).files;
		expect(f?.removed).toEqual([2]);
		expect(f?.inserted_after).toEqual([2, 4, 9, 9]);
	});
});
