// pnpm-lock.yaml. v9: `importers` (one per workspace path, "." the root) list each declared
// dependency as {specifier, version}; `snapshots` hold the graph keyed "name@version" plus any
// peer suffix ("react-dom@18.3.1(react@18.3.1)"); `packages` hold metadata only. v6 kept the graph
// in `packages` under "/name@version" keys and flagged dev packages. A "link:../lib" version points
// at another importer, whose own dependencies then continue the graph.
import { parse } from "yaml";
import { isRecord, resolveRel } from "../reader.ts";
import type { Lock, LockPackage } from "../types.ts";

const IMPORTER_SECTIONS = ["dependencies", "devDependencies", "optionalDependencies"] as const;
const EDGES = ["dependencies", "optionalDependencies"] as const;

/** "@types/node@20.1.0(x@1)" → ["@types/node", "20.1.0"]. */
function nameVersion(key: string): [string, string] {
	const plain = key.replace(/^\//, "").replace(/\(.*$/, "");
	const at = plain.lastIndexOf("@");
	return at <= 0 ? [plain, ""] : [plain.slice(0, at), plain.slice(at + 1)];
}

/** The version pnpm records for a dependency: a string, or {specifier, version}. */
const versionOf = (v: unknown): string | undefined =>
	typeof v === "string" ? v : isRecord(v) && typeof v.version === "string" ? v.version : undefined;

export function pnpmLock(text: string, file: string, importer: string | undefined): Lock {
	const doc: unknown = parse(text);
	if (!isRecord(doc) || doc.lockfileVersion === undefined) throw new Error("it has no lockfileVersion");
	// Before workspaces were recorded, a single project's dependencies sat at the top level.
	const importers: Record<string, unknown> = isRecord(doc.importers) ? doc.importers : { ".": doc };
	const graph: Record<string, unknown> = isRecord(doc.snapshots)
		? doc.snapshots
		: isRecord(doc.packages)
			? doc.packages
			: {};
	const meta: Record<string, unknown> = isRecord(doc.packages) ? doc.packages : {};

	const packages = new Map<string, LockPackage>();
	/** The graph key for a dependency as an importer or snapshot records it. */
	const keyFor = (name: string, version: string, fromImporter: string): string | undefined => {
		if (version.startsWith("link:")) {
			const path = resolveRel(fromImporter === "." ? "" : fromImporter, version.slice(5));
			return path === undefined ? undefined : `importer:${path === "" ? "." : path}`;
		}
		// An alias ("string-width@4.2.3" under the name "string-width-cjs") names its own key.
		const base = /^[^(]+@/.test(version) && !version.startsWith("(") ? version : `${name}@${version}`;
		if (Object.hasOwn(graph, base)) return base;
		if (Object.hasOwn(graph, `/${base}`)) return `/${base}`;
		return undefined;
	};

	for (const [key, entry] of Object.entries(graph)) {
		if (entry !== null && !isRecord(entry)) throw new Error(`package "${key}" is not a mapping`);
		const e = entry ?? {};
		const [name, version] = nameVersion(key);
		const deps: string[] = [];
		for (const edge of EDGES) {
			for (const [dep, v] of Object.entries(isRecord(e[edge]) ? e[edge] : {})) {
				const k = typeof v === "string" ? keyFor(dep, v, ".") : undefined;
				if (k !== undefined) deps.push(k);
			}
		}
		const m = meta[key.replace(/\(.*$/, "")];
		const dev = e.dev === true || (isRecord(m) && m.dev === true);
		packages.set(key, {
			name,
			version,
			deps,
			scope: dev ? "dev" : e.optional === true ? "optional" : undefined,
		});
	}

	// Each importer is a package too, so a workspace link leads on into that member's dependencies.
	const sections = (imp: string, which: readonly string[]) => {
		const entry = importers[imp];
		return which.flatMap((s) => Object.entries(isRecord(entry) && isRecord(entry[s]) ? entry[s] : {}));
	};
	for (const imp of Object.keys(importers)) {
		const entry = importers[imp];
		const name =
			isRecord(entry) && typeof entry.name === "string" ? entry.name : imp.slice(imp.lastIndexOf("/") + 1);
		const deps = sections(imp, EDGES)
			.map(([dep, v]) => {
				const version = versionOf(v);
				return version === undefined ? undefined : keyFor(dep, version, imp);
			})
			.filter((k): k is string => k !== undefined);
		// pnpm records no version for a workspace member, only where it links to.
		packages.set(`importer:${imp}`, { name, version: `link:${imp}`, deps, local: true });
	}

	const own = importer === undefined ? undefined : importer === "" ? "." : importer;
	return {
		file,
		packages,
		recordsProject: own !== undefined && isRecord(importers[own]),
		direct: (d) => {
			if (own === undefined) return undefined;
			const name = d.name;
			const found = sections(own, IMPORTER_SECTIONS).find(([dep]) => dep === name);
			const version = found === undefined ? undefined : versionOf(found[1]);
			return version === undefined ? undefined : keyFor(name, version, own);
		},
	};
}
