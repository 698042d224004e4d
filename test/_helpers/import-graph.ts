// The import graph of a TypeScript tree, read with Bun's own import scanner (value imports) plus
// the type-only imports it drops (`import type`, `export type … from`, `import { type A }`), and
// the checks docs/architecture.md states: no cycles, and no arrow a rule forbids.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const scanner = new Bun.Transpiler({ loader: "ts" });
const TYPE_ONLY = /(?:^|\n)\s*(?:import|export)\s+type\s[^;]*?from\s*["']([^"']+)["']/g;
const NAMED = /(?:^|\n)\s*import\s*\{([^}]*)\}\s*from\s*["']([^"']+)["']/g;

/** File (relative to the root) → the specifiers it imports: relative ones resolved, others as written. */
export type Graph = Map<string, { local: Set<string>; external: Set<string> }>;

export function importGraph(root: string): Graph {
	const files = readdirSync(root, { recursive: true, withFileTypes: true })
		.filter((e) => e.isFile() && e.name.endsWith(".ts"))
		.map((e) => join(e.parentPath, e.name));
	const graph: Graph = new Map();
	for (const file of files) {
		const text = readFileSync(file, "utf8").replace(/^#!.*/, "");
		const specifiers = new Set(scanner.scanImports(text).map((i) => i.path));
		for (const m of text.matchAll(TYPE_ONLY)) specifiers.add(m[1] as string);
		for (const m of text.matchAll(NAMED)) specifiers.add(m[2] as string);
		const local = new Set<string>();
		const external = new Set<string>();
		for (const s of specifiers) {
			if (s.startsWith(".")) local.add(relative(root, resolve(dirname(file), s)));
			else external.add(s);
		}
		graph.set(relative(root, file), { local, external });
	}
	return graph;
}

/** The top-level part a file belongs to: its first folder, or its own name for a file at the top. */
export const partOf = (file: string) =>
	file.includes("/") ? (file.split("/")[0] as string) : file.replace(/\.ts$/, "");

/** Every cycle of files (strongly connected components of more than one file, or a file importing itself). */
export function cycles(graph: Graph): string[][] {
	let next = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const visit = (v: string) => {
		index.set(v, next);
		low.set(v, next);
		next++;
		stack.push(v);
		onStack.add(v);
		for (const w of graph.get(v)?.local ?? []) {
			if (!graph.has(w)) continue;
			if (!index.has(w)) {
				visit(w);
				low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
		}
		if (low.get(v) !== index.get(v)) return;
		const component: string[] = [];
		let w: string;
		do {
			w = stack.pop() as string;
			onStack.delete(w);
			component.push(w);
		} while (w !== v);
		if (component.length > 1 || graph.get(v)?.local.has(v)) found.push(component.sort());
	};
	for (const v of graph.keys()) if (!index.has(v)) visit(v);
	return found;
}

export interface Rule {
	from: string;
	/** A part of the tree, or a package (`node:fs`) it may not import. */
	to: string;
	why: string;
}

/** Each import that breaks a rule, as `file → import (why)`. */
export function violations(graph: Graph, rules: readonly Rule[]): string[] {
	const out: string[] = [];
	for (const [file, { local, external }] of graph) {
		const from = partOf(file);
		for (const rule of rules.filter((r) => r.from === from)) {
			for (const target of local)
				if (partOf(target) === rule.to) out.push(`${file} → ${target} (${rule.why})`);
			for (const pkg of external) if (pkg === rule.to) out.push(`${file} → ${pkg} (${rule.why})`);
		}
	}
	return out.sort();
}

/**
 * Each place a file of the tree reaches outside it (into the tests, say): an import whose target
 * resolves above the root, or a string that names such a path (`new URL("../../test/…",
 * import.meta.url)` loads a module no import scanner sees).
 */
export function outsideTheTree(root: string, graph: Graph): string[] {
	const out = new Set<string>();
	for (const [file, { local }] of graph) {
		for (const target of local) if (target.startsWith("..")) out.add(`${file} → ${target}`);
		const text = readFileSync(join(root, file), "utf8");
		for (const m of text.matchAll(/["'`]((?:\.\.\/)+test\/[^"'`]*)["'`]/g)) out.add(`${file} names ${m[1]}`);
	}
	return [...out].sort();
}
