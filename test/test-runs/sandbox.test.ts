// test.run in bubblewrap (tests.sandbox auto, where bwrap works): what a project's test cannot reach,
// what ordinary test runners still do inside, and the record of which sandbox each run had. The
// unsandboxed path (tests.sandbox off) is run beside it, to show each check can fail.
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../src/sandbox/index.ts";
import type { TestRunRecord } from "../../src/vocabulary/records.ts";
import { commitAll, removeTempDirs, runCli, tempDir, write } from "../_helpers/helpers.ts";
import {
	eventsOf,
	expectNothingRecorded,
	project,
	propose,
	run,
	withEnv,
} from "../_helpers/test-run-helpers.ts";

const here = probeSandbox();
if (here.kind === "none") console.log(`sandboxed test.run tests skipped: ${here.reason}`);
const sandboxed = describe.skipIf(here.kind === "none");

afterAll(removeTempDirs);

const which = (program: string) => Bun.which(program) ?? undefined;

/** Where pyenv keeps its Pythons, when pytest comes through a pyenv shim; else undefined. */
function pyenvRoot(): string[] | undefined {
	const shim = which("pytest");
	if (!shim?.includes("/.pyenv/")) return undefined;
	return [shim.slice(0, shim.indexOf("/.pyenv/") + "/.pyenv".length)];
}

sandboxed("test.run in bubblewrap", () => {
	test("a run records bwrap and works on a scratch copy: nothing it writes lands in the project or outside", async () => {
		const outside = tempDir("rt-outside-");
		const body = `echo in > inside.txt; cat inside.txt; echo x > ${outside}/x; echo evil > .git/HEAD; touch .roundtable/x; cat .roundtable/config.yaml; echo ok`;
		const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": body } });
		commitAll(p.root);
		const head = readFileSync(join(p.root, ".git/HEAD"), "utf8");
		const { test_run, log } = await run(p, { command: "./t.sh" });
		expect(test_run).toMatchObject({ status: "passed", sandbox: "bwrap", sandbox_reason: null });
		expect(log).toContain("in\n");
		expect(existsSync(join(p.root, "inside.txt"))).toBe(false);
		expect(existsSync(join(outside, "x"))).toBe(false);
		expect(readFileSync(join(p.root, ".git/HEAD"), "utf8")).toBe(head);
		expect(existsSync(join(p.root, ".roundtable/x"))).toBe(false);
		expect(log).not.toContain("allowed_commands"); // the config under .roundtable is out of sight
		const [started] = await eventsOf(p, "test.started");
		expect(started?.payload.sandbox).toBe("bwrap");

		// The same script unsandboxed writes all of it: the checks above can fail.
		const off = await project({ allow: ["./t.sh"], scripts: { "t.sh": body }, sandbox: "off" });
		const plain = await run(off, { command: "./t.sh" });
		expect(plain.test_run).toMatchObject({ sandbox: "none", sandbox_reason: "tests.sandbox is off" });
		expect(existsSync(join(outside, "x"))).toBe(true);
		expect(existsSync(join(off.root, ".roundtable/x"))).toBe(true);
		expect(existsSync(join(off.root, "inside.txt"))).toBe(true);
	});

	test("~/.ssh and the owner's environment are unreadable", async () => {
		const home = tempDir("rt-home-");
		write(home, ".ssh/id_ed25519", "PRIVATE KEY");
		const body = `cat "$HOME/.ssh/id_ed25519" ${home}/.ssh/id_ed25519; cat /proc/*/environ | tr '\\0' '\\n' | grep RT_OWNER_SECRET; echo end`;
		const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": body } });
		const { log } = await withEnv({ HOME: home, RT_OWNER_SECRET: "owner-secret" }, () =>
			run(p, { command: "./t.sh" }),
		);
		expect(log).toContain("end");
		expect(log).not.toContain("PRIVATE KEY");
		expect(log).not.toContain("owner-secret");
	});

	test("no network: a TCP connect to a loopback listener outside fails, unless tests.network is true", async () => {
		let accepted = 0;
		const server = Bun.listen({
			hostname: "127.0.0.1",
			port: 0,
			socket: { open: () => void accepted++, data() {} },
		});
		try {
			const body = `node -e "require('net').connect(${server.port},'127.0.0.1').on('connect',()=>{console.log('connected');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(3)})"`;
			const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": body } });
			const off = await run(p, { command: "./t.sh" });
			expect(off.test_run.status).toBe("failed");
			expect(off.log).not.toContain("connected");
			expect(accepted).toBe(0);
			const on = await project({ allow: ["./t.sh"], scripts: { "t.sh": body }, network: true });
			const r = await run(on, { command: "./t.sh" });
			expect(r.test_run).toMatchObject({ status: "passed", sandbox: "bwrap" });
			expect(accepted).toBe(1);
		} finally {
			server.stop(true);
		}
	});

	test("a proposal's scratch copy: its hard-linked node_modules is read-only, the original untouched", async () => {
		const body = "echo changed > node_modules/dep/index.js; cat node_modules/dep/index.js; cat greeting.txt";
		const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": body } });
		commitAll(p.root, { "greeting.txt": "hello\n", ".gitignore": "node_modules/\n" });
		write(p.root, "node_modules/dep/index.js", "original\n");
		const proposal = await propose(p, "greeting.txt", "hello, patched\n");
		const { test_run, log } = await run(p, { command: "./t.sh", proposal_id: proposal.id });
		expect(test_run.sandbox).toBe("bwrap");
		expect(log).toContain("Read-only file system");
		expect(log).toContain("hello, patched"); // the copy, with the patch applied
		expect(readFileSync(join(p.root, "node_modules/dep/index.js"), "utf8")).toBe("original\n");
	});

	test("patch.validate names each pass's sandbox; tests_sandbox_required counts only a sandboxed one", async () => {
		const strict = "\n```yaml\nconsensus:\n  default:\n    tests_sandbox_required: true\n```\n";
		const testsGate = async (sandbox: "auto" | "off") => {
			const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": "cat greeting.txt" }, sandbox });
			commitAll(p.root, { "greeting.txt": "hello\n" });
			appendFileSync(join(p.root, "POLICIES.ROUNDTABLE.md"), strict);
			const proposal = await propose(p, "greeting.txt", "hello, patched\n");
			const { test_run } = await run(p, { command: "./t.sh", proposal_id: proposal.id });
			expect(test_run.status).toBe("passed");
			const report = (await p.call("patch.validate", { proposal_id: proposal.id })) as {
				gates: { gate: string; ok: boolean; reason: string }[];
				policy: { tests_sandbox_required: boolean };
			};
			expect(report.policy.tests_sandbox_required).toBe(true);
			return { id: test_run.id, gate: report.gates.find((g) => g.gate === "tests") };
		};
		const sandboxed = await testsGate("auto");
		expect(sandboxed.gate).toEqual({
			gate: "tests",
			ok: true,
			reason: `a passing test run for revision 1 (${sandboxed.id}, sandboxed)`,
		});
		const plain = await testsGate("off");
		expect(plain.gate).toEqual({
			gate: "tests",
			ok: false,
			reason:
				"no passing test run for revision 1 (required by the default profile; 1 unsandboxed pass not counted: the default profile requires the sandbox)",
		});
	});

	test("a timeout kills the whole tree inside the sandbox", async () => {
		// A background loop that outlives its parent; its `sleep 0.137` names it on the host's /proc.
		const body = "(while :; do sleep 0.137; done) &\necho started\nsleep 30";
		const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": body }, timeout: 20 });
		const { test_run } = await run(p, { command: "./t.sh", timeout_seconds: 1 });
		expect(test_run).toMatchObject({ status: "timed_out", signal: "SIGKILL", sandbox: "bwrap" });
		await Bun.sleep(300);
		const left = readdirSync("/proc")
			.filter((d) => /^\d+$/.test(d))
			.filter((d) => {
				try {
					return readFileSync(`/proc/${d}/cmdline`, "utf8").includes("0.137");
				} catch {
					return false;
				}
			});
		expect(left).toEqual([]);
	});

	test("tests.sandbox required runs in bwrap where it works", async () => {
		const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": "echo ok" }, sandbox: "required" });
		expect((await run(p, { command: "./t.sh" })).test_run.sandbox).toBe("bwrap");
	});
});

describe("where bubblewrap is unusable (a bwrap on PATH that fails, in a CLI process of its own)", () => {
	// The probe runs once per process, so each case is a fresh `mcp call --direct` with that PATH.
	const fakeBin = tempDir("rt-fake-bwrap-");
	write(fakeBin, "bwrap", "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
	chmodSync(join(fakeBin, "bwrap"), 0o755);
	const why = "bubblewrap is unusable here: bwrap: No permissions to create new namespace";
	const callTestRun = (root: string) =>
		runCli(
			["mcp", "call", "--direct", "--tool", "test.run", "--args", '{"command":"./t.sh"}', "--root", root],
			{
				env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}` },
			},
		);

	test("tests.sandbox required refuses the run with failed_precondition, recording nothing", async () => {
		const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": "touch ran" }, sandbox: "required" });
		const r = await callTestRun(p.root);
		expect(r.code).toBe(1);
		const { error } = JSON.parse(r.stderr) as { error: { code: string; message: string } };
		expect(error).toMatchObject({
			code: "failed_precondition",
			message: `tests.sandbox is required, but ${why}`,
		});
		expect(existsSync(join(p.root, "ran"))).toBe(false);
		await expectNothingRecorded(p);
	});

	test("tests.sandbox auto runs unsandboxed and records why", async () => {
		const p = await project({ allow: ["./t.sh"], scripts: { "t.sh": "touch ran" } });
		const r = await callTestRun(p.root);
		expect(r.code).toBe(0);
		const { test_run } = JSON.parse(r.stdout) as { test_run: TestRunRecord };
		expect(test_run).toMatchObject({ status: "passed", sandbox: "none", sandbox_reason: why });
		expect(existsSync(join(p.root, "ran"))).toBe(true);
	});
});

describe("ordinary test runners pass in the sandbox (a runner not installed is skipped)", () => {
	const runners: [string, string, Record<string, string>][] = [
		[
			"npm test",
			"npm",
			{
				"package.json": '{"name":"f","private":true,"scripts":{"test":"node t.js"}}\n',
				"t.js": "require('assert').strictEqual(1 + 1, 2); console.log('npm ok');\n",
			},
		],
		[
			"bun test",
			"bun",
			{ "a.test.ts": 'import { expect, test } from "bun:test";\ntest("a", () => expect(1).toBe(1));\n' },
		],
		[
			"go test ./...",
			"go",
			{
				"go.mod": "module example.com/f\n\ngo 1.19\n",
				"f_test.go":
					'package f\n\nimport "testing"\n\nfunc TestF(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal("math")\n\t}\n}\n',
			},
		],
		["pytest -q -p no:cacheprovider", "pytest", { "test_f.py": "def test_f():\n    assert 1 + 1 == 2\n" }],
	];
	for (const [command, program, files] of runners) {
		const missing = !which(program);
		if (missing) console.log(`'${command}' in the sandbox skipped: ${program} is not installed`);
		test.skipIf(missing)(`${command}`, async () => {
			// A pyenv Python is a toolchain the allowlist does not show: named in sandbox.expose, as a user would.
			const expose = program === "pytest" ? pyenvRoot() : undefined;
			const p = await project({ allow: [command.split(" ").slice(0, 2).join(" ")], expose });
			for (const [path, text] of Object.entries(files)) write(p.root, path, text);
			const { test_run, log } = await run(p, { command, timeout_seconds: 120 });
			expect({ status: test_run.status, log }).toMatchObject({ status: "passed" });
			expect(test_run.sandbox).toBe(here.kind === "bwrap" ? "bwrap" : "none");
		});
	}
});
