// blobs(): many paths' bytes at one commit through one `git cat-file --batch`, exactly as blob()
// reads each alone: text, binary, a link's target, a name with spaces or a newline; none for a path
// that is missing or a folder.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { blob, blobs } from "../../src/workspaces/create.ts";
import { removeTempDirs, tempDir } from "../_helpers/helpers.ts";

afterAll(removeTempDirs);

test("blobs() reads what blob() reads, for every kind of path", () => {
	const repo = tempDir("rt-blobs-");
	const git = (...args: string[]) =>
		Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: repo });
	git("init", "-q");
	mkdirSync(join(repo, "dir"));
	writeFileSync(join(repo, "dir/a.txt"), "alpha\n");
	writeFileSync(join(repo, "with space.txt"), "spaced\n");
	writeFileSync(join(repo, "new\nline.txt"), "newline\n");
	writeFileSync(join(repo, "bin.dat"), Buffer.from([0, 10, 255, 10, 0]));
	writeFileSync(join(repo, "empty"), "");
	symlinkSync("dir/a.txt", join(repo, "link"));
	git("add", "-A");
	git("commit", "-qm", "c");
	const gitDir = join(repo, ".git");
	const paths = [
		"dir/a.txt",
		"with space.txt",
		"new\nline.txt",
		"bin.dat",
		"empty",
		"link",
		"dir",
		"missing",
	];
	const got = blobs(gitDir, "HEAD", paths);
	expect([...got.keys()].sort()).toEqual([...paths].sort());
	for (const p of paths) expect({ p, bytes: got.get(p) }).toEqual({ p, bytes: blob(gitDir, "HEAD", p) });
	expect(got.get("bin.dat")).toEqual(Buffer.from([0, 10, 255, 10, 0]));
	expect(got.get("link")?.toString()).toBe("dir/a.txt");
	expect(got.get("dir")).toBeUndefined();
	expect(got.get("missing")).toBeUndefined();
});
