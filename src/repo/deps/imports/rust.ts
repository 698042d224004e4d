// Crates a Rust file refers to by `use` (including grouped `use {a::x, b::y};` and `pub use`) and
// `extern crate`. Also lists the modules it declares (`mod x;`), which `use x::…` may name.
import { blank, commentEnd, lineFinder, quotedEnd, type RawImport } from "./mask.ts";

function mask(text: string): string {
	const units = text.split("");
	let i = 0;
	while (i < text.length) {
		const c = text[i] as string;
		if (c === "/" && text[i + 1] === "/") {
			i = blank(units, i, commentEnd(text, i));
		} else if (c === "/" && text[i + 1] === "*") {
			// Rust block comments nest.
			let depth = 1;
			let j = i + 2;
			while (j < text.length && depth > 0) {
				if (text.startsWith("/*", j) || text.startsWith("*/", j)) {
					depth += text[j] === "/" ? 1 : -1;
					j += 2;
				} else j++;
			}
			blank(units, i, j);
			i = j;
		} else if (c === "r" && /^r#*"/.test(text.slice(i, i + 8)) && !/[\w]/.test(text[i - 1] ?? "")) {
			const hashes = (/^r(#*)"/.exec(text.slice(i)) as RegExpExecArray)[1] as string;
			const open = i + 2 + hashes.length;
			const close = text.indexOf(`"${hashes}`, open);
			const stop = close === -1 ? text.length : close;
			blank(units, open, stop);
			i = stop + 1 + hashes.length;
		} else if (c === '"') {
			const end = quotedEnd(text, i, c, true);
			blank(units, i + 1, end - 1);
			i = end;
		} else if (c === "'" && /^'(?:\\.[^']{0,8}|[^\\'\n])'/.test(text.slice(i, i + 12))) {
			// A char literal ('"', '\''); a lifetime ('a) has no closing quote and is left alone.
			const end = text.indexOf("'", i + 2) + 1;
			blank(units, i + 1, end - 1);
			i = end;
		} else i++;
	}
	return units.join("");
}

/** Top-level items of a use tree: "{a::x, b::{y, z}}" → ["a::x", "b::{y,z}"]. */
function useItems(tree: string): string[] {
	const t = tree.replace(/\s+/g, "").replace(/^::/, "");
	if (!t.startsWith("{")) return [t];
	const items: string[] = [];
	let depth = 0;
	let start = 1;
	for (let i = 1; i < t.length; i++) {
		const c = t[i];
		if (c === "{") depth++;
		else if (c === "}" && depth > 0) depth--;
		else if ((c === "," && depth === 0) || (c === "}" && depth === 0)) {
			if (i > start) items.push(t.slice(start, i));
			start = i + 1;
		}
	}
	return items;
}

export interface RustFile {
	imports: RawImport[];
	/** Modules the file declares with `mod name;` or `mod name { … }`. */
	modules: Set<string>;
}

export function rustImports(text: string): RustFile {
	const masked = mask(text);
	const lineOf = lineFinder(text);
	const imports: { at: number; specifier: string }[] = [];
	const use = /(?<![\w$])use\s+([^;]+);/g;
	for (let m = use.exec(masked); m !== null; m = use.exec(masked)) {
		for (const item of useItems(m[1] as string)) imports.push({ at: m.index, specifier: item });
	}
	const extern = /(?<![\w$])extern\s+crate\s+([\w]+)/g;
	for (let m = extern.exec(masked); m !== null; m = extern.exec(masked))
		imports.push({ at: m.index, specifier: m[1] as string });
	const modules = new Set<string>();
	const mod = /(?<![\w$])mod\s+(\w+)\s*[;{]/g;
	for (let m = mod.exec(masked); m !== null; m = mod.exec(masked)) modules.add(m[1] as string);
	return {
		imports: imports.sort((a, b) => a.at - b.at).map((i) => ({ specifier: i.specifier, line: lineOf(i.at) })),
		modules,
	};
}
