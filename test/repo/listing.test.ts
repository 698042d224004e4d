// The in-process listing (src/repo/files.ts) against `git ls-files --cached --others
// --exclude-standard` on real repositories: nested ignore files, negations, anchored and directory
// patterns, wildcards git reads its own way, info/exclude and core.excludesFile, tracked-but-ignored
// files, submodules and nested repositories, conflicts, every index version, a split index, and a
// project root below the work tree's top.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inRepository, listFiles } from "../../src/repo/files.ts";
import { AskGit } from "../../src/repo/listing/ask-git.ts";
import { findRepo } from "../../src/repo/listing/git-dir.ts";
import { git, tempDir, write } from "../_helpers/helpers.ts";

/** What git lists, as the listing shows it: no "dir/" of a nested repository, no .git/ or .roundtable/, each path once, sorted. */
function gitListing(root: string, under = ""): string[] {
	const out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", under || ".");
	const paths = out.split("\0").filter((p) => p !== "" && !p.endsWith("/"));
	const visible = paths.filter((p) => !p.split("/").some((s) => s === ".git" || s === ".roundtable"));
	return [...new Set(visible)].sort();
}

async function ours(root: string, under = ""): Promise<string[]> {
	const repo = findRepo(root);
	if (repo === undefined) throw new Error(`${root} is not in a repository`);
	return (await inRepository(repo, under)).filter((p) => !p.split("/").includes(".roundtable")).sort();
}

const FILES: Record<string, string> = {
	".gitignore": [
		"# a comment",
		"*.log",
		"!keep.log",
		"/build",
		"dist/",
		"docs/**/*.tmp",
		"**/cache/",
		"foo**/bar",
		"[Tt]emp*",
		"[[:digit:]]*.num",
		"[!a]x.txt",
		"?.q",
		"\\#hash",
		"trailing\\ ",
		"spaces   ",
		"a/**/z",
		"node_modules/",
		"!node_modules/keep/",
		"ignored-dir/",
		"!reinc/",
		"[unclosed",
		"*.o\r",
		"!important.o",
		"",
	].join("\n"),
	"README.md": "readme\n",
	"keep.log": "kept\n",
	"debug.log": "tracked although ignored\n",
	"app.log": "ignored\n",
	"build/out.txt": "tracked although in an ignored directory\n",
	"build/new.txt": "untracked in an ignored directory\n",
	"nested/build/y.txt": "/build is anchored\n",
	"dist/bundle.js": "ignored\n",
	"docs/a/b/c.tmp": "ignored at any depth\n",
	"docs/c.tmp": "ignored: ** matches no directory too\n",
	"docs/readme.md": "visible\n",
	"x/cache/entry": "ignored directory anywhere\n",
	"x/cache.txt": "visible\n",
	"foo/bar": "foo**/bar\n",
	"foo/x/bar": "foo**/bar: the ** follows the literal part, so it crosses directories\n",
	"fooz/y/bar": "also\n",
	Temp1: "ignored\n",
	temp2: "ignored\n",
	TEMP3: "visible: case matters\n",
	"7.num": "ignored\n",
	"n7.num": "visible\n",
	"bx.txt": "ignored\n",
	"ax.txt": "visible\n",
	"a.q": "ignored\n",
	"ab.q": "visible\n",
	"#hash": "ignored\n",
	"trailing ": "ignored\n",
	trailing: "visible\n",
	spaces: "ignored\n",
	"a/z": "ignored\n",
	"a/b/c/z": "ignored\n",
	"a/zz": "visible\n",
	"node_modules/keep/index.js": "ignored: a parent directory is excluded\n",
	"ignored-dir/tracked.txt": "tracked\n",
	"ignored-dir/untracked.txt": "ignored\n",
	"reinc/file.txt": "re-included over info/exclude\n",
	"[unclosed": "visible: the pattern matches nothing\n",
	"x.o": "ignored (CRLF line)\n",
	"important.o": "visible\n",
	"src/.gitignore": "generated.ts\n*.gen\n!/keep-me.gen\n/local-only\n",
	"src/generated.ts": "ignored\n",
	"src/a/generated.ts": "ignored at any depth below src\n",
	"src/x.gen": "ignored\n",
	"src/keep-me.gen": "re-included\n",
	"src/a/keep-me.gen": "ignored: the negation is anchored\n",
	"src/local-only": "ignored\n",
	"src/a/local-only": "visible\n",
	"src/deep/.gitignore": "!*.log\nsub/\n",
	"src/deep/trace.log": "re-included below src/deep\n",
	"src/deep/sub/x.ts": "ignored\n",
	"src/ünï cödé.ts": "visible\n",
	"with space.txt": "visible\n",
	"secret.key": "ignored by info/exclude\n",
	"home.global": "ignored by core.excludesFile\n",
	"globaldir/x": "ignored by core.excludesFile\n",
	"conflict.txt": "base\n",
};

/** A work tree with every kind of rule, tracked-but-ignored files, a submodule, a nested repository and a conflict. */
function fixture(): string {
	const root = tempDir("rt-listing-");
	for (const [path, text] of Object.entries(FILES)) write(root, path, text);
	git(root, "init", "-q");
	// Tracked before the ignore rules came: these stay listed.
	git(root, "add", "-f", "debug.log", "build/out.txt", "ignored-dir/tracked.txt");
	git(root, "add", ".gitignore", "README.md", "conflict.txt", "src/.gitignore");
	git(root, "commit", "-qm", "start");
	write(root, ".git/info/exclude", "*.key\nreinc/\n");
	const globalIgnore = join(tempDir("rt-home-"), "ignore");
	writeFileSync(globalIgnore, "*.global\nglobaldir/\n");
	git(root, "config", "core.excludesFile", globalIgnore);
	// A conflicted path: three stages in the index.
	git(root, "checkout", "-qb", "other");
	write(root, "conflict.txt", "theirs\n");
	git(root, "commit", "-qam", "theirs");
	git(root, "checkout", "-q", "-");
	write(root, "conflict.txt", "ours\n");
	git(root, "commit", "-qam", "ours");
	Bun.spawnSync(["git", "merge", "-q", "other"], { cwd: root, stderr: "ignore", stdout: "ignore" });
	// A submodule (a gitlink in the index) and an untracked nested repository: neither is walked.
	for (const nested of ["vendor/sub", "vendor/nested"]) {
		write(root, `${nested}/inner.txt`, "inside another repository\n");
		git(join(root, nested), "init", "-q");
		git(join(root, nested), "add", ".");
		git(join(root, nested), "commit", "-qm", "inner");
	}
	Bun.spawnSync(["git", "add", "vendor/sub"], { cwd: root, stderr: "ignore" });
	// A deleted tracked file, an intent-to-add one, symlinks, a FIFO.
	write(root, "gone.txt", "soon deleted\n");
	git(root, "add", "gone.txt");
	rmSync(join(root, "gone.txt"));
	write(root, "intent.txt", "intent to add\n");
	git(root, "add", "-N", "intent.txt");
	symlinkSync("src", join(root, "link-to-dir"));
	symlinkSync("README.md", join(root, "link-to-file"));
	Bun.spawnSync(["mkfifo", join(root, "pipe")]);
	mkdirSync(join(root, "empty-dir"));
	return root;
}

describe("the listing is git's", () => {
	const root = fixture();

	test("the whole work tree, and the fixture covers what it claims", async () => {
		const expected = gitListing(root);
		expect(await ours(root)).toEqual(expected);
		// The interesting cases are in git's answer as expected, so the comparison means something.
		for (const listed of [
			"debug.log",
			"build/out.txt",
			"ignored-dir/tracked.txt",
			"reinc/file.txt",
			"vendor/sub",
		])
			expect(expected).toContain(listed);
		for (const hidden of [
			"app.log",
			"src/a/keep-me.gen",
			"vendor/nested/inner.txt",
			"home.global",
			"secret.key",
		])
			expect(expected).not.toContain(hidden);
		expect(expected.filter((p) => p === "conflict.txt")).toHaveLength(1);
	});

	test("below a directory", async () => {
		for (const under of [
			"src",
			"src/deep",
			"build",
			"docs",
			"ignored-dir",
			"node_modules",
			"vendor",
			"vendor/sub",
		])
			expect(await ours(root, under)).toEqual(gitListing(root, under));
	});

	test("every index version", async () => {
		for (const version of ["2", "3", "4"]) {
			git(root, "update-index", "--index-version", version);
			expect(await ours(root)).toEqual(gitListing(root));
		}
	});

	test("a split index is left to git, and the listing is still git's", async () => {
		git(root, "update-index", "--split-index");
		try {
			await expect(ours(root)).rejects.toBeInstanceOf(AskGit);
			expect(await listFiles(root)).toEqual(gitListing(root));
		} finally {
			git(root, "update-index", "--no-split-index");
		}
	});

	test("a project root below the work tree's top", async () => {
		for (const sub of ["src", "src/deep"]) {
			const project = join(root, sub);
			expect(await ours(project)).toEqual(gitListing(project));
		}
	});

	test("a linked worktree: its own index, the shared info/exclude", async () => {
		const linked = join(tempDir("rt-worktree-"), "linked");
		git(root, "worktree", "add", "-q", "--detach", linked);
		write(linked, "untracked-here.txt", "only in the linked worktree\n");
		write(linked, "also.key", "ignored by the shared info/exclude\n");
		const expected = gitListing(linked);
		expect(expected).toContain("untracked-here.txt");
		expect(await ours(linked)).toEqual(expected);
	});

	test("changes between listings are seen: the index, an ignore file, the configuration", async () => {
		write(root, "later.txt", "new\n");
		expect(await ours(root)).toEqual(gitListing(root));
		git(root, "add", "later.txt");
		expect(await ours(root)).toEqual(gitListing(root));
		write(root, "src/.gitignore", "*.ts\n");
		expect(await ours(root)).toEqual(gitListing(root));
		git(root, "config", "--unset", "core.excludesFile");
		expect(await ours(root)).toEqual(gitListing(root));
	});
});

describe("wildcards are read as git reads them", () => {
	// Each pattern sits on its own line; each name is a file that some pattern might match.
	const PATTERNS = [
		"[a-]x",
		"[]]y",
		"[!]]z",
		"[[:alpha:]][[:digit:]]",
		"[[:bogus:]]w",
		"[\\]]v",
		"[z-a]u",
		"[[:space:]]t",
		"[!a-c]s",
		"[^a-c]r",
		"q[",
		"p\\*",
		"**/o/**/n",
		"m/**",
		"/l/*",
		"k?",
		"*.[ch]",
		"***j",
	];
	const NAMES = [
		"ax",
		"-x",
		"bx",
		"]y",
		"ay",
		"az",
		"]z",
		"a1",
		"11",
		"aa",
		"ww",
		"[w",
		"]v",
		"\\v",
		"zu",
		"au",
		" t",
		"at",
		"ds",
		"as",
		"dr",
		"ar",
		"q[",
		"q",
		"p*",
		"pp",
		"o/n",
		"o/a/b/n",
		"x/o/n",
		"n",
		"m/a",
		"m/b/c",
		"l/a",
		"l/b/c",
		"x/l/a",
		"k1",
		"k",
		"k12",
		"f.c",
		"f.h",
		"f.o",
		"d/f.c",
		"xj",
		"j",
	];

	test("bracket expressions, classes, escapes and stars", async () => {
		const root = tempDir("rt-wildcards-");
		write(root, ".gitignore", `${PATTERNS.join("\n")}\n`);
		for (const name of NAMES) write(root, `cases/${name}`, "x\n");
		for (const name of NAMES) write(root, name, "x\n");
		git(root, "init", "-q");
		const expected = gitListing(root);
		expect(await ours(root)).toEqual(expected);
		// Git both ignores and keeps some of them, so the comparison means something.
		expect(expected.length).toBeGreaterThan(10);
		expect(expected.length).toBeLessThan(2 * NAMES.length);
	});
});
