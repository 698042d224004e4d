// Where a parse went wrong: one entry per ERROR or MISSING region, outermost first, so a broken
// stretch is reported once rather than once per token inside it.
import type { Node } from "web-tree-sitter";
import { lineRange } from "./common.ts";

export interface SyntaxProblem {
	line: number;
	message: string;
}

/** A badly broken file can hold thousands of error nodes; the first few say what is wrong. */
const MAX_PER_FILE = 20;

export function syntaxProblems(root: Node): SyntaxProblem[] {
	const out: SyntaxProblem[] = [];
	// A token missing at end of file sits after the last newline, on a line the file does not have.
	const lastLine = lineRange(root).end_line;
	const at = (node: Node) => Math.min(node.startPosition.row + 1, lastLine);
	const visit = (node: Node) => {
		if (out.length >= MAX_PER_FILE) return;
		if (node.isMissing) {
			// A missing token reads best quoted (`}`); a missing named node by its name (identifier).
			const what = node.isNamed ? node.type : `\`${node.type}\``;
			out.push({ line: at(node), message: `missing ${what}` });
			return;
		}
		if (node.isError) {
			out.push({ line: at(node), message: "syntax error" });
			return;
		}
		// hasError marks every ancestor of a problem, so only those subtrees are entered.
		for (let i = 0; i < node.childCount; i++) {
			const child = node.child(i);
			if (child && (child.hasError || child.isMissing)) visit(child);
		}
	};
	if (root.hasError) visit(root);
	return out;
}
