// Did-you-mean and the echo of caller input are bounded: the work is counted (cells of the edit
// distance table), not timed, and a name far longer than every candidate is never searched at all.
import { describe, expect, test } from "bun:test";
import {
	clip,
	didYouMean,
	ECHO_CHARS,
	echo,
	quoted,
	SEARCH_MARGIN,
	searchWork,
} from "../../src/domain/text.ts";
import { TOOLS } from "../../src/registry/index.ts";

const NAMES = TOOLS.map((t) => t.name);
const LONGEST = Math.max(...NAMES.map((n) => n.length));

/** The suggestion, whether a search began, and how many table cells it filled. */
function counted(input: string, candidates: string[] = NAMES) {
	const { searches, cells } = searchWork;
	const near = didYouMean(input, candidates);
	return { near, searched: searchWork.searches > searches, cells: searchWork.cells - cells };
}

describe("didYouMean", () => {
	test("still finds typos, separators and case", () => {
		expect(didYouMean("task.lst", NAMES)).toBe("task.list");
		expect(didYouMean("TASK-LIST", NAMES)).toBe("task.list");
		expect(didYouMean("taskId", ["task_id", "title"])).toBe("task_id");
		expect(didYouMean("modle", ["model", "adapter"])).toBe("model");
		expect(didYouMean("zzzzzzzz", NAMES)).toBeUndefined();
	});

	test("a 16 MiB name never reaches the search", () => {
		expect(counted("a".repeat(16 * 1024 * 1024))).toEqual({ near: undefined, searched: false, cells: 0 });
	});

	test("a name just past the margin is not searched; one within it is, with bounded work", () => {
		expect(counted("a".repeat(LONGEST + SEARCH_MARGIN + 1)).searched).toBe(false);
		// Within the margin, only candidates whose length could be close enough are compared.
		const within = counted("x".repeat(LONGEST + SEARCH_MARGIN));
		expect(within.searched).toBe(true);
		expect(within.near).toBeUndefined();
		expect(within.cells).toBeLessThanOrEqual((LONGEST + SEARCH_MARGIN) * LONGEST * NAMES.length);
		// An ordinary typo compares at most every candidate once.
		const typo = counted("task.lsit");
		expect(typo.near).toBe("task.list");
		expect(typo.cells).toBeLessThanOrEqual("task.lsit".length * LONGEST * NAMES.length);
	});

	test("the margin follows the candidates, not a fixed size", () => {
		expect(counted("b".repeat(4 + SEARCH_MARGIN), ["abcd"]).searched).toBe(true);
		expect(counted("b".repeat(4 + SEARCH_MARGIN + 1), ["abcd"]).searched).toBe(false);
		expect(counted("abdc", ["abcd"]).near).toBe("abcd");
	});
});

describe("the echo of caller input", () => {
	test("short input is kept whole", () => {
		expect(quoted("task.lst")).toBe("'task.lst'");
		expect(echo("file:a.txt")).toBe("file:a.txt");
		expect(clip("x".repeat(ECHO_CHARS))).toBe("x".repeat(ECHO_CHARS));
	});

	test("long input is cut to a prefix of at most 200 characters, with its length", () => {
		const name = "a".repeat(8 * 1024 * 1024);
		expect(ECHO_CHARS).toBeLessThanOrEqual(200);
		expect(quoted(name)).toBe(`'${"a".repeat(ECHO_CHARS)}…' (8388608 characters)`);
		expect(echo(name)).toBe(`${"a".repeat(ECHO_CHARS)}… (8388608 characters)`);
	});

	test("a cut never splits a surrogate pair", () => {
		const cut = clip(`${"a".repeat(ECHO_CHARS - 1)}😀${"b".repeat(10)}`);
		expect(cut).toBe(`${"a".repeat(ECHO_CHARS - 1)}…`);
		expect(cut.isWellFormed()).toBe(true);
	});
});
