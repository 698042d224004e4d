// package-lock.json / npm-shrinkwrap.json, lockfileVersion 2 and 3: `packages` is keyed by install
// path ("node_modules/a", "node_modules/a/node_modules/b", "packages/api" for a workspace), so a
// dependency resolves the way Node resolves it: the nearest node_modules folder up the tree.
import { isRecord, jsonObject } from "../reader.ts";
import type { Lock, LockPackage, Scope } from "../types.ts";

const EDGES = ["dependencies", "optionalDependencies", "peerDependencies"] as const;

export function packageLock(text: string, file: string, importer: string | undefined): Lock {
	const doc = jsonObject(text);
	if (!isRecord(doc.packages)) {
		throw new Error(
			doc.lockfileVersion === 1
				? 'lockfileVersion 1 (no "packages" map) is not supported'
				: 'it has no "packages" map',
		);
	}
	const entries = new Map<string, Record<string, unknown>>();
	for (const [path, entry] of Object.entries(doc.packages)) if (isRecord(entry)) entries.set(path, entry);

	/** A workspace link ("node_modules/lib" → "packages/lib") stands for the folder it points at. */
	const follow = (path: string): string => {
		const e = entries.get(path);
		return e?.link === true && typeof e.resolved === "string" ? e.resolved : path;
	};
	/** Node's lookup: `from`/node_modules/name, then each parent folder's node_modules. */
	const locate = (from: string, name: string): string | undefined => {
		const parts = from === "" ? [] : from.split("/");
		for (let i = parts.length; i >= 0; i--) {
			if (i > 0 && parts[i - 1] === "node_modules") continue;
			const prefix = parts.slice(0, i).join("/");
			const candidate = prefix === "" ? `node_modules/${name}` : `${prefix}/node_modules/${name}`;
			if (entries.has(candidate)) return follow(candidate);
		}
		return undefined;
	};

	const packages = new Map<string, LockPackage>();
	for (const [path, e] of entries) {
		if (path === "" || e.link === true) continue;
		const at = path.lastIndexOf("node_modules/");
		const local = at === -1; // a workspace folder, not an install location
		const name = local
			? typeof e.name === "string"
				? e.name
				: path.slice(path.lastIndexOf("/") + 1)
			: path.slice(at + 13);
		const deps: string[] = [];
		for (const edge of EDGES) {
			if (!isRecord(e[edge])) continue;
			for (const dep of Object.keys(e[edge])) {
				const key = locate(path, dep);
				if (key !== undefined) deps.push(key);
			}
		}
		const version = typeof e.version === "string" ? e.version : `file:${path}`;
		packages.set(path, { name, version, deps, scope: flags(e), local });
	}
	return {
		file,
		packages,
		recordsProject: importer !== undefined && entries.has(importer),
		direct: (d) => (importer === undefined ? undefined : locate(importer, d.name)),
	};
}

/** npm marks what only dev or optional dependencies pull in. */
function flags(e: Record<string, unknown>): Scope | undefined {
	if (e.dev === true || e.devOptional === true) return "dev";
	if (e.optional === true) return "optional";
	if (e.peer === true) return "peer";
	return undefined;
}
