// A plain copy of some of a repository's files: each file with its bytes and mode (cloned where the
// filesystem can), each symlink as a symlink (never followed), missing ones skipped. Used for a test
// run's scratch copy and for an agent's workspace.
import { chmodSync, constants, copyFileSync, lstatSync, mkdirSync, readlinkSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";

/** Copies `files` (repo-relative) from `root` into `dir`, making folders as needed. */
export function copyTree(root: string, dir: string, files: string[]): void {
	const made = new Set<string>();
	for (const rel of files) {
		const from = join(root, rel);
		const to = join(dir, rel);
		let stat: ReturnType<typeof lstatSync>;
		try {
			stat = lstatSync(from);
		} catch {
			continue; // tracked but deleted in the working tree: absent here too
		}
		const parent = dirname(to);
		if (!made.has(parent)) {
			mkdirSync(parent, { recursive: true });
			made.add(parent);
		}
		if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
		else if (stat.isFile()) {
			copyFileSync(from, to, constants.COPYFILE_FICLONE);
			chmodSync(to, stat.mode & 0o7777);
		}
	}
}
