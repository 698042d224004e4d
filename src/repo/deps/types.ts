// The shapes shared by the manifest, lockfile and import readers of repo.dependency_context.
// Output shapes mirror the declared schema in src/registry/repo.ts.
import type { DEPENDENCY_ECOSYSTEMS } from "../../vocabulary/statuses.ts";
import type { RepoRel } from "../guard.ts";

export type Ecosystem = (typeof DEPENDENCY_ECOSYSTEMS)[number];
export type Scope = "runtime" | "dev" | "optional" | "peer" | "build";

export interface Source {
	file: RepoRel;
	kind: "manifest" | "lockfile";
}

export interface Dependency {
	name: string;
	scope: Scope;
	relation: "direct" | "transitive";
	declared: string | null;
	resolved: string | null;
	sources: Source[];
}

export interface Project {
	ecosystem: Ecosystem;
	manifest: RepoRel | null;
	lockfiles: RepoRel[];
	dependencies: Dependency[];
}

export interface ImportRecord {
	specifier: string;
	line: number;
	status: "dependency" | "builtin" | "relative" | "unresolved";
	dependency: string | null;
	ecosystem: Ecosystem | null;
	reason: string | null;
}

/** One dependency as a manifest declares it. */
export interface Declared {
	/** The name reported (a Python distribution is PEP 503-normalized). */
	name: string;
	scope: Scope;
	declared: string;
	/** Manifest files that state it (a Cargo `workspace = true` dependency names the root too). */
	files: RepoRel[];
}

/** One package of a lockfile, under a key that is unique within that lockfile. */
export interface LockPackage {
	name: string;
	version: string;
	/** Keys of the packages it depends on, already resolved within the lockfile. */
	deps: string[];
	/** What the lockfile itself says about it (npm's dev/optional/peer flags, poetry's groups). */
	scope?: Scope;
	/** A workspace member or a path/link package rather than something installed from a registry. */
	local?: boolean;
}

export interface Lock {
	file: RepoRel;
	packages: Map<string, LockPackage>;
	/**
	 * Whether the lockfile records this project itself (an importer, a workspace entry, a root
	 * package), so its dependency graph can be walked from the project's direct dependencies.
	 * When it does not, everything in it is reported as transitive.
	 */
	recordsProject: boolean;
	/** The key a direct dependency resolved to, or undefined when the lockfile does not say. */
	direct(dep: Declared): string | undefined;
}

/** What the import mapper needs beyond the dependency list. */
export interface ProjectContext {
	project: Project;
	/** Directory of the manifest (repo-relative, "" for the root). */
	dir: RepoRel;
	/** Names that refer to the project itself (npm package name, Go module path, own crate, Python project). */
	own: string[];
	/** Import key → dependency name, where the import key is not simply the name (Cargo renames). */
	keys?: Map<string, string>;
}
