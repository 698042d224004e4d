// What every language's extractor shares: the record it produces and how a node becomes lines.
import type { Node, QueryMatch } from "web-tree-sitter";

/** A symbol of one file, before the path and resource id are added. */
export interface Found {
	kind: string;
	name: string;
	start_line: number;
	end_line: number;
}

/** One language's tree-sitter query and the code that turns its matches into symbols. */
export interface Extractor {
	query: string;
	collect(match: QueryMatch, out: Found[]): void;
}

/**
 * 1-based inclusive lines. A node that ends at column 0 of a later row (some grammars end a block
 * after its newline) does not really occupy that row, so it ends on the row before.
 */
export function lineRange(node: Node): { start_line: number; end_line: number } {
	const start = node.startPosition.row;
	const { row, column } = node.endPosition;
	return { start_line: start + 1, end_line: column === 0 && row > start ? row : row + 1 };
}

/** The node captured under `name` in a match, if any. */
export function captured(match: QueryMatch, name: string): Node | undefined {
	for (const c of match.captures) if (c.name === name) return c.node;
	return undefined;
}

/** The common case: `@<kind>` on the declaration and `@name` on its name. */
export function simple(match: QueryMatch, kinds: readonly string[], out: Found[]): boolean {
	const name = captured(match, "name");
	if (!name) return false;
	for (const c of match.captures) {
		if (kinds.includes(c.name)) {
			out.push({ kind: c.name, name: name.text, ...lineRange(c.node) });
			return true;
		}
	}
	return false;
}
