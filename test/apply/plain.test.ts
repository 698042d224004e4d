// Plain multi-file unified diffs (`--- a/x` / `+++ b/x` per file, no `diff --git` or `diff` command
// lines between files) through patch.validate, patch.apply and patch.rollback, in real git
// repositories and a plain directory. Such a patch once failed validation with `patch failed:
// f1.txt:996`: `git apply --recount` reads the next file's `---`/`+++` header as one more removed
// and one more added line of the hunk before it, so only the last file of a plain patch applied.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchCopy } from "../../src/test-runs/workdir.ts";
import { type Flow, taskFlow } from "../_helpers/flow-helpers.ts";
import { commitAll, lacks, makeProject, runProcess, tempDir, write } from "../_helpers/helpers.ts";

type Files = Record<string, string>;

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join("");
/** `text` with its 1-based lines `at` replaced. */
const edit = (text: string, at: Record<number, string>) =>
	text
		.split("\n")
		.map((l, i) => at[i + 1] ?? l)
		.join("\n");

/** One file's plain diff by real GNU diff, named a/`path` and b/`path` as `diff -u --label` prints them. */
async function plainDiff(path: string, before: string, after: string): Promise<string> {
	const dir = tempDir("rt-plain-");
	writeFileSync(join(dir, "old"), before);
	writeFileSync(join(dir, "new"), after);
	const out = await runProcess(["diff", "-u", "--label", `a/${path}`, "--label", `b/${path}`, "old", "new"], {
		cwd: dir,
	});
	expect(out.code).toBe(1); // diff's "files differ"
	return out.stdout;
}

/** Every file's plain diff, concatenated in order: the patch a user pastes. */
async function plainPatch(before: Files, after: Files): Promise<string> {
	const parts: string[] = [];
	for (const path of Object.keys(after))
		parts.push(await plainDiff(path, before[path] ?? "", after[path] ?? ""));
	const patch = parts.join("");
	expect(patch).not.toContain("diff ");
	return patch;
}

/** A project holding `files` (a git repository unless `git` is false) and a task with every file claimed. */
async function project(files: Files, git = true): Promise<Flow> {
	const p = await makeProject();
	if (git) commitAll(p.root, files);
	else for (const [path, text] of Object.entries(files)) write(p.root, path, text);
	const f = await taskFlow(p);
	for (const path of Object.keys(files)) await f.claim("implementer-1", path);
	return f;
}

/** Proposes `patch`, requests review and gets the two approvals every gate needs. */
async function approved(f: Flow, patch: string): Promise<string> {
	const p = await f.propose({ patch });
	await f.call("proposal.request_review", { proposal_id: p.id });
	for (const agent of ["architect-1", "reviewer-1"]) await f.vote(p.id, agent);
	return p.id;
}

const contents = (root: string, files: Files) =>
	Object.fromEntries(Object.keys(files).map((path) => [path, readFileSync(join(root, path), "utf8")]));

/** Validates, applies and rolls back a plain patch from `before` to `after`, checking the bytes at each step. */
async function roundTrip(before: Files, after: Files, git = true) {
	const f = await project(before, git);
	const patch = await plainPatch(before, after);
	const id = await approved(f, patch);

	const v = await f.validate(id);
	expect(f.gate(v, "apply_check")).toEqual({
		gate: "apply_check",
		ok: true,
		reason: "git apply --check succeeds on the working tree",
	});
	expect([v.valid, v.approvable]).toEqual([true, true]);

	const applied = (await f.call("patch.apply", { proposal_id: id })) as {
		transaction: { id: string; files: { path: string }[] };
		proposal: { status: string };
	};
	expect(applied.proposal.status).toBe("accepted");
	expect(applied.transaction.files.map((x) => x.path)).toEqual(Object.keys(after).sort());
	expect(contents(f.p.root, after)).toEqual(after);

	const back = (await f.call("patch.rollback", { transaction_id: applied.transaction.id })) as {
		proposal: { status: string };
	};
	expect(back.proposal.status).toBe("rolled_back");
	expect(contents(f.p.root, before)).toEqual(before);
}

const TWO_BEFORE: Files = { "f1.txt": lines(1000, "one"), "f2.txt": lines(20, "two") };
// f1's hunk holds its last lines, so git reads straight on into f2's header unless it trusts the counts.
const TWO_AFTER: Files = {
	"f1.txt": edit(TWO_BEFORE["f1.txt"] as string, { 999: "one 999, changed" }),
	"f2.txt": edit(TWO_BEFORE["f2.txt"] as string, { 5: "two 5, changed" }),
};

const FIVE_BEFORE: Files = {
	"f1.txt": lines(1000, "one"),
	"src/f2.txt": lines(300, "two"),
	"src/deep/f3.txt": lines(50, "three"),
	"f4.txt": lines(8, "four"),
	"docs/f5.md": lines(1200, "five"),
};
const FIVE_AFTER: Files = {
	"f1.txt": edit(FIVE_BEFORE["f1.txt"] as string, { 2: "one 2, changed", 1000: "one 1000, changed" }),
	"src/f2.txt": edit(FIVE_BEFORE["src/f2.txt"] as string, {
		150: "two 150, changed",
		298: "two 298, changed",
	}),
	"src/deep/f3.txt": edit(FIVE_BEFORE["src/deep/f3.txt"] as string, { 1: "three 1, changed" }),
	"f4.txt": `${FIVE_BEFORE["f4.txt"]}four 9, added at the end\n`,
	"docs/f5.md": edit(FIVE_BEFORE["docs/f5.md"] as string, {
		600: "five 600, changed",
		1199: "five 1199, changed",
	}),
};

describe.skipIf(lacks("diff") !== null)(
	"plain multi-file unified diffs validate, apply and roll back like git-style ones",
	() => {
		test("2 files, the first changed 2 lines before the end of its 1,000 lines", async () => {
			await roundTrip(TWO_BEFORE, TWO_AFTER);
		});

		test("5 files in subdirectories, hunks at the start, middle and end, one line appended", async () => {
			await roundTrip(FIVE_BEFORE, FIVE_AFTER);
		});

		test("the same 5 files in a plain directory without .git", async () => {
			await roundTrip(FIVE_BEFORE, FIVE_AFTER, false);
		});

		test("a blank line after the last hunk, as a paste leaves it, is skipped by git as by the parser", async () => {
			// --recount counted it as one more context line, which the file does not have there.
			const f = await project(TWO_BEFORE);
			const patch = `${await plainPatch(TWO_BEFORE, TWO_AFTER)}\n`;
			const v = await f.validate(await approved(f, patch));
			expect(f.gate(v, "apply_check").ok).toBe(true);
		});

		test("test.run's scratch copy of the project takes the same patch", async () => {
			const root = tempDir("rt-plain-root-");
			commitAll(root, FIVE_BEFORE);
			const patchFile = join(tempDir("rt-plain-patch-"), "p.diff");
			writeFileSync(patchFile, await plainPatch(FIVE_BEFORE, FIVE_AFTER));
			const work = await scratchCopy(root, { file: patchFile, strip: 1 });
			try {
				expect(contents(work.dir, FIVE_AFTER)).toEqual(FIVE_AFTER);
				expect(contents(root, FIVE_BEFORE)).toEqual(FIVE_BEFORE);
			} finally {
				work.remove();
			}
		});
	},
);
