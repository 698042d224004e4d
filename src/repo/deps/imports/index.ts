// Which dependency each import of a source file refers to. A mapping is made only when it is
// certain by the language's own rules (Node's package names, Go's module path prefixes, Cargo's
// `-` → `_`, PEP 503-equal names); anything else is `unresolved` with the reason.
import type { RepoRel } from "../../guard.ts";
import { normalize } from "../python/manifest.ts";
import { PYTHON_STDLIB } from "../python/stdlib.ts";
import { baseOf, type DepReader, dirOf, joinRel } from "../reader.ts";
import type { Dependency, Ecosystem, ImportRecord, ProjectContext } from "../types.ts";
import { NODE_BUILTINS, RUST_BUILTIN_CRATES } from "./builtins.ts";
import { goImports } from "./go.ts";
import { jsImports } from "./js.ts";
import type { RawImport } from "./mask.ts";
import { pythonImports } from "./python.ts";
import { rustImports } from "./rust.ts";

type Verdict = Pick<ImportRecord, "status" | "dependency" | "reason">;

const LANGUAGES: [RegExp, Ecosystem][] = [
	[/\.(?:[cm]?js|jsx|[cm]?ts|tsx)$/, "npm"],
	[/\.pyi?$/, "python"],
	[/\.go$/, "go"],
	[/\.rs$/, "cargo"],
];

const NO_PROJECT: Record<Ecosystem, string> = {
	npm: "no package.json governs this file",
	python: "no pyproject.toml or requirements file governs this file",
	go: "no go.mod governs this file",
	cargo: "no Cargo.toml governs this file",
};

const builtin: Verdict = { status: "builtin", dependency: null, reason: null };
const relative = (reason: string | null = null): Verdict => ({
	status: "relative",
	dependency: null,
	reason,
});
const unresolved = (reason: string): Verdict => ({ status: "unresolved", dependency: null, reason });

/** The direct dependency of this name, else a transitive one. */
function lookup(ctx: ProjectContext, matches: (d: Dependency) => boolean): Verdict | undefined {
	const deps = ctx.project.dependencies.filter(matches);
	const direct = deps.find((d) => d.relation === "direct");
	if (direct) return { status: "dependency", dependency: direct.name, reason: null };
	const transitive = deps[0];
	if (!transitive) return undefined;
	const manifest = ctx.project.manifest === null ? "a manifest" : baseOf(ctx.project.manifest);
	return {
		status: "dependency",
		dependency: transitive.name,
		reason: `transitive only: not declared in ${manifest}`,
	};
}

/** "@scope/name/sub" → "@scope/name", "lodash/fp" → "lodash"; undefined when not a package name. */
function packageName(spec: string): string | undefined {
	const parts = spec.split("/");
	const name = spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
	return name !== undefined && /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i.test(name) ? name : undefined;
}

function mapJs(spec: string, ctx: ProjectContext | undefined): Verdict {
	if (/^\.{1,2}(?:\/|$)/.test(spec) || spec.startsWith("/")) return relative();
	if (spec.startsWith("node:") || spec.startsWith("bun:") || spec === "bun" || NODE_BUILTINS.has(spec))
		return builtin;
	if (spec.startsWith("#"))
		return unresolved('a subpath import: package.json "imports" decides what it maps to');
	if (/^[a-z][a-z0-9+.-]*:/i.test(spec)) return unresolved("a URL or protocol specifier; nothing is fetched");
	const name = packageName(spec);
	if (name === undefined) return unresolved("not a package name (a path alias?)");
	if (!ctx) return unresolved(NO_PROJECT.npm);
	if (ctx.own.includes(name)) return relative("the package's own name");
	return (
		lookup(ctx, (d) => d.name === name) ?? unresolved("not declared in package.json and not in its lockfile")
	);
}

function mapPython(spec: string, ctx: ProjectContext | undefined, r: DepReader, file: RepoRel): Verdict {
	if (spec.startsWith(".")) return relative();
	const top = spec.split(".")[0] as string;
	if (PYTHON_STDLIB.has(top)) return builtin;
	if (!ctx) return unresolved(NO_PROJECT.python);
	const name = normalize(top);
	const dep = lookup(ctx, (d) => d.name === name);
	if (dep) return dep;
	if (ctx.own.includes(name)) return relative("the project's own package");
	// A package or module of the project itself: beside the file, at the project root, or in src/.
	for (const dir of [dirOf(file), ctx.dir, joinRel(ctx.dir, "src")]) {
		const entry = r.has(dir, `${top}.py`) ? `${top}.py` : r.has(dir, top, "dir") ? top : undefined;
		if (entry !== undefined) return relative(`a module of this project: ${joinRel(dir, entry)}`);
	}
	return unresolved("module name differs from every declared distribution");
}

function mapGo(spec: string, ctx: ProjectContext | undefined): Verdict {
	const within = (path: string) => spec === path || spec.startsWith(`${path}/`);
	if (ctx?.own.some(within)) return relative("a package of this module");
	if (!(spec.split("/")[0] as string).includes(".")) return builtin; // the standard library has no dot in its first element
	if (!ctx) return unresolved(NO_PROJECT.go);
	// The longest required module path that prefixes the import provides it.
	const provider = ctx.project.dependencies
		.filter((d) => d.sources.some((s) => s.kind === "manifest") && within(d.name))
		.sort((a, b) => b.name.length - a.name.length)[0];
	if (!provider) return unresolved("no module required in go.mod provides this package");
	const reason = provider.relation === "transitive" ? "marked // indirect in go.mod" : null;
	return { status: "dependency", dependency: provider.name, reason };
}

function mapRust(spec: string, ctx: ProjectContext | undefined, modules: Set<string>): Verdict {
	const first = (/^(?:r#)?(\w+)/.exec(spec)?.[1] ?? spec) as string;
	if (["crate", "self", "super", "Self"].includes(first)) return relative();
	if (RUST_BUILTIN_CRATES.has(first)) return builtin;
	if (modules.has(first)) return relative("a module declared in this file");
	if (!ctx) return unresolved(NO_PROJECT.cargo);
	if (ctx.own.includes(first)) return relative("this package's own library crate");
	const name = ctx.keys?.get(first);
	const dep =
		name === undefined
			? undefined
			: ctx.project.dependencies.find((d) => d.relation === "direct" && d.name === name);
	if (dep) return { status: "dependency", dependency: dep.name, reason: null };
	if (ctx.project.dependencies.some((d) => d.name.replaceAll("-", "_") === first)) {
		return unresolved("only in Cargo.lock: a crate can use only the dependencies its Cargo.toml declares");
	}
	return unresolved("not a dependency in Cargo.toml (it may be a name this file brings into scope)");
}

export function sourceImports(
	r: DepReader,
	file: RepoRel,
	contexts: Partial<Record<Ecosystem, ProjectContext>>,
): ImportRecord[] {
	const ecosystem = LANGUAGES.find(([re]) => re.test(file))?.[1];
	if (ecosystem === undefined) return [];
	const text = r.text(file);
	if (text === undefined) return [];
	const ctx = contexts[ecosystem];
	let raw: RawImport[];
	let verdict: (spec: string) => Verdict;
	if (ecosystem === "npm") {
		raw = jsImports(text);
		verdict = (s) => mapJs(s, ctx);
	} else if (ecosystem === "python") {
		raw = pythonImports(text);
		verdict = (s) => mapPython(s, ctx, r, file);
	} else if (ecosystem === "go") {
		raw = goImports(text);
		verdict = (s) => mapGo(s, ctx);
	} else {
		const rust = rustImports(text);
		raw = rust.imports;
		verdict = (s) => mapRust(s, ctx, rust.modules);
	}
	return raw.map(({ specifier, line }) => ({ specifier, line, ecosystem, ...verdict(specifier) }));
}
