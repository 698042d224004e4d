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

function packagesOf(text: string): Record<string, unknown>[] {
	const doc = toml(text);
	if (!Array.isArray(doc.package)) throw new Error("it has no [[package]] entries");
	const entries = doc.package.filter(isRecord);
	for (const e of entries) if (typeof e.name !== "string") throw new Error("a [[package]] has no name");
	return entries;
}

/** Keys by normalized name, for references that name only the package. */
function indexByName(packages: Map<string, LockPackage>): Map<string, string[]> {
	const out = new Map<string, string[]>();
	for (const [key, pkg] of packages) out.set(pkg.name, [...(out.get(pkg.name) ?? []), key]);
	return out;
}

export function uvLock(text: string, file: string, project: string | undefined): Lock {
	const entries = packagesOf(text);
	const packages = new Map<string, LockPackage>();
	const keyOf = (e: Record<string, unknown>) => `${normalize(e.name as string)} ${String(e.version ?? "")}`;
	for (const e of entries) {
		const source = isRecord(e.source) ? e.source : {};
		packages.set(keyOf(e), {
			name: normalize(e.name as string),
			version: String(e.version ?? ""),
			deps: [],
			local: ["editable", "virtual", "directory"].some((k) => k in source),
		});
	}
	const byName = indexByName(packages);
	const refs = (v: unknown): Ref[] =>
		(Array.isArray(v) ? v.filter(isRecord) : []).map((d) => ({
			name: normalize(String(d.name)),
			version: typeof d.version === "string" ? d.version : undefined,
			extra: Array.isArray(d.extra) ? d.extra.map(String) : [],
		}));
	const refKeys = (ref: Ref): string[] =>
		ref.version !== undefined ? [`${ref.name} ${ref.version}`] : (byName.get(ref.name) ?? []);
	const byKey = new Map(entries.map((e) => [keyOf(e), e]));
	for (const [key, pkg] of packages) {
		const e = byKey.get(key) as Record<string, unknown>;
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
	const root =
		project === undefined ? undefined : entries.find((e) => normalize(e.name as string) === project);
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
function poetryScope(e: Record<string, unknown>): Scope | undefined {
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
	const entries = packagesOf(text);
	const packages = new Map<string, LockPackage>();
	const keyOf = (e: Record<string, unknown>) => `${normalize(e.name as string)} ${String(e.version ?? "")}`;
	for (const e of entries) {
		const source = isRecord(e.source) ? e.source : {};
		packages.set(keyOf(e), {
			name: normalize(e.name as string),
			version: String(e.version ?? ""),
			deps: [],
			scope: poetryScope(e),
			local: source.type === "directory" || source.type === "file",
		});
	}
	const byName = indexByName(packages);
	for (const e of entries) {
		const pkg = packages.get(keyOf(e)) as LockPackage;
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
