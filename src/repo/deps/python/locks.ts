// Python lockfiles. uv.lock: [[package]] entries with `dependencies = [{ name, version?, extra? }]`;
// the project itself is the entry whose source is the local folder (editable/virtual), and its
// optional and dev dependencies are listed per extra and group. poetry.lock: [[package]] entries
// with a [package.dependencies] table by name; it does not record the project itself, and marks
// which group (main, dev, …) each package belongs to.
import { toml } from "../discover.ts";
import { isRecord } from "../reader.ts";
import type { Lock, LockPackage, Scope } from "../types.ts";
import { normalize } from "./manifest.ts";

type Ref = { name: string; version?: string; extra: string[] };

type Entry = Record<string, unknown>;

/**
 * The [[package]] entries under their keys ("name version", the name PEP 503-normalized), each
 * package with no edges yet, and the keys of each name for references that name only the package.
 */
function readPackages(
	text: string,
	describe: (e: Entry, source: Entry) => Pick<LockPackage, "scope" | "local">,
) {
	const doc = toml(text);
	if (!Array.isArray(doc.package)) throw new Error("it has no [[package]] entries");
	const byKey = new Map<string, Entry>();
	const packages = new Map<string, LockPackage>();
	const byName = new Map<string, string[]>();
	for (const e of doc.package.filter(isRecord)) {
		if (typeof e.name !== "string") throw new Error("a [[package]] has no name");
		const name = normalize(e.name);
		const version = String(e.version ?? "");
		const key = `${name} ${version}`;
		if (!byKey.has(key)) byName.set(name, [...(byName.get(name) ?? []), key]);
		byKey.set(key, e);
		packages.set(key, { name, version, deps: [], ...describe(e, isRecord(e.source) ? e.source : {}) });
	}
	return { byKey, packages, byName };
}

export function uvLock(text: string, file: string, project: string | undefined): Lock {
	const { byKey, packages, byName } = readPackages(text, (_, source) => ({
		local: ["editable", "virtual", "directory"].some((k) => k in source),
	}));
	const refs = (v: unknown): Ref[] =>
		(Array.isArray(v) ? v.filter(isRecord) : []).map((d) => ({
			name: normalize(String(d.name)),
			version: typeof d.version === "string" ? d.version : undefined,
			extra: Array.isArray(d.extra) ? d.extra.map(String) : [],
		}));
	const refKeys = (ref: Ref): string[] =>
		ref.version !== undefined ? [`${ref.name} ${ref.version}`] : (byName.get(ref.name) ?? []);
	for (const [key, pkg] of packages) {
		const e = byKey.get(key) as Entry;
		const targets = new Set<string>();
		for (const ref of refs(e.dependencies)) {
			for (const k of refKeys(ref)) {
				targets.add(k);
				// Asking for an extra ("httpx[socks]") also pulls in that extra's dependencies.
				const opt = byKey.get(k)?.["optional-dependencies"];
				for (const extra of ref.extra) {
					for (const r of refs(isRecord(opt) ? opt[extra] : undefined))
						for (const k2 of refKeys(r)) targets.add(k2);
				}
			}
		}
		pkg.deps = [...targets].filter((k) => packages.has(k));
	}
	const rootKey = project === undefined ? undefined : byName.get(project)?.[0];
	const root = rootKey === undefined ? undefined : byKey.get(rootKey);
	const rootRefs = root
		? [
				...refs(root.dependencies),
				...Object.values(
					isRecord(root["optional-dependencies"]) ? root["optional-dependencies"] : {},
				).flatMap(refs),
				...Object.values(isRecord(root["dev-dependencies"]) ? root["dev-dependencies"] : {}).flatMap(refs),
			]
		: [];
	return {
		file,
		packages,
		recordsProject: root !== undefined,
		direct: (d) => {
			const keys = new Set(rootRefs.filter((r) => r.name === d.name).flatMap(refKeys));
			const found = keys.size > 0 ? [...keys] : (byName.get(d.name) ?? []);
			return found.length === 1 ? found[0] : undefined;
		},
	};
}

/** Poetry's record of where a package belongs: `groups` (Poetry 2) or `category` (older). */
function poetryScope(e: Entry): Scope | undefined {
	const groups = Array.isArray(e.groups)
		? e.groups.map(String)
		: typeof e.category === "string"
			? [e.category]
			: [];
	if (groups.length === 0) return undefined;
	if (!groups.includes("main")) return "dev";
	return e.optional === true ? "optional" : "runtime";
}

export function poetryLock(text: string, file: string, hasProject: boolean): Lock {
	const { byKey, packages, byName } = readPackages(text, (e, source) => ({
		scope: poetryScope(e),
		local: source.type === "directory" || source.type === "file",
	}));
	for (const [key, e] of byKey) {
		const pkg = packages.get(key) as LockPackage;
		// Several locked versions of one name (split by markers) are all reachable.
		pkg.deps = Object.keys(isRecord(e.dependencies) ? e.dependencies : {}).flatMap(
			(n) => byName.get(normalize(n)) ?? [],
		);
	}
	return {
		file,
		packages,
		// Poetry does not record the project, but its names resolve without ambiguity.
		recordsProject: hasProject,
		direct: (d) => {
			const keys = byName.get(d.name) ?? [];
			return keys.length === 1 ? keys[0] : undefined;
		},
	};
}
