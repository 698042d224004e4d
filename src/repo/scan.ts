// Finding a search's matches in one file's bytes, at most one per line. An ASCII literal (the
// default query) is found in the bytes themselves, and only a matching line is decoded; anything
// else (a regular expression, a literal with other characters) is matched in the decoded text.
// Both give the same matches: for an ASCII literal, case-insensitive or not, a match in the UTF-8
// text is exactly a match in the bytes (ASCII bytes decode to themselves and are never part of a
// multi-byte character, and JavaScript's case-insensitive matching without the u flag never pairs
// an ASCII letter with a non-ASCII character).

/** A matching line longer than this is cut in the result (the match itself is still reported). */
const MAX_LINE_CHARS = 1000;
const LF = 0x0a;

export interface Match {
	path: string;
	line: number;
	column: number;
	content: string;
}

/** Appends the matches of one file's bytes to `out`, stopping after `room` of them. */
export type Scanner = (bytes: Buffer, path: string, room: number, out: Match[]) => void;

const cut = (line: string) => {
	const content = line.endsWith("\r") ? line.slice(0, -1) : line;
	return content.length > MAX_LINE_CHARS ? `${content.slice(0, MAX_LINE_CHARS)}…` : content;
};

/** Matches of a regular expression (flags g and m) in the decoded text. */
export function textScanner(pattern: RegExp): Scanner {
	return (bytes, path, room, out) => {
		const text = bytes.toString("utf8");
		pattern.lastIndex = 0;
		let line = 1;
		let counted = 0; // text before this offset has been counted into `line`
		let found = 0;
		for (;;) {
			const m = pattern.exec(text);
			if (!m) return;
			for (let i = text.indexOf("\n", counted); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1))
				line++;
			counted = m.index;
			const lineStart = text.lastIndexOf("\n", m.index - 1) + 1;
			const newline = text.indexOf("\n", m.index);
			const lineEnd = newline === -1 ? text.length : newline;
			out.push({ path, line, column: m.index - lineStart + 1, content: cut(text.slice(lineStart, lineEnd)) });
			if (++found >= room || newline === -1) return;
			// One match per line: go on from the next line.
			pattern.lastIndex = newline + 1;
			counted = newline;
		}
	};
}

/** Every byte with bit 5 set: ASCII letters become lower case (other bytes change too, see foldedFinder). */
const FOLD = 0x20202020;

const lowerAscii = (b: number) => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/**
 * Finds an ASCII needle case-insensitively, in native code: the bytes are copied with bit 5 set
 * (four at a time), which lower-cases every letter, and the needle is looked for in that copy.
 * Setting the bit also merges a few other pairs (`@` and a backtick, line feed and `*`, bytes
 * above 0x7f), so each place found is confirmed against the real bytes. The copy and the views are
 * kept from file to file.
 */
class FoldedFinder {
	private readonly lower: Buffer;
	private readonly folded: Buffer;
	private copy = Buffer.from(new ArrayBuffer(64 * 1024));
	private copyWords = new Uint32Array(this.copy.buffer);
	private source: ArrayBufferLike | undefined;
	private sourceWords: Uint32Array = new Uint32Array(0);
	private bytes: Buffer = Buffer.alloc(0);
	private hay: Buffer = Buffer.alloc(0);

	constructor(query: string) {
		this.lower = Buffer.from(query.toLowerCase(), "latin1");
		this.folded = Buffer.from(this.lower.map((b) => b | 0x20));
	}

	/** Makes `bytes` the text that find() looks in. */
	load(bytes: Buffer): void {
		const n = bytes.length;
		if (this.copy.length < n) {
			// A whole number of words, for the Uint32Array view.
			this.copy = Buffer.from(new ArrayBuffer(Math.max(n + 3, this.copy.length * 2) & ~3));
			this.copyWords = new Uint32Array(this.copy.buffer);
		}
		let words = 0;
		if (bytes.byteOffset % 4 === 0) {
			if (this.source !== bytes.buffer) {
				this.source = bytes.buffer;
				this.sourceWords = new Uint32Array(bytes.buffer, 0, bytes.buffer.byteLength >>> 2);
			}
			words = n >>> 2;
			const src = this.sourceWords;
			const dst = this.copyWords;
			const offset = bytes.byteOffset >>> 2;
			for (let i = 0; i < words; i++) dst[i] = (src[offset + i] as number) | FOLD;
		}
		for (let i = words * 4; i < n; i++) this.copy[i] = (bytes[i] as number) | 0x20;
		this.bytes = bytes;
		this.hay = this.copy.subarray(0, n);
	}

	find(from: number): number {
		const { bytes, lower, folded, hay } = this;
		for (let at = hay.indexOf(folded, from); at !== -1; at = hay.indexOf(folded, at + 1)) {
			let k = 0;
			while (k < lower.length && lowerAscii(bytes[at + k] as number) === lower[k]) k++;
			if (k === lower.length) return at;
		}
		return -1;
	}
}

class ExactFinder {
	private bytes: Buffer = Buffer.alloc(0);
	constructor(private readonly needle: Buffer) {}
	load(bytes: Buffer): void {
		this.bytes = bytes;
	}
	find(from: number): number {
		return this.bytes.indexOf(this.needle, from);
	}
}

/**
 * Matches of an ASCII literal without a line break, found in the bytes (case-sensitively by
 * Buffer.indexOf), or undefined for any other query. Only a matching line is decoded.
 */
export function asciiScanner(query: string, caseSensitive: boolean): Scanner | undefined {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
	if (!/^[\x00-\x7f]+$/.test(query) || query.includes("\n")) return undefined;
	const finder = caseSensitive ? new ExactFinder(Buffer.from(query, "latin1")) : new FoldedFinder(query);
	return (bytes, path, room, out) => {
		finder.load(bytes);
		let line = 1;
		let counted = 0; // bytes before this offset have been counted into `line`
		let found = 0;
		for (let at = finder.find(0); at !== -1; ) {
			for (let i = bytes.indexOf(LF, counted); i !== -1 && i < at; i = bytes.indexOf(LF, i + 1)) line++;
			counted = at;
			const lineStart = at === 0 ? 0 : bytes.lastIndexOf(LF, at - 1) + 1;
			const newline = bytes.indexOf(LF, at);
			const lineEnd = newline === -1 ? bytes.length : newline;
			// The column counts UTF-16 code units, as it does for a match in decoded text.
			const column = bytes.toString("utf8", lineStart, at).length + 1;
			out.push({ path, line, column, content: cut(bytes.toString("utf8", lineStart, lineEnd)) });
			if (++found >= room || newline === -1) return;
			counted = newline;
			at = finder.find(newline + 1);
		}
	};
}

/** What a scanner is made from, as plain data (it crosses to the search's second thread). */
export interface ScanSpec {
	query: string;
	/** Whether the query is a literal (not a regular expression). */
	literal: boolean;
	caseSensitive: boolean;
	/** The regular expression the query compiled to (flags g and m, i unless case-sensitive). */
	source: string;
	flags: string;
}

/** The byte scanner where the query allows it, the text scanner otherwise. */
export function scannerOf(spec: ScanSpec): Scanner {
	return (
		(spec.literal && asciiScanner(spec.query, spec.caseSensitive)) ||
		textScanner(new RegExp(spec.source, spec.flags))
	);
}
