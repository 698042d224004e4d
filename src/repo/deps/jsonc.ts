// JSON with comments and trailing commas (bun.lock is written that way). Comments, and commas
// that come right before a closing bracket, are cut outside strings; JSON.parse does the rest, so
// anything else malformed is still an error.
export function parseJsonc(text: string): unknown {
	const kept: string[] = [];
	let from = 0; // start of the text not yet copied to `kept`
	let i = 0;
	const cut = (start: number, end: number) => {
		kept.push(text.slice(from, start));
		from = end;
	};
	while (i < text.length) {
		const c = text[i];
		if (c === '"') {
			i = stringEnd(text, i);
		} else if (c === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) {
			const end = commentEnd(text, i);
			cut(i, end);
			i = end;
		} else if (c === ",") {
			let j = i + 1;
			for (;;) {
				while (j < text.length && /\s/.test(text[j] as string)) j++;
				if (text[j] === "/" && (text[j + 1] === "/" || text[j + 1] === "*")) j = commentEnd(text, j);
				else break;
			}
			if (text[j] === "}" || text[j] === "]") cut(i, i + 1);
			i++;
		} else {
			i++;
		}
	}
	kept.push(text.slice(from));
	return JSON.parse(kept.join(""));
}

/** Index just past the closing quote of the string starting at `start`. */
function stringEnd(text: string, start: number): number {
	for (let i = start + 1; i < text.length; i++) {
		if (text[i] === "\\") i++;
		else if (text[i] === '"') return i + 1;
	}
	throw new Error("unterminated string");
}

/** Index just past the comment starting at `start` (a line comment keeps its newline). */
function commentEnd(text: string, start: number): number {
	if (text[start + 1] === "/") {
		const nl = text.indexOf("\n", start);
		return nl === -1 ? text.length : nl;
	}
	const end = text.indexOf("*/", start + 2);
	if (end === -1) throw new Error("unterminated comment");
	return end + 2;
}
