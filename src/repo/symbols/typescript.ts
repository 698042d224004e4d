// TypeScript, TSX and JavaScript: one grammar family, so one extractor; JavaScript just lacks the
// type-only declarations (interfaces, type aliases, enums, signatures), which its grammar has no
// node types for.
import type { Node, QueryMatch } from "web-tree-sitter";
import { captured, type Extractor, type Found, lineRange, simple } from "./common.ts";

const TS_MEMBERS = "[(method_definition) (method_signature) (abstract_method_signature)]";

const TS_QUERY = `
(function_declaration name: (_) @name) @function
(generator_function_declaration name: (_) @name) @function
(function_signature name: (_) @name) @function
(class_declaration name: (_) @name) @class
(abstract_class_declaration name: (_) @name) @class
(interface_declaration name: (_) @name) @interface
(type_alias_declaration name: (_) @name) @type
(enum_declaration name: (_) @name) @enum
(class_declaration name: (_) @container body: (class_body ${TS_MEMBERS} @method))
(abstract_class_declaration name: (_) @container body: (class_body ${TS_MEMBERS} @method))
(interface_declaration name: (_) @container body: (interface_body (method_signature) @method))
(lexical_declaration kind: "const") @const
`;

const JS_QUERY = `
(function_declaration name: (_) @name) @function
(generator_function_declaration name: (_) @name) @function
(class_declaration name: (_) @name) @class
(class_declaration name: (_) @container body: (class_body (method_definition) @method))
(lexical_declaration kind: "const") @const
`;

const KINDS = ["function", "class", "interface", "type", "enum"] as const;

/** Wrappers that leave a value what it is: `(f)`, `f as T`, `f satisfies T`, `f!`, `<T>f`. */
const TRANSPARENT = new Set([
	"parenthesized_expression",
	"as_expression",
	"satisfies_expression",
	"non_null_expression",
	"type_assertion",
]);
const FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function", "generator_function"]);

function isFunctionValue(value: Node | null): boolean {
	let v = value;
	while (v && TRANSPARENT.has(v.type)) {
		// The expression is the first named child, except in `<T>expr` where the type comes first.
		v = v.type === "type_assertion" ? v.lastNamedChild : v.firstNamedChild;
	}
	return v !== null && FUNCTION_VALUES.has(v.type);
}

/**
 * Constants are module-level declarations (also exported, `declare`d, or in a namespace body). A
 * `const` inside a function is a local variable, not something anyone would look up or claim.
 */
function atModuleScope(declaration: Node): boolean {
	let p = declaration.parent;
	while (p && (p.type === "export_statement" || p.type === "ambient_declaration")) p = p.parent;
	if (!p) return false;
	if (p.type === "program") return true;
	const owner = p.type === "statement_block" ? p.parent?.type : undefined;
	return owner === "internal_module" || owner === "module";
}

function collectConsts(declaration: Node, out: Found[]) {
	if (!atModuleScope(declaration)) return;
	for (const declarator of declaration.namedChildren) {
		if (declarator?.type !== "variable_declarator") continue;
		const name = declarator.childForFieldName("name");
		if (name?.type !== "identifier") continue; // destructuring declares no single name
		const kind = isFunctionValue(declarator.childForFieldName("value")) ? "function" : "const";
		out.push({ kind, name: name.text, ...lineRange(declarator) });
	}
}

function collect(match: QueryMatch, out: Found[]) {
	const method = captured(match, "method");
	if (method) {
		const container = captured(match, "container");
		const name = method.childForFieldName("name");
		if (container && name)
			out.push({ kind: "method", name: `${container.text}.${name.text}`, ...lineRange(method) });
		return;
	}
	const constant = captured(match, "const");
	if (constant) return collectConsts(constant, out);
	simple(match, KINDS, out);
}

export const typescript: Extractor = { query: TS_QUERY, collect };
export const javascript: Extractor = { query: JS_QUERY, collect };
