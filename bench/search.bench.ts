// repo.search on a generated tree of 50,000 visible files (plus a big directory .gitignore hides),
// against ripgrep and git grep on the same tree in the same run: wall time, and whether all three
// find exactly the same lines.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { operatorContext } from "../src/context.ts";
import { call } from "../src/dispatch.ts";
import { initProject } from "../src/init/index.ts";
import { openRuntime } from "../src/runtime.ts";
import { fmt, median } from "./lib.ts";

const FILES = Number(process.env.BENCH_SEARCH_FILES ?? 50_000);
const HIDDEN_FILES = 20_000;
const RUNS = 3;

function generate(root: string): void {
	const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa"];
	const body = (i: number) => {
		const lines: string[] = [];
		for (let l = 0; l < 20; l++)
			lines.push(`${words[(i + l) % 8]} ${i} ${l} ${words[(i * 7 + l) % 8]} lorem ipsum`);
		if (i % 97 === 0) lines[i % 20] = `function Needle${i}() { return "needle"; }`;
		return `${lines.join("\n")}\n`;
	};
	writeFileSync(join(root, ".gitignore"), "node_modules/\n*.tmp\n");
	for (let d = 0; d < FILES / 100; d++) {
		const dir = join(root, "src", `pkg${d}`);
		mkdirSync(dir, { recursive: true });
		for (let f = 0; f < 100; f++) writeFileSync(join(dir, `file${f}.ts`), body(d * 100 + f));
	}
	for (let d = 0; d < HIDDEN_FILES / 100; d++) {
		const dir = join(root, "node_modules", `dep${d}`);
		mkdirSync(dir, { recursive: true });
		for (let f = 0; f < 100; f++) writeFileSync(join(dir, `index${f}.js`), "// needle needle needle\n");
	}
}

function sh(cwd: string, argv: string[]): { out: string; ms: number } {
	const t = performance.now();
	const r = Bun.spawnSync(argv, {
		cwd,
		stdout: "pipe",
		stderr: "ignore",
		env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
	});
	return { out: r.stdout.toString(), ms: performance.now() - t };
}

/** `path:line` for each output line of the form path:line:column:text. */
const keys = (out: string) =>
	new Set(
		out
			.split("\n")
			.filter(Boolean)
			.map((l) => l.split(":").slice(0, 2).join(":")),
	);

const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((k) => b.has(k));

export async function run(): Promise<void> {
	const root = mkdtempSync(join(tmpdir(), "rt-bench-search-"));
	try {
		const t0 = performance.now();
		generate(root);
		await initProject(root);
		sh(root, ["git", "init", "-q"]);
		sh(root, ["git", "add", "."]);
		sh(root, ["git", "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "tree"]);
		console.log(
			`repo.search: ${fmt(FILES)} visible files, ${fmt(HIDDEN_FILES)} more under an ignored node_modules/ (tree built in ${fmt((performance.now() - t0) / 1000, 1)} s):`,
		);
		const rt = openRuntime(root);
		const ctx = operatorContext("internal");
		const ours: number[] = [];
		let found = new Set<string>();
		for (let i = 0; i < RUNS; i++) {
			const t = performance.now();
			const r = (await call(rt, "repo.search", { query: "needle", limit: 5000 }, ctx)) as {
				matches: { path: string; line: number }[];
				truncated: boolean;
			};
			ours.push(performance.now() - t);
			if (r.truncated) throw new Error("raise the limit: the comparison needs every match");
			found = new Set(r.matches.map((m) => `${m.path}:${m.line}`));
		}
		rt.close();
		const rg = Array.from({ length: RUNS }, () =>
			sh(root, ["rg", "-i", "-F", "-n", "--column", "--no-heading", "needle"]),
		);
		const gitGrep = Array.from({ length: RUNS }, () =>
			sh(root, ["git", "grep", "-i", "-F", "-n", "--column", "needle"]),
		);
		const oursMs = median(ours);
		const rgMs = median(rg.map((r) => r.ms));
		const gitMs = median(gitGrep.map((r) => r.ms));
		const rgKeys = keys(rg[0]?.out ?? "");
		const gitKeys = keys(gitGrep[0]?.out ?? "");
		console.log(
			`  repo.search (dispatcher)   ${fmt(oursMs).padStart(6)} ms   ${fmt(found.size)} matching lines`,
		);
		console.log(
			`  rg -i -F                   ${fmt(rgMs).padStart(6)} ms   ${fmt(rgKeys.size)} lines   repo.search/rg ${fmt(oursMs / rgMs, 1)}×   same lines: ${same(found, rgKeys)}`,
		);
		console.log(
			`  git grep -i -F             ${fmt(gitMs).padStart(6)} ms   ${fmt(gitKeys.size)} lines   repo.search/git grep ${fmt(oursMs / gitMs, 1)}×   same lines: ${same(found, gitKeys)}`,
		);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}
