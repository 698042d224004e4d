// Where a sandboxed test run, and a proposal's, runs: a scratch copy of the project as git sees it (tracked and untracked
// files, not ignored ones, never .git/ or .roundtable/) with the proposal's current patch applied,
// outside the project so nothing in it finds the real repository above. Dependency folders that the
// copy leaves out (node_modules, a virtualenv) are brought in as a farm of hard links: the tests can
// import them, and what a test writes or deletes there (a cache, a reinstall) stays in the copy.
import {
	existsSync,
	linkSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readlinkSync,
	rmSync,
	symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gitApply } from "../patches.ts";
import { copyTree } from "../repo/copy.ts";
import { listFiles } from "../repo/files.ts";

/** Ignored folders that hold installed dependencies, looked for next to each package manifest. */
const DEPENDENCY_DIRS = ["node_modules", ".venv", "venv"];

export class PatchDoesNotApply extends Error {}

export interface Workdir {
	dir: string;
	/** The dependency folders brought in (absolute, in the copy): a sandbox binds them read-only. */
	dependencies: string[];
	remove(): void;
}

/** `from`'s directories made anew under `to`, its files hard-linked (no bytes copied), its symlinks copied. */
function linkFarm(from: string, to: string): void {
	mkdirSync(to);
	for (const entry of readdirSync(from, { withFileTypes: true })) {
		const source = join(from, entry.name);
		const target = join(to, entry.name);
		if (entry.isDirectory()) linkFarm(source, target);
		else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
		else if (entry.isFile()) linkSync(source, target);
	}
}

/**
 * A dependency folder for the copy: a link farm, or — where hard links cannot go (another
 * filesystem, or files the kernel will not let us link) — a symbolic link to the folder itself.
 */
function bringDependency(source: string, target: string): void {
	mkdirSync(dirname(target), { recursive: true });
	try {
		linkFarm(source, target);
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		if (code !== "EXDEV" && code !== "EPERM" && code !== "EMLINK") throw err;
		rmSync(target, { recursive: true, force: true });
		symlinkSync(source, target);
	}
}

function linkDependencies(root: string, dir: string, files: string[]): string[] {
	const brought: string[] = [];
	const homes = new Set([""]);
	for (const rel of files) {
		if (/(^|\/)(package\.json|pyproject\.toml|requirements\.txt)$/.test(rel))
			homes.add(dirname(rel) === "." ? "" : dirname(rel));
	}
	for (const home of homes) {
		for (const name of DEPENDENCY_DIRS) {
			const rel = home === "" ? name : `${home}/${name}`;
			const found = lstatSync(join(root, rel), { throwIfNoEntry: false });
			if (!found || existsSync(join(dir, rel))) continue;
			brought.push(join(dir, rel));
			if (found.isDirectory()) bringDependency(join(root, rel), join(dir, rel));
			else if (found.isSymbolicLink()) {
				// Already a link to somewhere else (a shared store): the copy links there too.
				mkdirSync(dirname(join(dir, rel)), { recursive: true });
				symlinkSync(join(root, rel), join(dir, rel));
			}
		}
	}
	return brought;
}

/**
 * A scratch copy of the project, with the patch applied when there is one (throws PatchDoesNotApply
 * when it does not); `keep` narrows which of the project's files it holds.
 */
export async function scratchCopy(
	root: string,
	patch: { file: string; strip: number } | undefined,
	keep: (rel: string) => boolean = () => true,
): Promise<Workdir> {
	const dir = mkdtempSync(join(tmpdir(), "roundtable-test-"));
	const remove = () => rmSync(dir, { recursive: true, force: true });
	try {
		const files = (await listFiles(root)).filter(keep);
		copyTree(root, dir, files);
		const dependencies = linkDependencies(root, dir, files);
		const failure = patch && (await gitApply(dir, patch.file, patch.strip, false));
		if (failure !== undefined) throw new PatchDoesNotApply(`the proposal's patch does not apply: ${failure}`);
		return { dir, dependencies, remove };
	} catch (err) {
		remove();
		throw err;
	}
}
