// Source scanning without a parser: comments and the insides of string literals are blanked out
// (same length, newlines kept), so keyword regexes cannot match inside them and every offset in the
// masked text still points at the same place in the original, where the literal's text is read.

/** An import as written: the specifier and the 1-based line it is on. */
export interface RawImport {
	specifier: string;
	line: number;
}

/** The 1-based line of each offset, via the offsets where lines start. */
export function lineFinder(text: string): (offset: number) => number {
	const starts = [0];
	for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
	return (offset) => {
		let lo = 0;
		let hi = starts.length - 1;
		while (lo < hi) {
			const mid = (lo + hi + 1) >> 1;
			if ((starts[mid] as number) <= offset) lo = mid;
			else hi = mid - 1;
		}
		return lo + 1;
	};
}

/** Replaces text[from, to) with spaces, keeping newlines; returns `to`. */
export function blank(chars: string[], from: number, to: number): number {
	for (let i = from; i < to; i++) if (chars[i] !== "\n" && chars[i] !== "\r") chars[i] = " ";
	return to;
}

/** Where the comment starting at `start` ends: a `//` one at its newline, a block comment just past its close. */
export function commentEnd(text: string, start: number): number {
	const block = text[start + 1] === "*";
	const end = text.indexOf(block ? "*/" : "\n", start + 2);
	return end === -1 ? text.length : block ? end + 2 : end;
}

/** The literal whose opening quote is at `open` in the masked text: its original content. */
export function literalAt(
	masked: string,
	original: string,
	open: number,
): { value: string; end: number } | undefined {
	const quote = masked[open] as string;
	const close = masked.indexOf(quote, open + 1);
	if (close === -1) return undefined;
	return { value: original.slice(open + 1, close), end: close + 1 };
}

/** Index of the end of a quoted string starting at `start` (escapes honored; stops at a newline unless `multiline`). */
export function quotedEnd(text: string, start: number, quote: string, multiline = false): number {
	let i = start + 1;
	while (i < text.length) {
		const c = text[i];
		if (c === "\\") i += 2;
		else if (c === quote) return i + 1;
		else if (c === "\n" && !multiline) return i;
		else i++;
	}
	return text.length;
}
