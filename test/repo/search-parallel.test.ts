// A search that lends half its files to the second thread (src/repo/search-pool.ts) answers exactly
// what the calling thread alone answers: the same matches in the same order, the same truncation and
// files_searched, a read scope applied to the lent half too, and links out of the repository still
// refused there.
import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RepoGuard } from "../../src/repo/guard.ts";
import { type SearchOptions, searchRepo } from "../../src/repo/search.ts";
import { searchTuning } from "../../src/repo/search-pool.ts";
import { commitAll, tempDir, until, write } from "../_helpers/helpers.ts";

const SECRET = "TOP-SECRET-parallel";

function tree(): string {
	const root = tempDir("rt-parallel-");
	const files: Record<string, string> = { ".gitignore": "ignored/\n" };
	for (let i = 0; i < 300; i++) {
		const dir = `src/d${i % 17}`;
		const lines = Array.from({ length: 8 }, (_, l) =>
			l === i % 8 ? `line ${l} Needle ${i}` : `line ${l} of ${i}`,
		);
		files[`${dir}/f${i}.ts`] = `${lines.join("\n")}\n`;
		if (i % 50 === 0) files[`secret/s${i}.txt`] = `needle in a file out of scope ${i}\n`;
	}
	files["ignored/x.ts"] = "needle\n";
	commitAll(root, files);
	write(root, "src/untracked.ts", "an untracked needle\n");
	const outside = tempDir("rt-parallel-outside-");
	writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
	symlinkSync(join(outside, "secret.txt"), join(root, "src", "zz-link-out"));
	return root;
}

const options = (o: Partial<SearchOptions>): SearchOptions => ({
	query: "needle",
	regex: false,
	caseSensitive: false,
	path: undefined,
	globs: [],
	limit: 5000,
	signal: new AbortController().signal,
	...o,
});

async function bothWays(guard: RepoGuard, o: SearchOptions) {
	searchTuning.parallelFrom = Number.POSITIVE_INFINITY;
	const alone = await searchRepo(guard, o);
	// A search that stopped early leaves the second thread finishing its half: wait until it is free.
	await until(
		() => searchTuning.returned + searchTuning.failed === searchTuning.lent,
		10_000,
		"the second thread to be free",
	);
	searchTuning.parallelFrom = 0;
	const lentBefore = searchTuning.lent;
	const lent = await searchRepo(guard, o);
	expect(searchTuning.lent).toBe(lentBefore + 1); // the second thread really had half of it
	return { alone, lent };
}

describe("a search shared with the second thread", () => {
	const root = tree();
	const before = searchTuning.parallelFrom;
	afterAll(() => {
		searchTuning.parallelFrom = before;
	});

	test("finds what one thread finds, limits and all", async () => {
		const guard = new RepoGuard(root);
		for (const o of [
			{},
			{ limit: 1 },
			{ limit: 120 },
			{ limit: 299 },
			{ limit: 301 },
			{ caseSensitive: true, query: "Needle" },
			{ regex: true, query: "Needle \\d+5$" },
			{ globs: ["src/d1*/**"] },
			{ path: "src/d3" },
		]) {
			const { alone, lent } = await bothWays(guard, options(o));
			expect(lent).toEqual(alone);
			expect(alone.files_searched).toBeGreaterThan(0);
		}
	});

	test("a read scope holds for the lent half too", async () => {
		const guard = new RepoGuard(root, (rel) =>
			rel.startsWith("secret/") ? "not in this task's paths" : undefined,
		);
		const { alone, lent } = await bothWays(guard, options({}));
		expect(lent).toEqual(alone);
		expect(lent.matches.some((m) => m.path.startsWith("secret/"))).toBe(false);
		const open = await bothWays(new RepoGuard(root), options({}));
		expect(open.lent.matches.some((m) => m.path.startsWith("secret/"))).toBe(true);
	});

	test("the second thread's halves came back", async () => {
		await until(
			() => searchTuning.returned + searchTuning.failed === searchTuning.lent,
			10_000,
			"the second thread to be free",
		);
		expect(searchTuning.returned).toBeGreaterThanOrEqual(11);
	});

	test("a second thread that fails leaves the whole search to the calling thread", async () => {
		const guard = new RepoGuard(root);
		const good = searchTuning.worker;
		searchTuning.worker = new URL("./no-such-worker.ts", good).href;
		const failed = searchTuning.failed;
		try {
			for (const o of [{}, { limit: 120 }]) {
				await until(
					() => searchTuning.returned + searchTuning.failed === searchTuning.lent,
					10_000,
					"the second thread to be free",
				);
				searchTuning.parallelFrom = Number.POSITIVE_INFINITY;
				const alone = await searchRepo(guard, options(o));
				searchTuning.parallelFrom = 0;
				expect(await searchRepo(guard, options(o))).toEqual(alone);
			}
			expect(searchTuning.failed).toBe(failed + 1); // tried once, then left alone
		} finally {
			searchTuning.worker = good;
		}
	});

	test("chunks a failing second thread took, or never got to, are read by the calling thread", async () => {
		// A larger tree, so that the failing worker starts while the calling thread is still reading.
		const big = tempDir("rt-parallel-big-");
		for (let i = 0; i < 6000; i++)
			write(big, `d${i % 40}/f${i}.txt`, i % 97 === 0 ? `a needle ${i}\n` : `hay ${i}\n`);
		const guard = new RepoGuard(big);
		const good = searchTuning.worker;
		const reread = searchTuning.reread;
		searchTuning.parallelFrom = Number.POSITIVE_INFINITY;
		const alone = await searchRepo(guard, options({}));
		try {
			// Whether the worker starts before the calling thread is done is up to the scheduler: a
			// few tries (each a new worker) make sure the lost chunks were read again at least once.
			for (let attempt = 0; attempt < 5 && searchTuning.reread === reread; attempt++) {
				await until(
					() => searchTuning.returned + searchTuning.failed === searchTuning.lent,
					10_000,
					"the second thread to be free",
				);
				searchTuning.worker = new URL(
					`../_helpers/failing-search-worker.ts?attempt=${attempt}`,
					import.meta.url,
				).href;
				searchTuning.parallelFrom = 0;
				expect(await searchRepo(guard, options({}))).toEqual(alone);
			}
			expect(searchTuning.reread).toBeGreaterThan(reread);
		} finally {
			searchTuning.worker = good;
		}
	});

	test("a link out of the repository is refused on either thread", async () => {
		const { alone, lent } = await bothWays(new RepoGuard(root), options({ query: SECRET }));
		expect(alone.matches).toEqual([]);
		expect(lent.matches).toEqual([]);
	});
});
