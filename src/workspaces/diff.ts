// What an agent changed in its workspace, as the owner reads it: the work tree against the base
// commit in the owner's own base.git, through an index of its own, so nothing the agent did to its
// .git (config, hooks, attributes' drivers, a rewritten history) takes part. Text, binary, modes,
// deletions and renames, as a git-style patch `git apply` takes.
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../domain/canonical.ts";
import { failedPrecondition, ToolError } from "../errors.ts";
import { addWorkTree, blobs, git, workspaceDir } from "./create.ts";

export interface WorkspaceChanges {
	/** The base commit the patch is against. */
	base: string;
	/** A git-style patch (a/ b/ prefixes), empty when nothing changed. */
	patch: string;
	files: { path: string; change: "added" | "modified" | "deleted" | "renamed" | "type_changed" }[];
}

const CHANGE: Record<string, WorkspaceChanges["files"][number]["change"]> = {
	A: "added",
	M: "modified",
	D: "deleted",
	R: "renamed",
	T: "type_changed",
};

/**
 * The changes in session `id`'s workspace; failed_precondition when it has none (or it is gone),
 * resource_exhausted when the patch would be over `maxBytes` (limits.max_patch_bytes): it is
 * written to a file and measured before it is read, so a huge file costs the owner no memory.
 */
export function workspaceChanges(
	root: string,
	id: string,
	o: { exclude: readonly string[]; maxBytes: number },
): WorkspaceChanges {
	const dir = workspaceDir(root, id);
	const work = join(dir, "work");
	const base = join(dir, "base.git");
	if (!existsSync(join(base, "HEAD")) || !existsSync(work))
		throw failedPrecondition(
			`session ${id} has no workspace (only a session bound to a task, launched in a sandbox, has one)`,
			{
				session_id: id,
			},
		);
	const index = join(dir, `diff-${process.pid}-${crypto.randomUUID()}.index`);
	const output = `${index}.patch`;
	const inBase = ["--git-dir", base, "--work-tree", work];
	try {
		const env = { GIT_INDEX_FILE: index };
		const head = git([...inBase, "rev-parse", "HEAD"], undefined, env).trim();
		git([...inBase, "read-tree", head], undefined, env);
		// workspaces.exclude, beside the ignore files the workspace holds: scratch files never proposed.
		const excludes = o.exclude.map((p) => `:(exclude,glob)${p}`);
		addWorkTree([...inBase, "add", "-A", "--", ".", ...excludes], env);
		git(
			[...inBase, "diff", "--cached", "--binary", "--full-index", "-M", `--output=${output}`, head],
			undefined,
			env,
		);
		const size = statSync(output).size;
		if (size > o.maxBytes)
			throw new ToolError(
				"resource_exhausted",
				`the workspace's changes make a patch of ${size} bytes, more than limits.max_patch_bytes (${o.maxBytes}): propose fewer files at once (workspaces.exclude leaves scratch files out), or raise the limit`,
				{ limit: "limits.max_patch_bytes", max: o.maxBytes, size },
			);
		const patch = readFileSync(output, "utf8");
		const status = git([...inBase, "diff", "--cached", "--name-status", "-z", "-M", head], undefined, env);
		const parts = status.split("\0").filter((p) => p !== "");
		const files: WorkspaceChanges["files"] = [];
		for (let i = 0; i < parts.length; ) {
			const code = (parts[i] as string)[0] as string;
			const renamed = code === "R" || code === "C";
			const path = parts[renamed ? i + 2 : i + 1] as string;
			files.push({ path, change: CHANGE[code] ?? "modified" });
			i += renamed ? 3 : 2;
		}
		return { base: head, patch, files };
	} finally {
		rmSync(index, { force: true });
		rmSync(output, { force: true });
	}
}

/**
 * What each of `paths` held in session `id`'s base, as the sha256 of its bytes ('' where the base has
 * no such file): recorded with the revision, so apply can refuse it once the project has moved on.
 */
export function baseHashes(root: string, id: string, paths: readonly string[]): Record<string, string> {
	const base = join(workspaceDir(root, id), "base.git");
	const out: Record<string, string> = {};
	for (const [path, bytes] of blobs(base, "HEAD", paths))
		out[path] = bytes === undefined ? "" : sha256(bytes);
	return out;
}
