// What test.run adds to running a command: the same trivial command spawned directly (both pipes
// read, exit awaited) against test.run in the project root (a row and an event before, the log file
// and a row and an event after). Median of 20 each. Then test.suggest's own time on a big repository.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../src/config/defaults.ts";
import { RepoGuard } from "../src/repo/guard.ts";
import { suggestTests } from "../src/testing/suggest.ts";
import { proposalWorkdir } from "../src/testing/workdir.ts";
import { fmt, freshProject, median } from "./lib.ts";

const RUNS = 20;
const ARGV = ["printf", "ok\\n"];

export async function run(): Promise<void> {
	const p = await freshProject((root) => {
		mkdirSync(join(root, ".roundtable"));
		writeFileSync(join(root, ".roundtable/config.yaml"), "tests:\n  allowed_commands: [printf]\n");
	});

	const direct: number[] = [];
	const viaTool: number[] = [];
	for (let i = 0; i < RUNS + 2; i++) {
		let t = performance.now();
		const proc = Bun.spawn(ARGV, { cwd: p.rt.root, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
		await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
		const d = performance.now() - t;
		t = performance.now();
		const out = (await p.call("test.run", { command: ARGV.join(" ") })) as {
			test_run: { status: string };
		};
		const v = performance.now() - t;
		if (out.test_run.status !== "passed") throw new Error(`bench run ${out.test_run.status}`);
		if (i >= 2) {
			// the first two warm up both paths
			direct.push(d);
			viaTool.push(v);
		}
	}
	const a = median(direct);
	const b = median(viaTool);
	console.log(`test.run overhead, \`${ARGV.join(" ")}\` (median of ${RUNS}):`);
	console.log(`  spawned directly      ${fmt(a, 2).padStart(7)} ms`);
	console.log(`  through test.run      ${fmt(b, 2).padStart(7)} ms   (+${fmt(b - a, 2)} ms)`);
	p.done();
	await suggestBench();
	await workdirBench();
}

/** What a proposal's test run pays before its command starts: the scratch copy of a 20,000-file repository. */
async function workdirBench(): Promise<void> {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "rt-bench-workdir-")));
	for (let d = 0; d < 200; d++) {
		mkdirSync(join(root, `src/p${d}`), { recursive: true });
		for (let f = 0; f < 100; f++)
			writeFileSync(join(root, `src/p${d}/f${f}.ts`), `export const x = ${f};\n`.repeat(40));
	}
	const git = (...args: string[]) =>
		Bun.spawnSync(["git", "-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: root });
	git("init", "-q");
	git("add", ".");
	git("commit", "-qm", "x");
	writeFileSync(join(root, "src/p1/f1.ts"), "changed\n");
	const patch = join(root, "..", `${root.split("/").pop()}.patch`);
	writeFileSync(patch, git("diff").stdout);
	git("checkout", "--", ".");
	const copy: number[] = [];
	const remove: number[] = [];
	for (let i = 0; i < 5; i++) {
		let t = performance.now();
		const workdir = await proposalWorkdir(root, patch, 1);
		copy.push(performance.now() - t);
		t = performance.now();
		workdir.remove();
		remove.push(performance.now() - t);
	}
	console.log("a proposal's scratch copy, 20,000-file git repository (median of 5):");
	console.log(`  copy and apply        ${fmt(median(copy), 0).padStart(7)} ms`);
	console.log(`  remove                ${fmt(median(remove), 0).padStart(7)} ms`);
	rmSync(root, { recursive: true, force: true });
	rmSync(patch, { force: true });
}

/**
 * test.suggest on a 10,000-file git repository (Go and Python side by side): a Go change reads a
 * few manifests; a Python change also lists every file to find the test files named after it.
 */
async function suggestBench(): Promise<void> {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "rt-bench-suggest-")));
	writeFileSync(join(root, "go.mod"), "module example.com/big\n\ngo 1.22\n");
	writeFileSync(join(root, "pyproject.toml"), "[tool.pytest.ini_options]\n");
	for (let d = 0; d < 100; d++) {
		mkdirSync(join(root, `pkg${d}`));
		mkdirSync(join(root, `py${d}`));
		for (let f = 0; f < 50; f++) {
			writeFileSync(join(root, `pkg${d}`, `f${f}.go`), `package pkg${d}\n`);
			writeFileSync(join(root, `py${d}`, f === 0 ? `test_m${d}.py` : `m${d}_${f}.py`), "x = 1\n");
		}
	}
	for (const args of [
		["init", "-q"],
		["add", "."],
		["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "x"],
	])
		Bun.spawnSync(["git", ...args], { cwd: root });
	const guard = new RepoGuard(root);
	const allowed = defaultConfig().tests.allowed_commands;
	const time = async (touched: string[]) => {
		const times: number[] = [];
		for (let i = 0; i < RUNS; i++) {
			const t = performance.now();
			await suggestTests(guard, { touched, expected: [] }, allowed);
			times.push(performance.now() - t);
		}
		return median(times);
	};
	const go = await time(["pkg3/f1.go", "pkg7/f2.go"]);
	const py = await time(["py3/m3_1.py"]);
	console.log(`test.suggest on a 10,000-file git repository (median of ${RUNS}):`);
	console.log(`  a Go change           ${fmt(go, 2).padStart(7)} ms`);
	console.log(`  a Python change       ${fmt(py, 2).padStart(7)} ms   (lists every file for test_*.py)`);
	rmSync(root, { recursive: true, force: true });
}

if (import.meta.main) await run();
