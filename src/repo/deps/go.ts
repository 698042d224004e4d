// Go modules: go.mod's `require` lines are the dependencies, the ones marked `// indirect` are
// there only for what the direct ones need (transitive), and go.sum says which module versions
// were actually downloaded and verified. A `replace` points a module at another version (or a
// local folder, which go.sum never lists).
import type { Found } from "./discover.ts";
import { sortDependencies } from "./graph.ts";
import type { DepReader } from "./reader.ts";
import type { Dependency, ProjectContext, Source } from "./types.ts";

interface GoRequire {
	path: string;
	version: string;
	indirect: boolean;
}

interface GoMod {
	module: string;
	requires: GoRequire[];
	/** module path (or path@version) → replacement path and version ("" for a local folder). */
	replaces: Map<string, { path: string; version: string }>;
}

const unquote = (s: string) => (s.startsWith('"') || s.startsWith("`") ? s.slice(1, -1) : s);

function parseGoMod(text: string): GoMod {
	const mod: GoMod = { module: "", requires: [], replaces: new Map() };
	let block: string | undefined;
	text.split(/\r?\n/).forEach((raw, i) => {
		const comment = raw.indexOf("//");
		const note = comment === -1 ? "" : raw.slice(comment + 2).trim();
		const line = (comment === -1 ? raw : raw.slice(0, comment)).trim();
		if (line === "") return;
		const fail = (why: string) => new Error(`line ${i + 1}: ${why}`);
		let verb: string;
		let rest: string;
		if (block !== undefined) {
			if (line === ")") {
				block = undefined;
				return;
			}
			verb = block;
			rest = line;
		} else {
			const m = /^(\w+)\s*(.*)$/.exec(line);
			if (!m) throw fail(`cannot read "${line}"`);
			verb = m[1] as string;
			rest = (m[2] as string).trim();
			if (rest === "(") {
				block = verb;
				return;
			}
		}
		const words = rest.split(/\s+/).map(unquote);
		if (verb === "module") mod.module = words[0] ?? "";
		else if (verb === "require") {
			if (words.length !== 2) throw fail(`a requirement is "module version", not "${rest}"`);
			mod.requires.push({
				path: words[0] as string,
				version: words[1] as string,
				indirect: /^indirect\b/.test(note),
			});
		} else if (verb === "replace") {
			const arrow = words.indexOf("=>");
			if (arrow < 1) throw fail(`a replacement needs "=>"`);
			const from = words.slice(0, arrow).join("@");
			mod.replaces.set(from, { path: words[arrow + 1] ?? "", version: words[arrow + 2] ?? "" });
		}
	});
	if (block !== undefined) throw new Error(`the ${block} ( … ) block is not closed`);
	if (mod.module === "") throw new Error("it has no module line");
	return mod;
}

/** go.sum: "module version[/go.mod] hash" lines → the set of "module@version" it verifies. */
function parseGoSum(text: string): Set<string> {
	const out = new Set<string>();
	text.split(/\r?\n/).forEach((line, i) => {
		if (line.trim() === "") return;
		const m = /^(\S+) (\S+?)(\/go\.mod)? (\S+)$/.exec(line.trim());
		if (!m) throw new Error(`line ${i + 1}: expected "module version hash"`);
		out.add(`${m[1]}@${m[2]}`);
	});
	return out;
}

export function loadGo(r: DepReader, f: Found): ProjectContext {
	const mod = f.manifest === null ? undefined : r.parse(f.manifest, "go.mod", parseGoMod);
	const sums: { file: string; versions: Set<string> }[] = [];
	for (const file of f.lockfiles) {
		const versions = r.parse(file, "go.sum", parseGoSum);
		if (versions) sums.push({ file, versions });
	}
	const deps: Dependency[] = [];
	for (const req of mod?.requires ?? []) {
		const replaced = mod?.replaces.get(`${req.path}@${req.version}`) ?? mod?.replaces.get(req.path);
		const actual = replaced ? `${replaced.path}@${replaced.version}` : `${req.path}@${req.version}`;
		const sources: Source[] = [{ file: f.manifest as string, kind: "manifest" }];
		let resolved: string | null = null;
		for (const sum of sums) {
			if (!sum.versions.has(actual)) continue;
			resolved ??= replaced ? replaced.version : req.version;
			sources.push({ file: sum.file, kind: "lockfile" });
		}
		// An indirect requirement is still written in go.mod, so its version there is reported as declared.
		deps.push({
			name: req.path,
			scope: "runtime",
			relation: req.indirect ? "transitive" : "direct",
			declared: req.version,
			resolved,
			sources,
		});
	}
	if (!mod) {
		// A go.sum without a go.mod: every module it verifies, as transitive.
		for (const sum of sums) {
			for (const id of sum.versions) {
				const at = id.lastIndexOf("@");
				deps.push({
					name: id.slice(0, at),
					scope: "runtime",
					relation: "transitive",
					declared: null,
					resolved: id.slice(at + 1),
					sources: [{ file: sum.file, kind: "lockfile" }],
				});
			}
		}
	}
	return {
		project: {
			ecosystem: "go",
			manifest: f.manifest,
			lockfiles: sums.map((s) => s.file),
			dependencies: sortDependencies(deps),
		},
		dir: f.dir,
		own: mod ? [mod.module] : [],
	};
}
