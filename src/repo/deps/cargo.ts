// Cargo: Cargo.toml's [dependencies], [dev-dependencies], [build-dependencies] and their
// [target.'cfg(…)'.*] twins; a `workspace = true` entry takes its requirement from the workspace
// root's [workspace.dependencies]. Cargo.lock lists every package with its dependencies ("name",
// or "name version" when several versions are locked); the project's own entry is the local
// package (no `source`) with its name.
import { type Found, toml } from "./discover.ts";
import { lockedProject } from "./graph.ts";
import { type DepReader, isRecord, joinRel, stringList } from "./reader.ts";
import type { Declared, Lock, LockPackage, ProjectContext, Scope } from "./types.ts";

const SECTIONS: [string, Scope][] = [
	["dependencies", "runtime"],
	["dev-dependencies", "dev"],
	["dev_dependencies", "dev"],
	["build-dependencies", "build"],
	["build_dependencies", "build"],
];

/** The requirement a dependency entry states, in Cargo's own words. */
function requirement(spec: Record<string, unknown>): string | undefined {
	if (typeof spec.version === "string") return spec.version;
	if (typeof spec.git === "string") {
		const ref = [spec.branch, spec.tag, spec.rev].find((v) => typeof v === "string");
		return `git+${spec.git}${ref === undefined ? "" : `#${ref}`}`;
	}
	if (typeof spec.path === "string") return `path+${spec.path}`;
	return undefined;
}

function declaredDeps(
	manifest: Record<string, unknown>,
	file: string,
	root?: { file: string; doc: Record<string, unknown> },
) {
	const inherited =
		isRecord(root?.doc.workspace) && isRecord(root.doc.workspace.dependencies)
			? root.doc.workspace.dependencies
			: {};
	const tables: [unknown, Scope][] = SECTIONS.map(([s, scope]) => [manifest[s], scope]);
	for (const target of Object.values(isRecord(manifest.target) ? manifest.target : {})) {
		if (isRecord(target)) for (const [s, scope] of SECTIONS) tables.push([target[s], scope]);
	}
	const out: Declared[] = [];
	/** Import key (the name code uses, `-` → `_`) → dependency name. */
	const keys = new Map<string, string>();
	for (const [table, scope] of tables) {
		if (!isRecord(table)) continue;
		for (const [key, value] of Object.entries(table)) {
			let spec: Record<string, unknown> = isRecord(value) ? value : { version: value };
			const files = [file];
			if (spec.workspace === true && root) {
				const base = inherited[key];
				spec = { ...(isRecord(base) ? base : { version: base }), ...spec };
				files.push(root.file);
			}
			const name = typeof spec.package === "string" ? spec.package : key;
			out.push({
				name,
				scope: scope === "runtime" && spec.optional === true ? "optional" : scope,
				declared: requirement(spec) ?? "*",
				files,
			});
			keys.set(key.replaceAll("-", "_"), name);
		}
	}
	return { declared: out, keys };
}

/** Cargo's default requirement "1.2" means ^1.2: same major (or same minor below 1.0). */
function compatible(version: string, requirementText: string): boolean {
	const want = /^\^?=?\s*(\d+)(?:\.(\d+))?/.exec(requirementText.trim());
	const have = /^(\d+)\.(\d+)/.exec(version);
	if (!want || !have) return false;
	if (want[1] !== have[1]) return false;
	return want[1] !== "0" || want[2] === undefined || want[2] === have[2];
}

function cargoLock(text: string, file: string, rootName: string | undefined): Lock {
	const doc = toml(text);
	if (!Array.isArray(doc.package)) throw new Error("it has no [[package]] entries");
	const entries = doc.package.filter(isRecord);
	const byName = new Map<string, string[]>();
	const packages = new Map<string, LockPackage>();
	for (const e of entries) {
		if (typeof e.name !== "string" || typeof e.version !== "string")
			throw new Error("a [[package]] has no name or version");
		const key = `${e.name} ${e.version}`;
		byName.set(e.name, [...(byName.get(e.name) ?? []), key]);
		packages.set(key, { name: e.name, version: e.version, deps: [], local: e.source === undefined });
	}
	/** A lock reference: "name", "name version" or "name version (source)". */
	const refKey = (ref: string): string | undefined => {
		const [name, version] = ref.split(" ");
		if (version !== undefined) return packages.has(`${name} ${version}`) ? `${name} ${version}` : undefined;
		const keys = byName.get(name as string) ?? [];
		return keys.length === 1 ? keys[0] : undefined;
	};
	for (const e of entries) {
		const pkg = packages.get(`${e.name} ${e.version}`) as LockPackage;
		pkg.deps = stringList(e.dependencies)
			.map(refKey)
			.filter((k): k is string => k !== undefined);
	}
	const root = entries.find((e) => e.name === rootName && e.source === undefined);
	const rootDeps = root ? (packages.get(`${root.name} ${root.version}`)?.deps ?? []) : [];
	return {
		file,
		packages,
		recordsProject: root !== undefined,
		direct: (d) => {
			const name = d.name;
			const candidates = rootDeps.filter((k) => packages.get(k)?.name === name);
			if (candidates.length <= 1) return candidates[0];
			// Several versions of one crate: the one the requirement is compatible with, if only one is.
			const fit = candidates.filter((k) => compatible(packages.get(k)?.version ?? "", d.declared));
			return fit.length === 1 ? fit[0] : undefined;
		},
	};
}

export function loadCargo(r: DepReader, f: Found): ProjectContext {
	const manifest = f.manifest === null ? undefined : r.parse(f.manifest, "Cargo.toml", toml);
	const rootFile = f.workspaceRoot === undefined ? undefined : joinRel(f.workspaceRoot, "Cargo.toml");
	const rootDoc = rootFile === undefined ? undefined : r.parse(rootFile, "Cargo.toml", toml);
	const root = rootFile !== undefined && rootDoc ? { file: rootFile, doc: rootDoc } : undefined;
	const { declared, keys } =
		manifest && f.manifest !== null
			? declaredDeps(manifest, f.manifest, root)
			: { declared: [], keys: new Map() };
	const pkg = isRecord(manifest?.package) ? manifest.package : undefined;
	const name = typeof pkg?.name === "string" ? pkg.name : undefined;
	const lib =
		isRecord(manifest?.lib) && typeof manifest.lib.name === "string" ? manifest.lib.name : undefined;
	return {
		project: lockedProject("cargo", f, declared, (file) =>
			r.parse(file, "Cargo.lock", (text) => cargoLock(text, file, f.manifest === null ? undefined : name)),
		),
		dir: f.dir,
		own: [name, lib].filter((n): n is string => n !== undefined).map((n) => n.replaceAll("-", "_")),
		keys,
	};
}
