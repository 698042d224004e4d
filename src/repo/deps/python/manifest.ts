// Python manifests. pyproject.toml: PEP 621 `project.dependencies` (runtime) and
// `optional-dependencies` (optional), PEP 735 `dependency-groups` and uv's `tool.uv.dev-dependencies`
// (dev), Poetry's `tool.poetry.dependencies` and its groups. requirements*.txt: one requirement per
// line, `-r other.txt` includes followed inside the repository; requirements-dev/test/lint files
// are dev. Names are PEP 503-normalized so they compare with lockfiles and imports.
import type { RepoRel } from "../../guard.ts";
import { type DepReader, dirOf, isRecord, resolveRel, stringList } from "../reader.ts";
import type { Declared, Scope } from "../types.ts";

/** PEP 503: lowercase, runs of -_. become one -. */
export const normalize = (name: string) => name.toLowerCase().replace(/[-_.]+/g, "-");

/** A PEP 508 requirement → its name and version specifier ("*" when any version will do). */
function parseRequirement(text: string): { name: string; declared: string } | undefined {
	const m = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(.*)$/s.exec(text);
	if (!m) return undefined;
	const rest = (m[2] as string).trim();
	if (rest !== "" && !/^[<>=!~(@;]/.test(rest)) return undefined;
	if (rest.startsWith("@"))
		return { name: normalize(m[1] as string), declared: rest.replace(/\s+;.*$/s, "").trim() };
	const spec = (rest.split(";")[0] as string).replace(/^\((.*)\)$/, "$1").replace(/\s+/g, "");
	return { name: normalize(m[1] as string), declared: spec === "" ? "*" : spec };
}

/** Poetry's way of stating a requirement: "^2.31", {version = "^2.31", optional = true}, {git = …}. */
function poetryRequirement(v: unknown): string {
	if (typeof v === "string") return v;
	if (Array.isArray(v)) return v.map(poetryRequirement).join(" || ");
	if (!isRecord(v)) return "*";
	if (typeof v.version === "string") return v.version;
	for (const k of ["git", "path", "url"]) if (typeof v[k] === "string") return `${k}+${v[k]}`;
	return "*";
}

export function pyprojectDeps(doc: Record<string, unknown>, file: RepoRel): Declared[] {
	const out: Declared[] = [];
	const add = (reqs: string[], scope: Scope) => {
		for (const req of reqs) {
			const parsed = parseRequirement(req);
			if (parsed) out.push({ ...parsed, scope, files: [file] });
		}
	};
	const project = isRecord(doc.project) ? doc.project : {};
	add(stringList(project.dependencies), "runtime");
	for (const reqs of Object.values(
		isRecord(project["optional-dependencies"]) ? project["optional-dependencies"] : {},
	)) {
		add(stringList(reqs), "optional");
	}
	// {include-group = "…"} entries are skipped: the included group is listed on its own anyway.
	for (const reqs of Object.values(isRecord(doc["dependency-groups"]) ? doc["dependency-groups"] : {}))
		add(stringList(reqs), "dev");
	const tool = isRecord(doc.tool) ? doc.tool : {};
	if (isRecord(tool.uv)) add(stringList(tool.uv["dev-dependencies"]), "dev");
	const poetry = isRecord(tool.poetry) ? tool.poetry : {};
	const poetryTable = (table: unknown, scope: Scope) => {
		for (const [name, v] of Object.entries(isRecord(table) ? table : {})) {
			if (name.toLowerCase() === "python") continue; // the interpreter, not a distribution
			const optional = isRecord(v) && v.optional === true;
			out.push({
				name: normalize(name),
				scope: optional ? "optional" : scope,
				declared: poetryRequirement(v),
				files: [file],
			});
		}
	};
	poetryTable(poetry.dependencies, "runtime");
	poetryTable(poetry["dev-dependencies"], "dev");
	for (const group of Object.values(isRecord(poetry.group) ? poetry.group : {})) {
		if (isRecord(group)) poetryTable(group.dependencies, "dev");
	}
	return out;
}

/** The project's own distribution name, from PEP 621 or Poetry. */
export function projectName(doc: Record<string, unknown>): string | undefined {
	const project = isRecord(doc.project) ? doc.project : {};
	const poetry = isRecord(doc.tool) && isRecord(doc.tool.poetry) ? doc.tool.poetry : {};
	const name = typeof project.name === "string" ? project.name : poetry.name;
	return typeof name === "string" ? normalize(name) : undefined;
}

const DEV_FILE = /^requirements[-_.]?(dev|develop|development|test|tests|testing|lint|docs|ci|typing)\b/i;

interface RequirementsFile {
	reqs: { name: string; declared: string }[];
	includes: string[];
}

/** One requirements file: requirements, and the files it includes with -r. */
function parseRequirementsFile(text: string): RequirementsFile {
	const out: RequirementsFile = { reqs: [], includes: [] };
	const lines = text.replace(/\\\r?\n/g, " ").split(/\r?\n/);
	lines.forEach((raw, i) => {
		// Comments go, and so do per-requirement options (--hash=…, --config-settings …).
		const line = raw
			.replace(/(^|\s)#.*$/, "")
			.replace(/\s--[a-z][\w-]*.*$/i, "")
			.trim();
		if (line === "") return;
		const include = /^(?:-r|--requirement)(?:\s+|=)?(\S+)$/.exec(line);
		if (include) out.includes.push(include[1] as string);
		else if (line.startsWith("-"))
			return; // -c constraints, -e editables, --index-url and other options
		else {
			const req = parseRequirement(line);
			// A bare path or URL installs something whose name the file does not state.
			if (req) out.reqs.push(req);
			else if (!/^(\.|\/|[a-z+]+:\/\/)/i.test(line)) throw new Error(`line ${i + 1}: cannot read "${line}"`);
		}
	});
	return out;
}

/** Requirements of `file` and, recursively, of the files it includes (each read once). */
export function requirementsDeps(r: DepReader, file: RepoRel, seen = new Set<RepoRel>()): Declared[] {
	if (seen.has(file)) return [];
	seen.add(file);
	const parsed = r.parse(file, "requirements file", parseRequirementsFile);
	if (!parsed) return [];
	const scope: Scope = DEV_FILE.test(file.slice(file.lastIndexOf("/") + 1)) ? "dev" : "runtime";
	const out: Declared[] = parsed.reqs.map((req) => ({ ...req, scope, files: [file] }));
	for (const inc of parsed.includes) {
		const target = resolveRel(dirOf(file), inc); // undefined when it climbs out of the repository
		if (target !== undefined) out.push(...requirementsDeps(r, target, seen));
	}
	return out;
}
