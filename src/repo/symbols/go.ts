// Go: functions, methods named `Receiver.Name` (pointer and type arguments dropped), type specs as
// struct / interface / type, and exported package-level constants (one symbol per name, its range
// the identifier, since one spec can declare several).
import type { Node, QueryMatch } from "web-tree-sitter";
import { captured, type Extractor, type Found, lineRange } from "./common.ts";

const QUERY = `
(function_declaration name: (_) @name) @function
(method_declaration receiver: (parameter_list) @receiver name: (_) @name) @method
(type_spec name: (_) @name type: (_) @body) @type
(type_alias name: (_) @name) @type
(source_file (const_declaration (const_spec) @const))
`;

const TYPE_KINDS: Record<string, string> = { struct_type: "struct", interface_type: "interface" };

/** `(s *List[T])` → `List`. */
function receiverType(receiver: Node): string | undefined {
	let t = receiver.firstNamedChild?.childForFieldName("type") ?? null;
	while (t && t.type !== "type_identifier") {
		t = t.type === "generic_type" ? t.childForFieldName("type") : t.firstNamedChild; // pointer, parentheses
	}
	return t?.text;
}

const exported = (name: string) => /^\p{Lu}/u.test(name);

function collect(match: QueryMatch, out: Found[]) {
	const spec = captured(match, "const");
	if (spec) {
		// A query match binds one node per field, so `A, B = 1, 2` needs its names read here.
		for (const name of spec.childrenForFieldName("name")) {
			if (name && exported(name.text)) out.push({ kind: "const", name: name.text, ...lineRange(name) });
		}
		return;
	}
	const name = captured(match, "name");
	if (!name) return;
	const method = captured(match, "method");
	const receiver = captured(match, "receiver");
	if (method && receiver) {
		const recv = receiverType(receiver);
		out.push({ kind: "method", name: recv ? `${recv}.${name.text}` : name.text, ...lineRange(method) });
		return;
	}
	const fn = captured(match, "function");
	if (fn) {
		out.push({ kind: "function", name: name.text, ...lineRange(fn) });
		return;
	}
	const type = captured(match, "type");
	if (type) {
		const body = captured(match, "body");
		const kind = (body && TYPE_KINDS[body.type]) ?? "type";
		out.push({ kind, name: name.text, ...lineRange(type) });
	}
}

export const go: Extractor = { query: QUERY, collect };
