// repo.dependency_context: for a manifest, lockfile, source file or directory, the governing
// projects (one per ecosystem), their direct and transitive dependencies with declared and
// resolved versions, and — for a source file — what each import maps to. Everything is read from
// the repository through the guard; nothing is fetched.
import { statSync } from "node:fs";
import { DEPENDENCY_ECOSYSTEMS } from "../../vocabulary/statuses.ts";
import type { RepoGuard, RepoRel } from "../guard.ts";
import { loadCargo } from "./cargo.ts";
import { discover, ecosystemOfFile, type Found } from "./discover.ts";
import { loadGo } from "./go.ts";
import { sourceImports } from "./imports/index.ts";
import { loadNpm } from "./npm/index.ts";
import { loadPython } from "./python/index.ts";
import { baseOf, DepReader, dirOf } from "./reader.ts";
import type { Ecosystem, ImportRecord, Project, ProjectContext } from "./types.ts";

export interface DependencyContext {
	path: string;
	target: "manifest" | "lockfile" | "source" | "directory";
	projects: Project[];
	imports: ImportRecord[];
	warnings: string[];
}

const LOADERS: Record<Ecosystem, (r: DepReader, f: Found) => ProjectContext> = {
	npm: loadNpm,
	go: loadGo,
	cargo: loadCargo,
	python: loadPython,
};

export async function dependencyContext(guard: RepoGuard, path: string): Promise<DependencyContext> {
	const { abs, rel } = guard.resolve(path); // not_found, outside the repository, .git/.roundtable: refused here
	const isDirectory = statSync(abs).isDirectory();
	const file = isDirectory ? undefined : ecosystemOfFile(baseOf(rel));
	const target = isDirectory ? "directory" : (file?.kind ?? "source");
	// A manifest or lockfile the caller names must parse; other files that do not are skipped.
	const r = new DepReader(guard, file ? rel : undefined);
	const start: RepoRel = isDirectory ? rel : dirOf(rel);
	const contexts: Partial<Record<Ecosystem, ProjectContext>> = {};
	for (const ecosystem of file ? [file.ecosystem] : DEPENDENCY_ECOSYSTEMS) {
		let found = discover(r, ecosystem, start);
		if (file?.kind === "lockfile" && !found?.lockfiles.includes(rel)) {
			// A lockfile with no manifest of its own: reported alone, everything in it transitive.
			found = { ecosystem, dir: start, manifest: null, lockfiles: [rel], lockDir: start };
		}
		// A requirements file the caller names is that project's manifest (unless pyproject.toml is beside it).
		if (
			file?.kind === "manifest" &&
			ecosystem === "python" &&
			found &&
			!found.manifest?.endsWith("pyproject.toml")
		) {
			found.manifest = rel;
		}
		if (found) contexts[ecosystem] = LOADERS[ecosystem](r, found);
	}
	return {
		path, // as given, like repo.read_file; every path inside the result is repository-relative
		target,
		projects: DEPENDENCY_ECOSYSTEMS.flatMap((e) => contexts[e]?.project ?? []),
		imports: target === "source" ? sourceImports(r, rel, contexts) : [],
		warnings: r.warnings,
	};
}
