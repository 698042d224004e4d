// Import statements of Python: `import a.b as c, d` and `from .x import y` (the module part only).
// Strings (including triple-quoted docstrings) and comments are blanked first, so an "import"
// written in a docstring is not one.
import { blank, lineFinder, type RawImport } from "./mask.ts";

function mask(text: string): string {
	const units = text.split("");
	let i = 0;
	while (i < text.length) {
		const c = text[i];
		if (c === "#") {
			const end = text.indexOf("\n", i);
			const stop = end === -1 ? text.length : end;
			blank(units, i, stop);
			i = stop;
		} else if (c === '"' || c === "'") {
			const triple = text.startsWith(c.repeat(3), i);
			const quote = triple ? c.repeat(3) : c;
			let j = i + quote.length;
			while (j < text.length) {
				if (text[j] === "\\") j += 2;
				else if (text.startsWith(quote, j)) break;
				else if (!triple && text[j] === "\n") break;
				else j++;
			}
			blank(units, i + quote.length, j);
			i = Math.min(text.length, j + (text.startsWith(quote, j) ? quote.length : 0));
		} else i++;
	}
	return units.join("");
}

export function pythonImports(text: string): RawImport[] {
	const masked = mask(text).replace(/\\\r?\n/g, "  "); // join backslash continuations, same length
	const lineOf = lineFinder(text);
	const out: RawImport[] = [];
	// A statement starts a line (after indentation) or follows a `;`.
	const statement = /(?:^|;)[ \t]*(?:(import)[ \t]+([^;\n]+)|(from)[ \t]+(\.*[\w.]*)[ \t]+import\b)/gm;
	for (let m = statement.exec(masked); m !== null; m = statement.exec(masked)) {
		const line = lineOf(m.index + (masked[m.index] === ";" ? 1 : 0));
		if (m[1] !== undefined) {
			for (const part of (m[2] as string).split(",")) {
				const name = /^\s*([\w.]+)/.exec(part)?.[1];
				if (name !== undefined) out.push({ specifier: name, line });
			}
		} else if (m[4] !== undefined && m[4] !== "") {
			out.push({ specifier: m[4], line });
		}
	}
	return out;
}
