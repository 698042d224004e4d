// Import paths of a Go file: `import "fmt"`, `import alias "x/y"` and `import ( … )` groups, which
// Go allows only at the top, before the first declaration.
import { blank, commentEnd, lineFinder, literalAt, quotedEnd, type RawImport } from "./mask.ts";

function mask(text: string): string {
	const units = text.split("");
	let i = 0;
	while (i < text.length) {
		const c = text[i];
		if (c === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) i = blank(units, i, commentEnd(text, i));
		else if (c === '"' || c === "`" || c === "'") {
			const end = c === "`" ? text.indexOf("`", i + 1) + 1 || text.length : quotedEnd(text, i, c);
			blank(units, i + 1, end - 1);
			i = end;
		} else i++;
	}
	return units.join("");
}

export function goImports(text: string): RawImport[] {
	const full = mask(text);
	const firstDecl = /^(?:func|type|var|const)\b/m.exec(full);
	const masked = firstDecl ? full.slice(0, firstDecl.index) : full;
	const lineOf = lineFinder(text);
	const out: RawImport[] = [];
	const add = (open: number) => {
		const lit = literalAt(masked, text, open);
		if (lit && lit.value !== "") out.push({ specifier: lit.value, line: lineOf(open) });
	};
	const decl = /\bimport\s*(\(|(?:[\w.]+\s+)?["`])/g;
	for (let m = decl.exec(masked); m !== null; m = decl.exec(masked)) {
		if (m[1] !== "(") {
			add(m.index + m[0].length - 1);
			continue;
		}
		const close = masked.indexOf(")", m.index + m[0].length);
		const group = /["`]/g;
		group.lastIndex = m.index + m[0].length;
		for (
			let q = group.exec(masked);
			q !== null && (close === -1 || q.index < close);
			q = group.exec(masked)
		) {
			add(q.index);
			group.lastIndex = (literalAt(masked, text, q.index)?.end ?? q.index + 1) as number;
		}
		decl.lastIndex = close === -1 ? masked.length : close + 1;
	}
	return out;
}
