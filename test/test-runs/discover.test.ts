// test.suggest: one sample project per ecosystem (fixtures/tests/), the files a change touches, and
// a PATH we control — a folder of stand-in programs — so what is suggested, and what is skipped
// because its program is missing, does not depend on what this machine has installed.
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultConfig } from "../../src/config/defaults.ts";
import { RepoGuard } from "../../src/repo/guard.ts";
import { allowedBy, splitCommand } from "../../src/test-runs/argv.ts";
import { type Suggestion, suggestTests } from "../../src/test-runs/discover.ts";
import { argumentRefusal } from "../../src/test-runs/inside.ts";
import { type Flow, taskFlow } from "../_helpers/flow-helpers.ts";
import { commitAll, diffOf, expectDeclaredOutput, makeProject, REPO, tempDir } from "../_helpers/helpers.ts";

const ALLOWED = defaultConfig().tests.allowed_commands;

/** A folder holding stand-ins for these programs: PATH for one call. */
function pathWith(...programs: string[]): string {
	const bin = tempDir("rt-bin-");
	for (const name of programs) {
		writeFileSync(join(bin, name), "#!/bin/sh\nexit 0\n");
		chmodSync(join(bin, name), 0o755);
	}
	return bin;
}

const EVERYTHING = pathWith("npm", "pnpm", "yarn", "bun", "go", "cargo", "pytest", "make");

function fixture(name: string): RepoGuard {
	const dir = realpathSync(tempDir("rt-suggest-"));
	cpSync(join(REPO, "fixtures", "tests", name), dir, { recursive: true });
	return new RepoGuard(dir);
}

async function suggest(
	name: string | RepoGuard,
	touched: string[] | null,
	o: { path?: string; expected?: string[]; whole?: string } = {},
) {
	const guard = typeof name === "string" ? fixture(name) : name;
	return suggestTests(
		guard,
		{ touched, expected: o.expected ?? [], whole: o.whole },
		ALLOWED,
		o.path ?? EVERYTHING,
	);
}

const commands = (s: Suggestion[]) => s.map((x) => x.command);

describe("one suggestion per ecosystem, narrowed to what the change touches", () => {
	test("bun: the lockfile picks bun, and `bun run test` runs the script (not bun's own runner)", async () => {
		const out = await suggest("bun", ["src/a.ts"]);
		expect(commands(out.suggestions)).toEqual(["bun run test"]);
		expect(out.suggestions[0]?.reason).toContain("src/a.ts");
		expect(out.suggestions[0]?.reason).toContain("`bun test`");
	});

	test("npm workspaces: the touched package alone; a package with npm's placeholder falls back to the root", async () => {
		const out = await suggest("npm-workspaces", ["packages/api/src/server.js", "packages/web/src/page.js"]);
		expect(out.suggestions).toEqual([
			{
				command: "npm test --workspace packages/api",
				reason: expect.stringContaining("only its test script runs (`node --test`)"),
			},
			{ command: "npm test", reason: expect.stringContaining("test script is npm's placeholder") },
		]);
		const one = await suggest("npm-workspaces", ["packages/api/src/server.js"]);
		expect(commands(one.suggestions)).toEqual(["npm test --workspace packages/api"]);
	});

	test("go: the changed packages of the module; go.mod means every package", async () => {
		const out = await suggest("go", [
			"internal/store/store.go",
			"version.go",
			"internal/store/store_test.go",
		]);
		expect(commands(out.suggestions)).toEqual(["go test . ./internal/store"]);
		expect(out.suggestions[0]?.reason).toContain("./internal/store");
		expect(commands((await suggest("go", ["go.mod"])).suggestions)).toEqual(["go test ./..."]);
	});

	test("cargo: a workspace member is tested by its package name", async () => {
		const out = await suggest("cargo", ["crates/core/src/lib.rs"]);
		expect(commands(out.suggestions)).toEqual(["cargo test -p tool-core"]);
		expect(out.suggestions[0]?.reason).toContain("tool-core");
		const root = await suggest("cargo", ["Cargo.toml"]);
		expect(commands(root.suggestions)).toEqual(["cargo test --workspace"]);
	});

	test("pytest: a module narrows to the test file named after it; one without a test file runs all", async () => {
		const parser = await suggest("python", ["src/pkg/parser.py"]);
		expect(commands(parser.suggestions)).toEqual(["pytest tests/test_parser.py"]);
		expect(parser.suggestions[0]?.reason).toContain("[tool.pytest] in pyproject.toml");
		const both = await suggest("python", ["src/pkg/parser.py", "src/pkg/helpers.py"]);
		expect(commands(both.suggestions)).toEqual(["pytest"]);
		const testOnly = await suggest("python", ["tests/test_parser.py"]);
		expect(commands(testOnly.suggestions)).toEqual(["pytest tests/test_parser.py"]);
	});

	test("make: files no language covers go to the Makefile's test target; docs suggest nothing", async () => {
		const out = await suggest("make", ["src/main.c", "NOTES.md"]);
		expect(out.suggestions).toEqual([
			{
				command: "make test",
				reason: expect.stringContaining("src/main.c changed and no language's tests cover it"),
			},
		]);
		expect(await suggest("make", ["NOTES.md"])).toEqual({ suggestions: [], skipped: [] });
	});

	test("only the ecosystems touched: a Go change in a project that also has a package.json", async () => {
		const guard = fixture("go");
		writeFileSync(join(guard.root, "package.json"), JSON.stringify({ scripts: { test: "vitest run" } }));
		const out = await suggest(guard, ["cmd/tool/main.go"]);
		expect(commands(out.suggestions)).toEqual(["go test ./cmd/tool"]);
		const js = await suggest(guard, ["web/app.js"]);
		expect(commands(js.suggestions)).toEqual(["npm test"]);
	});
});

describe("the whole project", () => {
	test("no change given: every ecosystem at the root, unnarrowed", async () => {
		const guard = fixture("go");
		cpSync(join(REPO, "fixtures", "tests", "python"), guard.root, { recursive: true });
		const out = await suggest(guard, null);
		expect(commands(out.suggestions)).toEqual(["go test ./...", "pytest"]);
		for (const s of out.suggestions) expect(s.reason).toStartWith("no change given, so the whole project");
	});

	test("a CI workflow or a high-risk change is not narrowed", async () => {
		const ci = await suggest("go", [".github/workflows/ci.yml", "cmd/tool/main.go"]);
		expect(commands(ci.suggestions)).toEqual(["go test ./..."]);
		expect(ci.suggestions[0]?.reason).toContain(".github/workflows/ci.yml changed");
		const risky = await suggest("python", ["src/pkg/parser.py"], { whole: "the change is high risk" });
		expect(commands(risky.suggestions)).toEqual(["pytest"]);
		expect(risky.suggestions[0]?.reason).toStartWith("the change is high risk");
	});

	test("a Makefile test target only when no language has tests", async () => {
		expect(commands((await suggest("make", null)).suggestions)).toEqual(["make test"]);
		const guard = fixture("go");
		writeFileSync(join(guard.root, "Makefile"), "test:\n\tgo test ./...\n");
		expect(commands((await suggest(guard, null)).suggestions)).toEqual(["go test ./..."]);
	});
});

describe("every suggestion can run", () => {
	test("a missing program is skipped with the reason; pytest falls back to a Python that has it", async () => {
		const none = pathWith();
		const go = await suggest("go", ["version.go"], { path: none });
		expect(go.suggestions).toEqual([]);
		expect(go.skipped).toEqual([
			{ command: "go test .", reason: expect.stringContaining("`go` is not on PATH") },
		]);

		// A python3 stand-in that has every module: `python3 -m pytest` is the fallback.
		const bin = pathWith();
		writeFileSync(join(bin, "python3"), "#!/bin/sh\nexit 0\n");
		chmodSync(join(bin, "python3"), 0o755);
		const py = await suggest("python", ["src/pkg/parser.py"], { path: bin });
		expect(commands(py.suggestions)).toEqual(["python3 -m pytest tests/test_parser.py"]);

		// One without the module: nothing runs, and the skip names every fallback tried.
		writeFileSync(join(bin, "python3"), "#!/bin/sh\nexit 1\n");
		const missing = await suggest("python", ["src/pkg/parser.py"], { path: bin });
		expect(missing.suggestions).toEqual([]);
		expect(missing.skipped[0]?.reason).toContain("`pytest` is not on PATH");
		expect(missing.skipped[0]?.reason).toContain("python3 -m pytest tests/test_parser.py");
	});

	test("expected_tests come first; one outside the allowlist is skipped, a duplicate is listed once", async () => {
		const out = await suggest("bun", ["src/a.ts"], {
			expected: ["bun  run test", "bun test src", "node -e 'process.exit(0)'", "npm test 'unterminated"],
		});
		expect(out.suggestions).toEqual([
			{ command: "bun run test", reason: "listed in the proposal's expected_tests" },
			{ command: "bun test src", reason: "listed in the proposal's expected_tests" },
		]);
		expect(out.skipped).toEqual([
			{
				command: "node -e 'process.exit(0)'",
				reason: expect.stringContaining("not in tests.allowed_commands"),
			},
			{ command: "npm test 'unterminated", reason: expect.stringContaining("cannot be split") },
		]);
	});

	test("every suggestion passes test.run's argument rules; an expected test that leaves the project is skipped", async () => {
		let checked = 0;
		for (const [name, touched] of [
			["bun", ["src/a.ts"]],
			["npm-workspaces", ["packages/api/src/server.js", "packages/web/src/page.js"]],
			["go", ["version.go", "go.mod"]],
			["cargo", ["crates/cli/src/main.rs", "Cargo.toml"]],
			["python", ["src/pkg/parser.py"]],
			["make", ["src/main.c"]],
		] as const) {
			const guard = fixture(name);
			for (const change of [[...touched], null]) {
				for (const s of (await suggest(guard, change)).suggestions) {
					const argv = splitCommand(s.command);
					const prefix = splitCommand(allowedBy(argv, ALLOWED) ?? "").length;
					expect({ command: s.command, refused: argumentRefusal(argv, prefix, guard.root) }).toEqual({
						command: s.command,
						refused: undefined,
					});
					checked++;
				}
			}
		}
		expect(checked).toBeGreaterThan(10);
		const out = await suggest("bun", ["src/a.ts"], { expected: ["bun test /etc/evil.test.ts"] });
		expect(out.skipped).toEqual([
			{
				command: "bun test /etc/evil.test.ts",
				reason: expect.stringContaining("leads outside the run's directory"),
			},
		]);
	});

	test("on this machine's PATH, each suggestion is allowlisted and its program found", async () => {
		const seen: string[] = [];
		for (const [name, touched] of [
			["bun", ["src/a.ts"]],
			["npm-workspaces", ["packages/api/src/server.js"]],
			["go", ["version.go"]],
			["cargo", ["crates/cli/src/main.rs"]],
			["python", ["src/pkg/parser.py"]],
			["make", ["src/main.c"]],
		] as const) {
			const guard = fixture(name);
			const out = await suggest(guard, [...touched], { path: process.env.PATH ?? "" });
			expect(out.suggestions.length + out.skipped.length).toBeGreaterThan(0);
			for (const s of out.suggestions) {
				const argv = splitCommand(s.command);
				const prefix = allowedBy(argv, ALLOWED);
				expect(prefix).toBeDefined();
				expect(argumentRefusal(argv, splitCommand(prefix ?? "").length, guard.root)).toBeUndefined();
				expect(Bun.which(argv[0] as string)).not.toBeNull();
				seen.push(s.command);
			}
			for (const s of out.skipped) expect(s.reason).toMatch(/not on PATH|has no module|placeholder/);
		}
		// npm is on every machine this runs on (CI has Node and npm).
		expect(seen).toContain("npm test --workspace packages/api");
	});
});

describe("the test.suggest tool", () => {
	async function project(): Promise<Flow> {
		const p = await makeProject();
		cpSync(join(REPO, "fixtures", "tests", "npm-workspaces"), p.root, { recursive: true });
		commitAll(p.root);
		return taskFlow(p);
	}

	async function propose(f: Flow, risk = "normal") {
		const path = "packages/api/src/server.js";
		await f.claim("implementer-1", path);
		const proposal = await f.propose({
			title: "Faster",
			summary_md: "Why.",
			risk,
			patch: diffOf(f.p.root, path, "export const api = 2;\n"),
			expected_tests: ["npm test --workspace packages/api"],
		});
		return proposal.id;
	}

	test("a proposal: its expected_tests and the touched package, bound to its task", async () => {
		const f = await project();
		const { p, task } = f;
		const proposal = await propose(f);
		const out = await p.call("test.suggest", { proposal_id: proposal });
		expectDeclaredOutput("test.suggest", out);
		expect(out).toMatchObject({
			task_id: task,
			proposal_id: proposal,
			commands: ["npm test --workspace packages/api"],
			suggestions: [
				{ command: "npm test --workspace packages/api", reason: "listed in the proposal's expected_tests" },
			],
		});
		// A task alone stands for its latest proposal.
		expect(await p.call("test.suggest", { task_id: task })).toMatchObject({ proposal_id: proposal });
	});

	test("a high-risk proposal is not narrowed; nothing at all means the whole project", async () => {
		const f = await project();
		const { p } = f;
		const proposal = await propose(f, "high");
		const out = (await p.call("test.suggest", { proposal_id: proposal })) as { commands: string[] };
		expect(out.commands).toEqual(["npm test --workspace packages/api", "npm test"]);
		const whole = await p.call("test.suggest", {});
		expect(whole).toMatchObject({ task_id: null, proposal_id: null, commands: ["npm test"] });
	});

	test("unknown ids and a proposal of another task are refused", async () => {
		const f = await project();
		const { p, task } = f;
		const proposal = await propose(f);
		expect((await p.fail("test.suggest", { proposal_id: "P-nope" })).code).toBe("not_found");
		expect((await p.fail("test.suggest", { task_id: "T-nope" })).code).toBe("not_found");
		const { task: other } = (await p.call("task.create", { title: "Other", body_md: "x" })) as {
			task: { id: string };
		};
		const err = await p.fail("test.suggest", { proposal_id: proposal, task_id: other.id });
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toContain(`belongs to task ${task}`);
	});
});
