// The way back to git itself, for what the in-process listing will not guess about (a split or
// sparse index, git's location given by the environment): `git ls-files` answers, as it did for
// every search before the listing was read in process.
import { isHidden, type RepoRel } from "../guard.ts";

/** Thrown where the in-process listing could differ from git's: the caller asks git instead. */
export class AskGit extends Error {
	override name = "AskGit";
}

/** Environment variables that move git's repository, index or work tree away from where we look. */
const RELOCATING = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"];

export const gitRelocated = () => RELOCATING.some((name) => process.env[name] !== undefined);

/**
 * `git ls-files --cached --others --exclude-standard` for `under`, relative to `root`; undefined
 * when git is missing or `root` is not in a work tree.
 */
export async function lsFiles(root: string, under: RepoRel): Promise<RepoRel[] | undefined> {
	let proc: ReturnType<typeof Bun.spawn>;
	try {
		proc = Bun.spawn(
			[
				"git",
				"ls-files",
				"-z",
				"--cached",
				"--others",
				"--exclude-standard",
				"--",
				under === "" ? "." : `:(literal)${under}`,
			],
			{
				cwd: root,
				stdin: "ignore",
				stdout: "pipe",
				stderr: "ignore",
				env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
			},
		);
	} catch {
		return undefined; // no git on this machine
	}
	const [out, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), proc.exited]);
	if (code !== 0) return undefined;
	// A nested repository shows up as "dir/": skip it like any directory. A conflicted path comes
	// once per stage.
	return [...new Set(out.split("\0").filter((p) => p !== "" && !p.endsWith("/") && !isHidden(p)))];
}
