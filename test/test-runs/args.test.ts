// test.run's argument rules (src/test-runs/arg-rules.ts): the six escapes of issue 15 refused before
// anything runs or is recorded, and the shapes programs accept (abbreviations, `=`, attached short
// options, `--`, `..`, symlinks out) judged as the program would read them.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { defaultConfig } from "../../src/config/defaults.ts";
import { CONFIG_TEMPLATE } from "../../src/init/config-template.ts";
import { checkArguments, rulesFor } from "../../src/test-runs/arg-rules.ts";
import { insideOf } from "../../src/test-runs/inside.ts";
import { lacks, tempDir, write } from "../_helpers/helpers.ts";
import { ESCAPE_ALLOW, escapes } from "../_helpers/test-args-escapes.ts";
import { expectNothingRecorded, project, run } from "../_helpers/test-run-helpers.ts";

const allowYaml = ESCAPE_ALLOW;

describe("test.run: the six escapes of issue 15", () => {
	for (const name of ["eval", "preload", "testfile", "makefile", "prefix", "pytest"]) {
		test(`${name}: permission_denied naming the argument, nothing outside written, nothing recorded`, async () => {
			const p = await project({ allow: allowYaml });
			const out = tempDir("rt-outside-");
			const command = escapes(p.root, out)[name] ?? "";
			const err = await p.fail("test.run", { command });
			expect(err.code).toBe("permission_denied");
			expect(err.details?.argument).toBeString();
			expect(command.replaceAll("\\ ", " ")).toContain(String(err.details?.argument));
			expect(err.message).toContain(String(err.details?.argument));
			expect(existsSync(join(out, name))).toBe(false);
			await expectNothingRecorded(p);
		});
	}

	test.skipIf(lacks("make") !== null)("the same programs still run what stays inside", async () => {
		const p = await project({ allow: ["make test", "bun test"] });
		mkdirSync(join(p.root, "sub"));
		write(p.root, "sub/Makefile", "test:\n\ttouch made && pwd && ls\n");
		write(p.root, "ok.test.ts", 'import { test } from "bun:test";\ntest("ok", () => {});\n');
		const made = await run(p, { command: "make test -C sub" });
		expect(made.test_run.status).toBe("passed");
		// It ran in sub/ (of the project, or of the sandbox's scratch copy) and wrote there.
		expect(made.log).toMatch(/\/sub\nMakefile\nmade\n/);
		expect((await run(p, { command: "make test --directory=./sub -s" })).test_run.status).toBe("passed");
		expect((await run(p, { command: "bun test ./ok.test.ts --timeout 5000" })).test_run.status).toBe(
			"passed",
		);
	});
});

/** The refused argument of `command` (split on spaces) run in `root`, or undefined. */
function refusedIn(root: string, command: string) {
	const argv = command.split(" ");
	const rules = rulesFor(argv);
	if (!rules) throw new Error(`no rules for ${command}`);
	const prefix = argv[0] === "python3" ? 3 : argv[0] === "pytest" ? 1 : 2;
	return checkArguments(rules, argv.slice(prefix), insideOf(root))?.argument;
}

describe("test.run argument shapes", () => {
	const root = tempDir("rt-args-");
	const out = tempDir("rt-args-out-");
	write(root, "Makefile", "test:\n");
	write(root, "sub/Makefile", "test:\n");
	write(root, "cfg.toml", "");
	write(root, "plug.py", "");
	write(root, "node_modules/tsx/package.json", "{}");
	write(out, "Makefile", "test:\n");
	write(out, "evil.py", "");
	symlinkSync(out, join(root, "out-link"));
	symlinkSync(join(out, "Makefile"), join(root, "Makefile.link"));

	const refused: [string, string][] = [
		// eval-like, however spelled
		["make test --eval=x", "--eval=x"],
		["make test --ev=test:", "--ev=test:"],
		["make test --e x", "--e"],
		["make test -E x", "-E"],
		["make test -sE x", "-sE"],
		["make test CC=touch", "CC=touch"],
		["make test -- CC=touch", "CC=touch"],
		["bun test -e 1", "-e"],
		["bun test --eval=1", "--eval=1"],
		["bun test --define x=1", "--define"],
		["go test -exec /bin/sh ./...", "-exec"],
		["go test --exec=x ./...", "--exec=x"],
		["go test -toolexec x ./...", "-toolexec"],
		["go test -ldflags=-extld=x ./...", "-ldflags=-extld=x"],
		["cargo test -Zunstable", "-Zunstable"],
		["npm test --script-shell=/x", "--script-shell=/x"],
		["npm test -- --eval x", "--eval"],
		["npm test -- -e x", "-e"],
		["pnpm test --node-options=--require=/x", "--node-options=--require=/x"],
		["vitest run -e x", "-e"],
		// files, directories, plugins and prefixes outside
		[`make test -f ${out}/Makefile`, "-f"],
		[`make test -f${out}/Makefile`, `-f${out}/Makefile`],
		[`make test -kf${out}/Makefile`, `-kf${out}/Makefile`],
		[`make test --file=${out}/Makefile`, `--file=${out}/Makefile`],
		[`make test --fil ${out}/Makefile`, "--fil"],
		[`make test --makefile=${out}/Makefile`, `--makefile=${out}/Makefile`],
		["make test -C ..", "-C"],
		["make test -C sub/../..", "-C"],
		["make test -f Makefile.link", "-f"],
		["make test -C out-link", "-C"],
		["make test -f out-link/../Makefile", "-f"],
		["make test -f missing.mk", "-f"],
		[`make test --include-dir=${out}`, `--include-dir=${out}`],
		[`bun test --preload=${out}/evil.ts`, `--preload=${out}/evil.ts`],
		[`bun test -r ${out}/evil.ts`, "-r"],
		["bun test -r evil-package", "-r"],
		["bun test --config=../bunfig.toml", "--config=../bunfig.toml"],
		["bun test ../x.test.ts", "../x.test.ts"],
		["bun test out-link/x.test.ts", "out-link/x.test.ts"],
		[`bun test -- ${out}/x.test.ts`, `${out}/x.test.ts`],
		["npm test --prefix ..", "--prefix"],
		["npm test --pre ..", "--pre"],
		["npm test -C ..", "-C"],
		["npm test --userconfig x", "--userconfig"],
		[`npm test -- --require ${out}/x.js`, "--require"],
		[`npm test -- ${out}/x.test.js`, `${out}/x.test.js`],
		[`npm test ${out}/x.test.js`, `${out}/x.test.js`],
		[`pnpm test --dir ${out}`, "--dir"],
		[`yarn test --cwd=${out}`, `--cwd=${out}`],
		[`vitest run --config ${out}/v.ts`, "--config"],
		[`vitest run --setupFiles=${out}/s.ts`, `--setupFiles=${out}/s.ts`],
		[`vitest run --reporter=${out}/r.js`, `--reporter=${out}/r.js`],
		[`go test -C ${out} ./...`, "-C"],
		["go test ../...", "../..."],
		["go test example.com/evil", "example.com/evil"],
		[`go test -overlay=${out}/o.json ./...`, `-overlay=${out}/o.json`],
		[`go test ./... -args -test.coverprofile=${out}/c`, `-test.coverprofile=${out}/c`],
		[`cargo test --manifest-path ${out}/Cargo.toml`, "--manifest-path"],
		["cargo test --config target.x.runner=evil", "--config"],
		[`cargo test --target-dir=${out}`, `--target-dir=${out}`],
		[`pytest ${out}/evil.py`, `${out}/evil.py`],
		[`pytest out-link/evil.py::test_x`, "out-link/evil.py::test_x"],
		["pytest -p evil", "-p"],
		["pytest -pevil", "-pevil"],
		["pytest -p=evil", "-p=evil"],
		[`pytest --rootdir=${out}`, `--rootdir=${out}`],
		[`pytest --root ${out}`, "--root"],
		[`pytest -c ${out}/pytest.ini`, "-c"],
		["pytest -o addopts=-pevil", "-o"],
		["pytest --override-ini=pythonpath=/", "--override-ini=pythonpath=/"],
		[`pytest --basetemp=${out}`, `--basetemp=${out}`],
		["pytest --pyargs evil", "--pyargs"],
		["pytest @args.txt", "@args.txt"],
		["pytest -x -- @args.txt", "@args.txt"],
		[`python3 -m pytest ${out}/evil.py`, `${out}/evil.py`],
		[`pytest -- ${out}/evil.py`, `${out}/evil.py`],
		// Roundtable's and git's own files are not tests, even inside
		["bun test --preload .roundtable/patches/x", "--preload"],
		["make test -f .git/config", "-f"],
		["pytest ./sub/../.git/hooks", "./sub/../.git/hooks"],
		// unknown options where the rules are an allowlist
		["make test --no-such-option", "--no-such-option"],
		["go test -mod=mod ./...", "-mod=mod"],
		["cargo test --frobnicate", "--frobnicate"],
		["bun test --inspect", "--inspect"],
	];
	for (const [command, argument] of refused) {
		test(`refused: ${command}`, () => expect(refusedIn(root, command)).toBe(argument));
	}

	const allowed = [
		"make test",
		"make test -C sub",
		"make test -Csub -k -j4 --jobs=2 -s",
		"make test --directory=sub --keep-going",
		"make test -f Makefile",
		"make test -f ./sub/../Makefile",
		"bun test",
		"bun test ./ok.test.ts --timeout 5000 -t name --bail",
		"bun test -r tsx",
		"bun test --preload=./plug.py",
		"npm test",
		"npm test --workspace pkg/a --if-present -s",
		"npm test --prefix sub",
		"npm test -- --watch=false --reporter dot",
		"npm run test -- -t name",
		"pnpm test --filter x",
		"vitest run src/a.test.ts --reporter=verbose",
		"go test ./...",
		"go test -C sub ./...",
		"go test -v -run TestX -count=1 ./pkg ./...",
		"go test ./... -args -test.v",
		"cargo test",
		"cargo test --workspace",
		"cargo test -p crate-a",
		"cargo test --manifest-path cfg.toml",
		"cargo test --config cfg.toml",
		"cargo test -- --nocapture --test-threads=1",
		"pytest",
		"pytest tests/test_a.py::test_b -k expr -x -q",
		"pytest -p no:cacheprovider -p plug",
		"pytest -o log_level=DEBUG --tb=short -rA",
		"python3 -m pytest -v tests",
	];
	for (const command of allowed) {
		test(`allowed: ${command}`, () => expect(refusedIn(root, command)).toBeUndefined());
	}
});

describe("tests.allowed_commands defaults", () => {
	test("no default downloads a tool that is missing: vitest is pinned to the project's own binary", () => {
		const allowed = defaultConfig().tests.allowed_commands;
		expect(allowed.filter((c) => /^(npx|bunx|pnpm dlx|yarn dlx)\b/.test(c))).toEqual([]);
		expect(allowed).toContain("node_modules/.bin/vitest run");
		expect(CONFIG_TEMPLATE).not.toContain("npx vitest");
	});
});
