// yarn.lock in both of its formats. Classic (v1) is its own indented format: an entry is headed by
// the descriptors it satisfies ("debug@^4.1.0", "debug@^4.3.4":) and lists `version` and
// `dependencies` ("ms" "2.1.2"). Berry (v2+) is YAML with a __metadata entry, descriptors carry a
// protocol ("ms@npm:2.1.2"), and each workspace has an entry ("app@workspace:.") with its
// dependencies. Either way a dependency resolves by looking up the descriptor "name@range".
import { parse } from "yaml";
import { isRecord } from "../reader.ts";
import type { Lock, LockPackage } from "../types.ts";

interface Entry {
	descriptors: string[];
	version: string;
	resolution?: string;
	deps: [string, string][];
}

/** "@scope/name@^1" → "@scope/name". */
const nameOf = (descriptor: string) => {
	const at = descriptor.indexOf("@", 1);
	return at === -1 ? descriptor : descriptor.slice(0, at);
};

const unquote = (s: string) =>
	s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? (JSON.parse(s) as string) : s;

/** Classic yarn.lock: two-space indentation, `key value` pairs, headers ending in ":". */
function classicEntries(text: string): Entry[] {
	const entries: Entry[] = [];
	let entry: Entry | undefined;
	let section: string | undefined;
	text.split(/\r?\n/).forEach((raw, i) => {
		if (raw.trim() === "" || raw.trimStart().startsWith("#")) return;
		const indent = raw.length - raw.trimStart().length;
		const line = raw.trim();
		const fail = (why: string) => new Error(`line ${i + 1}: ${why}`);
		if (indent === 0) {
			if (!line.endsWith(":")) throw fail("an entry header must end with ':'");
			entry = { descriptors: line.slice(0, -1).split(/,\s*/).map(unquote), version: "", deps: [] };
			entries.push(entry);
			section = undefined;
			return;
		}
		if (!entry) throw fail("indented line before any entry");
		const m = /^("(?:[^"\\]|\\.)*"|[^\s"]+)(?::$|\s+(.+))$/.exec(line);
		if (!m) throw fail(`cannot read "${line}"`);
		const key = unquote(m[1] as string);
		const value = m[2] === undefined ? undefined : unquote(m[2]);
		if (indent === 2) {
			section = value === undefined ? key : undefined;
			if (key === "version" && value !== undefined) entry.version = value;
		} else if (indent === 4 && section !== undefined && value !== undefined) {
			if (section === "dependencies" || section === "optionalDependencies") entry.deps.push([key, value]);
		} else {
			throw fail("unexpected indentation");
		}
	});
	for (const e of entries)
		if (e.version === "") throw new Error(`entry "${e.descriptors[0]}" has no version`);
	return entries;
}

/** Berry yarn.lock: YAML; keys are comma-separated descriptors. */
function berryEntries(doc: Record<string, unknown>): Entry[] {
	const entries: Entry[] = [];
	for (const [key, value] of Object.entries(doc)) {
		if (key === "__metadata") continue;
		if (!isRecord(value) || value.version === undefined) throw new Error(`entry "${key}" has no version`);
		entries.push({
			descriptors: key.split(/,\s*/),
			version: String(value.version),
			resolution: typeof value.resolution === "string" ? value.resolution : undefined,
			deps: Object.entries(isRecord(value.dependencies) ? value.dependencies : {}).map(([n, r]) => [
				n,
				String(r),
			]),
		});
	}
	return entries;
}

export function yarnLock(text: string, file: string, importer: string | undefined): Lock {
	let entries: Entry[];
	let berry = false;
	if (/^__metadata:/m.test(text)) {
		const doc: unknown = parse(text);
		if (!isRecord(doc)) throw new Error("it is not a YAML mapping");
		entries = berryEntries(doc);
		berry = true;
	} else {
		entries = classicEntries(text);
	}
	const byDescriptor = new Map<string, string>();
	for (const e of entries)
		for (const d of e.descriptors) byDescriptor.set(d, e.resolution ?? (e.descriptors[0] as string));
	const packages = new Map<string, LockPackage>();
	for (const e of entries) {
		const key = e.resolution ?? (e.descriptors[0] as string);
		const deps = e.deps
			.map(([name, range]) => byDescriptor.get(`${name}@${range}`))
			.filter((k): k is string => k !== undefined);
		const local = e.resolution !== undefined && /@(workspace|link|portal|file):/.test(e.resolution);
		packages.set(key, { name: nameOf(e.descriptors[0] as string), version: e.version, deps, local });
	}
	// Berry records each workspace; classic does not, but its descriptors already resolve exactly.
	const workspace = berry
		? entries.find((e) => e.resolution?.endsWith(`@workspace:${importer === "" ? "." : importer}`))
		: undefined;
	return {
		file,
		packages,
		recordsProject: importer !== undefined && (!berry || workspace !== undefined),
		direct: (d) => {
			if (importer === undefined) return undefined;
			const name = d.name;
			const range = workspace?.deps.find(([n]) => n === name)?.[1];
			const candidates =
				range !== undefined ? [`${name}@${range}`] : [`${name}@${d.declared}`, `${name}@npm:${d.declared}`];
			for (const c of candidates) {
				const key = byDescriptor.get(c);
				if (key !== undefined) return key;
			}
			return undefined;
		},
	};
}
