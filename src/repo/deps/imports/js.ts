// Import specifiers of JavaScript and TypeScript: `import … from "x"`, `import "x"`,
// `export … from "x"`, `import("x")` and `require("x")` with a literal argument.
import { blank, commentEnd, lineFinder, literalAt, quotedEnd, type RawImport } from "./mask.ts";

/** After these a `/` starts a regular expression literal rather than a division. */
const BEFORE_REGEX =
	/(?:^|[(,=:[!&|?{};+\-*%<>~^]|\b(?:return|typeof|case|do|else|in|of|void|yield|await))\s*$/;

function mask(text: string): string {
	// UTF-16 code units, so offsets match the original string's.
	const units = text.split("");
	const templateDepths: number[] = []; // brace depth at which each open `${` started
	let depth = 0;
	let i = 0;
	const templateBody = (from: number): number => {
		// Blanks template text until the closing backtick or a `${`; returns where code resumes.
		let j = from;
		while (j < text.length) {
			const c = text[j];
			if (c === "\\") j += 2;
			else if (c === "`") {
				blank(units, from, j);
				return j + 1;
			} else if (c === "$" && text[j + 1] === "{") {
				blank(units, from, j);
				templateDepths.push(depth);
				depth++;
				return j + 2;
			} else j++;
		}
		blank(units, from, text.length);
		return text.length;
	};
	while (i < text.length) {
		const c = text[i] as string;
		const next = text[i + 1];
		if (c === "/" && (next === "/" || next === "*")) {
			i = blank(units, i, commentEnd(text, i));
		} else if (c === '"' || c === "'") {
			const end = quotedEnd(text, i, c);
			blank(units, i + 1, end - 1);
			i = end;
		} else if (c === "`") {
			i = templateBody(i + 1);
		} else if (c === "/" && BEFORE_REGEX.test(units.slice(Math.max(0, i - 12), i).join(""))) {
			let j = i + 1;
			let inClass = false;
			while (j < text.length && text[j] !== "\n") {
				if (text[j] === "\\") j++;
				else if (text[j] === "[") inClass = true;
				else if (text[j] === "]") inClass = false;
				else if (text[j] === "/" && !inClass) break;
				j++;
			}
			blank(units, i + 1, j);
			i = j + 1;
		} else {
			if (c === "{") depth++;
			else if (c === "}") {
				depth--;
				if (templateDepths.length > 0 && templateDepths[templateDepths.length - 1] === depth) {
					templateDepths.pop();
					i = templateBody(i + 1);
					continue;
				}
			}
			i++;
		}
	}
	return units.join("");
}

const STATIC = /(?<![.$\w])(?:import|export)\s+(?:[\w$*{}\s,]+?\s+from\s*)?(["'])/g;
const CALL = /(?<![.$\w])(?:import|require)\s*\(\s*(["'`])/g;

export function jsImports(text: string): RawImport[] {
	const masked = mask(text);
	const lineOf = lineFinder(text);
	const found: { at: number; specifier: string }[] = [];
	for (const re of [STATIC, CALL]) {
		re.lastIndex = 0;
		for (let m = re.exec(masked); m !== null; m = re.exec(masked)) {
			const open = m.index + m[0].length - 1;
			const lit = literalAt(masked, text, open);
			if (!lit || lit.value === "") continue;
			// A call needs a whole literal argument: `import(\`./x/${name}\`)` names nothing certain.
			if (re === CALL && (lit.value.includes("${") || !/^\s*[),]/.test(masked.slice(lit.end)))) continue;
			found.push({ at: m.index, specifier: lit.value });
		}
	}
	return found.sort((a, b) => a.at - b.at).map((f) => ({ specifier: f.specifier, line: lineOf(f.at) }));
}
