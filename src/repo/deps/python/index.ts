// The Python ecosystem: pyproject.toml (PEP 621, uv, Poetry) and requirements*.txt beside it, with
// uv.lock or poetry.lock for resolved versions.
import type { RepoRel } from "../../guard.ts";
import { type Found, requirementsIn, toml } from "../discover.ts";
import { lockedProject } from "../graph.ts";
import type { DepReader } from "../reader.ts";
import type { Declared, ProjectContext } from "../types.ts";
import { poetryLock, uvLock } from "./locks.ts";
import { projectName, pyprojectDeps, requirementsDeps } from "./manifest.ts";

export function loadPython(r: DepReader, f: Found): ProjectContext {
	const declared: Declared[] = [];
	let name: string | undefined;
	if (f.manifest?.endsWith("pyproject.toml")) {
		const doc = r.parse(f.manifest, "pyproject.toml", toml);
		if (doc) {
			declared.push(...pyprojectDeps(doc, f.manifest));
			name = projectName(doc);
		}
	}
	// Requirements files in the same folder count too, pyproject.toml or not.
	if (f.manifest !== null) {
		const seen = new Set<RepoRel>();
		for (const file of requirementsIn(r, f.dir)) declared.push(...requirementsDeps(r, file, seen));
	}
	return {
		project: lockedProject("python", f, declared, (file) =>
			file.endsWith("uv.lock")
				? r.parse(file, "uv.lock", (t) => uvLock(t, file, f.manifest === null ? undefined : name))
				: r.parse(file, "poetry.lock", (t) => poetryLock(t, file, f.manifest !== null)),
		),
		dir: f.dir,
		own: name === undefined ? [] : [name],
	};
}
