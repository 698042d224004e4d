// bun.lock (lockfileVersion 1, JSONC). `workspaces` holds each workspace's declared dependencies
// keyed by path ("" is the root); `packages` maps an install key to ["name@version", registry,
// {dependencies…}, integrity]. A key is the chain of package names it is nested under
// ("express/debug"), or prefixed with a workspace's name for a workspace-specific version.
import { parseJsonc } from "../jsonc.ts";
import { isRecord } from "../reader.ts";
import type { Lock, LockPackage } from "../types.ts";

const EDGES = ["dependencies", "optionalDependencies", "peerDependencies"] as const;

/** "a/@s/b/c" → ["a", "@s/b", "c"]: a scoped name is one component. */
function components(key: string): string[] {
	const out: string[] = [];
	for (const part of key.split("/")) {
		const last = out[out.length - 1];
		if (last?.startsWith("@") && !last.includes("/")) out[out.length - 1] = `${last}/${part}`;
		else out.push(part);
	}
	return out;
}

export function bunLock(text: string, file: string, importer: string | undefined): Lock {
	const doc = parseJsonc(text);
	if (!isRecord(doc) || !isRecord(doc.packages)) throw new Error('it has no "packages" object');
	const workspaces = isRecord(doc.workspaces) ? doc.workspaces : {};
	const raw = doc.packages;

	/** From key `from`, the nearest key that provides `name` (nested first, then each level up). */
	const locate = (from: string, name: string): string | undefined => {
		const parts = from === "" ? [] : components(from);
		for (let i = parts.length; i >= 0; i--) {
			const candidate = [...parts.slice(0, i), name].join("/");
			if (Object.hasOwn(raw, candidate)) return candidate;
		}
		return undefined;
	};
	const edgesOf = (meta: Record<string, unknown>, from: string) =>
		EDGES.flatMap((edge) => (isRecord(meta[edge]) ? Object.keys(meta[edge]) : []))
			.map((dep) => locate(from, dep))
			.filter((k): k is string => k !== undefined);

	const packages = new Map<string, LockPackage>();
	for (const [key, entry] of Object.entries(raw)) {
		if (!Array.isArray(entry) || typeof entry[0] !== "string")
			throw new Error(`package "${key}" is not ["name@version", …]`);
		const ident = entry[0];
		const at = ident.indexOf("@", 1);
		if (at === -1) throw new Error(`package "${key}" has no version in "${ident}"`);
		const version = ident.slice(at + 1);
		const member = version.startsWith("workspace:") ? workspaces[version.slice(10)] : undefined;
		// A workspace member's own dependencies live under `workspaces`, not in its package entry.
		const meta = isRecord(member) ? member : (entry.slice(1).find(isRecord) ?? {});
		packages.set(key, {
			name: ident.slice(0, at),
			// A workspace member's entry says only where it is; its own package.json gives the version.
			version: isRecord(member) && typeof member.version === "string" ? member.version : version,
			deps: edgesOf(meta, key),
			local: /^(workspace|link|file):/.test(version),
		});
	}
	const own = importer === undefined ? undefined : workspaces[importer];
	// A member's workspace-specific versions are keyed under its package name.
	const base = importer === "" || !isRecord(own) || typeof own.name !== "string" ? "" : own.name;
	return {
		file,
		packages,
		recordsProject: isRecord(own),
		direct: (d) => (isRecord(own) ? locate(base, d.name) : undefined),
	};
}
