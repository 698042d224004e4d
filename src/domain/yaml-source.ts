// YAML read for error messages that name the file line and the dotted key, as config.yaml and the
// yaml blocks of POLICIES.ROUNDTABLE.md both report their problems.
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, visit } from "yaml";

/** Keys and list indexes from the top of a document down to one value. */
export type KeyPath = (string | number)[];

/** ["a", "b", 0] → `a.b[0]`. */
export const dotted = (path: KeyPath) =>
	path.reduce<string>((s, seg) => (typeof seg === "number" ? `${s}[${seg}]` : s ? `${s}.${seg}` : seg), "");

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
	typeof v === "object" && v !== null && !Array.isArray(v);

/** 1-based line (within the yaml text) of the deepest node on `path` that exists (1 if none). */
function locate(root: Node | null | undefined, path: KeyPath, lineAt: (offset: number) => number): number {
	let node: unknown = root;
	let line = root?.range ? lineAt(root.range[0]) : 1;
	for (const seg of path) {
		if (isMap(node)) {
			const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
			if (!pair) break;
			const key = pair.key as Node | null;
			if (key?.range) line = lineAt(key.range[0]);
			node = pair.value;
		} else if (isSeq(node) && typeof seg === "number") {
			const item = node.items[seg] as Node | undefined;
			if (!item?.range) break;
			line = lineAt(item.range[0]);
			node = item;
		} else break;
	}
	return line;
}

/**
 * Parses YAML whose line n is line `before` + n of its file. `fail` gets the file line and detail of
 * the first syntax error, or of an alias that names no anchor. `lineOf` gives the file line of the
 * deepest node on a path that exists, for errors about the data.
 */
export function readYaml(
	text: string,
	before: number,
	fail: (line: number, detail: string) => never,
): { data: unknown; lineOf: (path: KeyPath) => number } {
	const lines = new LineCounter();
	const doc = parseDocument(text, { lineCounter: lines, merge: true, prettyErrors: false });
	const lineAt = (offset: number) => lines.linePos(offset).line;
	const firstError = doc.errors[0];
	if (firstError)
		fail(before + lineAt(firstError.pos[0]), `invalid YAML: ${firstError.message.split("\n")[0]}`);
	visit(doc, {
		Alias(_, alias) {
			if (alias.resolve(doc) === undefined) {
				fail(before + lineAt(alias.range?.[0] ?? 0), `invalid YAML: alias *${alias.source} names no anchor`);
			}
		},
	});
	return { data: doc.toJS(), lineOf: (path) => before + locate(doc.contents, path, lineAt) };
}
