// `roundtable tests [list]` and `tests show`: the real CLI in a subprocess, reading runs that
// test.run recorded in the same project (a real SQLite file, real scripts).
import { describe, expect, test } from "bun:test";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { readRunSnapshot, renderRunView } from "../../src/tui/run-view.ts";
import type { TestRunRecord } from "../../src/vocabulary/records.ts";
import { cliHere as runCli } from "../_helpers/cli.ts";
import { project, run } from "../_helpers/test-run-helpers.ts";

// 100,000 bytes of numbered lines: more than one 64 KiB page of test.get_result.
const BIG = 'i=0; while [ "$i" -lt 5000 ]; do printf "line %014d\\n" "$i"; i=$((i + 1)); done';
const bigOutput = Array.from({ length: 5000 }, (_, i) => `line ${String(i).padStart(14, "0")}\n`).join("");

// One project for the whole file (made at load, so its runtime stays open until the file ends).
const p = await project({
	allow: ["./ok.sh", "./fail.sh", "./big.sh"],
	scripts: { "ok.sh": "echo fine", "fail.sh": "echo broken >&2\nexit 3", "big.sh": BIG },
});
const passed = (await run(p, { command: "./ok.sh 'an arg'" })).test_run;
const failed = (await run(p, { command: "./fail.sh" })).test_run;
const big = (await run(p, { command: "./big.sh" })).test_run;
const sandbox = probeSandbox().kind === "bwrap" ? "sandboxed" : "unsandboxed";
// A run with the sandbox off, beside them: the line says so, and why.
const off = await project({ allow: ["./ok.sh"], scripts: { "ok.sh": "echo fine" }, sandbox: "off" });
const plain = (await run(off, { command: "./ok.sh" })).test_run;

const cli = (...args: string[]) => runCli([...args, "--root", p.root]);

describe("tests list", () => {
	test("one line per run, newest first; `tests` alone is the same", async () => {
		const r = await cli("tests", "list");
		expect(r.code).toBe(0);
		const lines = r.stdout.trimEnd().split("\n");
		expect(lines.map((l) => l.split(" ")[0])).toEqual([big.id, failed.id, passed.id]);
		expect(lines[1]).toMatch(
			new RegExp(`^${failed.id} failed exit 3 \\d+\\.\\ds project ${sandbox} \\./fail\\.sh$`),
		);
		expect(lines[2]).toEndWith(` project ${sandbox} ./ok.sh 'an arg'`);
		const offLine = await runCli(["tests", "--root", off.root]);
		expect(offLine.stdout).toEndWith(" project unsandboxed ./ok.sh\n");
		expect((await cli("tests")).stdout).toBe(r.stdout);
	});

	test("--status, --limit and --proposal narrow it; --json gives the records", async () => {
		expect((await cli("tests", "--status", "failed")).stdout).toStartWith(`${failed.id} failed`);
		expect((await cli("tests", "--limit", "1")).stdout.trimEnd().split("\n")).toHaveLength(1);
		expect((await cli("tests", "--proposal", "P-none")).stdout).toBe("");
		const json = JSON.parse((await cli("tests", "--status", "passed", "--json")).stdout) as {
			test_runs: TestRunRecord[];
		};
		expect(json.test_runs.map((r) => r.id)).toEqual([big.id, passed.id]);
		expect(json.test_runs[1]).toEqual(passed);
	});

	test("a bad --status or --limit exits 2 and says what is allowed", async () => {
		const status = await cli("tests", "--status", "pased");
		expect(status.code).toBe(2);
		expect(status.stderr).toContain("--status must be one of running, passed, failed");
		expect(status.stderr).toContain("(did you mean 'passed'?)");
		const limit = await cli("tests", "--limit", "0");
		expect(limit.code).toBe(2);
		expect(limit.stderr).toContain("--limit must be an integer from 1 to 1000");
	});
});

describe("the run view", () => {
	test("shows the newest test run among the latest records", async () => {
		const snapshot = await readRunSnapshot(p.rt.store, "RUN-none", 5);
		expect(snapshot.latestTestRun).toEqual(big);
		const lines = renderRunView(snapshot, { width: 120, height: 30 });
		expect(lines).toContain(`test      ${big.id} [passed] project: ./big.sh`);
	});
});

describe("tests show", () => {
	test("the run's line, then its whole log, however many pages it takes", async () => {
		const r = await cli("tests", "show", big.id);
		expect(r.code).toBe(0);
		const [head, second] = r.stdout.split("\n");
		expect(second).toBe(sandbox === "sandboxed" ? "sandbox: bwrap" : `sandbox: none (${big.sandbox_reason})`);
		expect(r.stdout).toBe(`${head}\n${second}\n\n${bigOutput}`);
		expect(r.stdout.split("\n")[0]).toStartWith(`${big.id} passed exit 0 `);
		const failing = await cli("tests", "show", failed.id);
		expect(failing.stdout).toEndWith("\n\nbroken\n");
		const none = await runCli(["tests", "show", plain.id, "--root", off.root]);
		expect(none.stdout.split("\n")[1]).toBe("sandbox: none (tests.sandbox is off)");
	});

	test("--json gives the record and the log", async () => {
		const r = await cli("tests", "show", passed.id, "--json");
		expect(JSON.parse(r.stdout)).toEqual({ test_run: passed, log: "fine\n" });
	});

	test("an unknown id exits 1; a missing one exits 2; a mistyped subcommand gets a suggestion", async () => {
		const unknown = await cli("tests", "show", "TR-nope");
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain("test run TR-nope not found");
		const missing = await cli("tests", "show");
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain("a test run id is required");
		const typo = await cli("tests", "shw", passed.id);
		expect(typo.code).toBe(2);
		expect(typo.stderr).toContain("(did you mean 'tests show'?)");
	});
});
