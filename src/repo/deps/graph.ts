// Turns what a manifest declares and what its lockfiles record into the reported dependency list:
// direct dependencies get their resolved version from the lockfiles, and the transitive ones are
// the packages reachable from them in each lockfile's graph (so a workspace member does not
// inherit its siblings' dependencies). A lockfile that does not record the project at all (no
// manifest, a virtual Cargo workspace) contributes everything it holds as transitive.
import type { RepoRel } from "../guard.ts";
import type { Found } from "./discover.ts";
import type { Declared, Dependency, Ecosystem, Lock, Project, Scope, Source } from "./types.ts";

/** When one package is reached several ways, the most "runtime" scope wins. */
const RANK: Record<Scope, number> = { runtime: 0, peer: 1, optional: 2, build: 3, dev: 4 };
const stronger = (a: Scope, b: Scope): Scope => (RANK[a] <= RANK[b] ? a : b);

function addSource(sources: Source[], s: Source) {
	if (!sources.some((x) => x.file === s.file && x.kind === s.kind)) sources.push(s);
}

/** The project `f` found: what its manifest declares, resolved through those of its lockfiles that parse. */
export function lockedProject(
	ecosystem: Ecosystem,
	f: Found,
	declared: Declared[],
	parseLock: (file: RepoRel) => Lock | undefined,
): Project {
	const locks = f.lockfiles.flatMap((file) => parseLock(file) ?? []);
	const dependencies = assemble(declared, locks);
	return { ecosystem, manifest: f.manifest, lockfiles: locks.map((l) => l.file), dependencies };
}

function assemble(declared: Declared[], locks: Lock[]): Dependency[] {
	const direct = new Map<string, Dependency>(); // by name + scope: one entry per declaration
	const roots = locks.map(() => new Map<string, Scope>()); // per lock: direct key → scope
	for (const d of declared) {
		const id = `${d.name}\0${d.scope}`;
		let dep = direct.get(id);
		if (!dep) {
			dep = {
				name: d.name,
				scope: d.scope,
				relation: "direct",
				declared: d.declared,
				resolved: null,
				sources: [],
			};
			direct.set(id, dep);
		}
		for (const file of d.files) addSource(dep.sources, { file, kind: "manifest" });
		locks.forEach((lock, i) => {
			const key = lock.direct(d);
			const pkg = key === undefined ? undefined : lock.packages.get(key);
			if (key === undefined || !pkg) return;
			dep.resolved ??= pkg.version;
			addSource(dep.sources, { file: lock.file, kind: "lockfile" });
			const seen = roots[i] as Map<string, Scope>;
			seen.set(key, stronger(seen.get(key) ?? d.scope, d.scope));
		});
	}
	const directVersions = new Set([...direct.values()].map((d) => `${d.name}\0${d.resolved}`));
	const transitive = new Map<string, Dependency>(); // by name + version
	locks.forEach((lock, i) => {
		for (const [key, scope] of reach(lock, roots[i] as Map<string, Scope>)) {
			const pkg = lock.packages.get(key);
			if (!pkg) continue;
			const id = `${pkg.name}\0${pkg.version}`;
			if (directVersions.has(id)) continue; // the direct dependency itself, reached again
			const own = pkg.scope ?? scope;
			const dep = transitive.get(id);
			if (dep) {
				dep.scope = stronger(dep.scope, own);
				addSource(dep.sources, { file: lock.file, kind: "lockfile" });
			} else {
				transitive.set(id, {
					name: pkg.name,
					scope: own,
					relation: "transitive",
					declared: null,
					resolved: pkg.version,
					sources: [{ file: lock.file, kind: "lockfile" }],
				});
			}
		}
	});
	return sortDependencies([...direct.values(), ...transitive.values()]);
}

/** Packages reachable from the roots (roots excluded), each with the strongest scope that reaches it. */
function reach(lock: Lock, roots: Map<string, Scope>): Map<string, Scope> {
	const out = new Map<string, Scope>();
	if (!lock.recordsProject) {
		for (const [key, pkg] of lock.packages) if (!pkg.local && !roots.has(key)) out.set(key, "runtime");
		return out;
	}
	const best = new Map(roots);
	const queue = [...roots.keys()];
	for (let i = 0; i < queue.length; i++) {
		const key = queue[i] as string;
		const scope = best.get(key) as Scope;
		for (const next of lock.packages.get(key)?.deps ?? []) {
			const had = best.get(next);
			const now = had === undefined ? scope : stronger(had, scope);
			if (had === now) continue;
			best.set(next, now);
			queue.push(next);
		}
	}
	for (const [key, scope] of best) if (!roots.has(key)) out.set(key, scope);
	return out;
}

/** Direct first, then by name; ties by scope and version so the order is stable. */
export function sortDependencies(deps: Dependency[]): Dependency[] {
	return deps.sort(
		(a, b) =>
			(a.relation === b.relation ? 0 : a.relation === "direct" ? -1 : 1) ||
			cmp(a.name, b.name) ||
			RANK[a.scope] - RANK[b.scope] ||
			cmp(a.resolved ?? "", b.resolved ?? ""),
	);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
