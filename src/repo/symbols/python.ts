// Python: classes and functions (async ones too), at any depth. A function lexically inside a class
// (a method, or a function nested in one) is named `Class.name` after the nearest enclosing class.
// The definition node starts at `def`/`class`, so decorators are outside the range.
import type { Node, QueryMatch } from "web-tree-sitter";
import { captured, type Extractor, type Found, lineRange } from "./common.ts";

const QUERY = `
(class_definition name: (_) @name) @class
(function_definition name: (_) @name) @function
`;

function enclosingClass(node: Node): string | undefined {
	for (let p = node.parent; p; p = p.parent) {
		if (p.type === "class_definition") return p.childForFieldName("name")?.text;
	}
	return undefined;
}

function collect(match: QueryMatch, out: Found[]) {
	const name = captured(match, "name");
	if (!name) return;
	const cls = captured(match, "class");
	if (cls) {
		out.push({ kind: "class", name: name.text, ...lineRange(cls) });
		return;
	}
	const fn = captured(match, "function");
	if (!fn) return;
	const owner = enclosingClass(fn);
	out.push({ kind: "function", name: owner ? `${owner}.${name.text}` : name.text, ...lineRange(fn) });
}

export const python: Extractor = { query: QUERY, collect };
