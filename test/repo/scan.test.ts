// The byte scanner of an ASCII literal (src/repo/scan.ts) gives exactly what the regular expression
// over the decoded text gives: lines, UTF-16 columns, contents, limits, on text that is not plain
// ASCII (multi-byte characters before a match, invalid UTF-8, a byte order mark, CRLF, long lines)
// and on bytes the case-folded copy confuses (`@` and a backtick, a line feed and `*`).
import { describe, expect, test } from "bun:test";
import { asciiScanner, type Match, textScanner } from "../../src/repo/scan.ts";

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function both(
	query: string,
	caseSensitive: boolean,
	bytes: Buffer,
	room = 1000,
): { bytes: Match[]; text: Match[] } {
	const scanner = asciiScanner(query, caseSensitive);
	if (scanner === undefined) throw new Error(`${query} should be scanned in bytes`);
	const viaBytes: Match[] = [];
	const viaText: Match[] = [];
	scanner(bytes, "f", room, viaBytes);
	textScanner(new RegExp(escapeRegExp(query), `gm${caseSensitive ? "" : "i"}`))(bytes, "f", room, viaText);
	return { bytes: viaBytes, text: viaText };
}

const utf8 = (...parts: (string | number[])[]) =>
	Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

const CONTENTS: [label: string, bytes: Buffer][] = [
	["plain lines", utf8("no\nneedle here\nand a Needle and a NEEDLE\nnEeDlE\n")],
	["a match at the very start and the very end, no final newline", utf8("needle\nx\nthe end: needle")],
	["CRLF lines", utf8("a needle\r\nb\r\nNEEDLE\r\n")],
	["multi-byte characters before the match", utf8("é needle\n日本語 NEEDLE 日本\n😀😀 needle\n")],
	["a byte order mark", utf8([0xef, 0xbb, 0xbf], "needle on line one\n")],
	[
		"invalid UTF-8 before and after",
		utf8([0xff, 0xfe, 0x20], "needle", [0xc3], "\n", [0xe6, 0x97], "needle", [0xf0, 0x9f], "\n"),
	],
	["a truncated sequence right before the match", utf8("x", [0xe2, 0x82], "NEEDLE\n")],
	["a long line cut at 1000 characters", utf8(`${"é".repeat(990)}😀 needle ${"b".repeat(3000)}\n`)],
	["a line with only the match", utf8("\n\nneedle\n\n")],
	["bytes above 0x7f that fold like letters", utf8([0xce, 0xe5, 0xc5, 0xe4, 0xcc, 0xc5], " needle\n")],
];

describe("bytes and text agree", () => {
	for (const [label, bytes] of CONTENTS) {
		for (const caseSensitive of [false, true]) {
			test(`${label}, case_sensitive ${caseSensitive}`, () => {
				const { bytes: got, text } = both("needle", caseSensitive, bytes);
				expect(got).toEqual(text);
			});
		}
	}

	test("the fixtures find something", () => {
		expect(CONTENTS.every(([, bytes]) => both("needle", false, bytes).text.length > 0)).toBe(true);
	});

	test("pairs the folded copy merges are told apart", () => {
		const content = utf8("A`B\na@b\nx\ny\na*b\n[q]\n{q}\n");
		for (const query of ["a@b", "a*b", "x*y", "[q]", "{Q}"]) {
			const { bytes, text } = both(query, false, content);
			expect(bytes).toEqual(text);
		}
		expect(both("a@b", false, content).bytes.map((m) => m.line)).toEqual([2]);
		expect(both("x*y", false, content).bytes).toEqual([]);
	});

	test("the limit stops both at the same match", () => {
		const content = utf8("needle\n".repeat(50));
		for (const room of [1, 7, 50]) {
			const { bytes, text } = both("needle", false, content, room);
			expect(bytes).toEqual(text);
			expect(bytes).toHaveLength(room);
		}
	});

	test("files of any length, growing the scanner's buffers more than once", () => {
		const scanner = asciiScanner("needle", false);
		for (const size of [65_537, 131_075, 300_001, 1_048_583]) {
			const content = Buffer.alloc(size, "x");
			content.write("\nNeedle\n", size - 9);
			const found: Match[] = [];
			scanner?.(content, "f", 10, found);
			expect(found.map((m) => m.content)).toEqual(["Needle"]);
		}
	});

	test("only an ASCII literal without a line break is scanned in bytes", () => {
		expect(asciiScanner("café", false)).toBeUndefined();
		expect(asciiScanner("a\nb", false)).toBeUndefined();
		expect(asciiScanner("needle", false)).toBeDefined();
	});
});
