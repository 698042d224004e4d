// repo.symbols and `roundtable symbols`: real grammars on the sample files in fixtures/symbols/,
// copied into a real project under src/. Expected lines are those of the fixture files.
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { readerFor } from "../../src/repo/symbols/engine.ts";
import {
	expectDeclaredOutput,
	makeProject,
	type Project,
	REPO,
	runCli,
	runProcess,
	tempDir,
} from "../_helpers/helpers.ts";

interface Sym {
	path: string;
	language: string;
	kind: string;
	name: string;
	start_line: number;
	end_line: number;
	resource_id: string;
}
interface Result {
	symbols: Sym[];
	errors: { path: string; line: number; message: string }[];
	truncated: boolean;
}

let p: Project;
beforeAll(async () => {
	p = await makeProject();
	cpSync(join(REPO, "fixtures", "symbols"), join(p.root, "src"), { recursive: true });
});

const write = (rel: string, content: string | Uint8Array) => {
	mkdirSync(join(p.root, rel, ".."), { recursive: true });
	writeFileSync(join(p.root, rel), content);
};

/** Calls repo.symbols through the dispatcher and checks the result against the declared schema. */
async function symbols(args: Record<string, unknown>): Promise<Result> {
	const r = (await p.call("repo.symbols", args)) as unknown as Result;
	expectDeclaredOutput("repo.symbols", r);
	return r;
}

/** `kind name start-end`, the shape the expectations below are written in. */
const brief = (r: Result) => r.symbols.map((s) => `${s.kind} ${s.name} ${s.start_line}-${s.end_line}`);

describe("kinds and names per language", () => {
	test("TypeScript: every declaration kind, methods as Container.name, module-level consts", async () => {
		const r = await symbols({ path: "src/shapes.ts" });
		expect(brief(r)).toEqual([
			"interface Shape 2-6",
			"method Shape.area 3-3", // interface method signatures; the `name` property is not a method
			"method Shape.scale 5-5",
			"type Point 8-8",
			"enum Color 10-13",
			"class Base 15-21", // abstract
			"method Base.area 16-16", // abstract method
			"method Base.describe 18-20",
			"class Circle 23-35",
			"method Circle.constructor 24-26",
			"method Circle.area 27-29",
			"method Circle.#secret 30-30",
			"method Circle.unit 31-31", // overload signature
			"method Circle.unit 32-34",
			"function outer 37-43",
			"function inner 38-41", // nested; its `const local` is a local, not a symbol
			"function ids 45-47", // generator
			"const LIMIT 49-49",
			"function double 50-50", // const arrow
			"function wrapped 51-53", // (function …) as T
			"function checked 54-54", // (arrow) satisfies T
			"const injected 55-55", // declare const
			"const ORIGIN 61-61", // in a namespace
		]);
		expect(r.errors).toEqual([]);
		expect(r.truncated).toBe(false);
		expect(new Set(r.symbols.map((s) => s.language))).toEqual(new Set(["typescript"]));
	});

	test("TSX: the TSX grammar reads JSX", async () => {
		const r = await symbols({ path: "src/widget.tsx" });
		expect(brief(r)).toEqual([
			"interface Props 3-5",
			"function Button 7-9",
			"function Card 11-15",
			"class Panel 17-21",
			"method Panel.render 18-20",
		]);
		expect(r.symbols.every((s) => s.language === "tsx")).toBe(true);
		expect(r.errors).toEqual([]);
	});

	test("JavaScript: like TypeScript without the type-only kinds", async () => {
		const r = await symbols({ path: "src/store.js" });
		expect(brief(r)).toEqual([
			"class Store 2-13",
			"method Store.add 4-6",
			"method Store.size 7-9", // getter
			"method Store.[Symbol.iterator] 10-12",
			"function createStore 15-17",
			"function pages 19-21", // async generator
			"const VERSION 23-23",
			"function load 24-24",
			"function handler 25-25",
			"const helpers 27-27", // object-literal methods are not class members
		]);
		expect(r.symbols.every((s) => s.language === "javascript")).toBe(true);
	});

	test("extensions choose the grammar, case-insensitively", async () => {
		write("ext/a.mjs", "export function fromMjs() {}\n");
		write("ext/b.CJS", "function fromCjs() {}\nmodule.exports = { fromCjs };\n");
		write("ext/c.jsx", "export const View = () => <div />;\n");
		write("ext/d.TS", "export type FromTs = string;\n");
		write("ext/e.Tsx", "export const El = <span />;\n");
		write("ext/f.PY", "def from_py():\n    pass\n");
		write("ext/g.Go", "package g\n\nfunc FromGo() {}\n");
		write("ext/h.rs", "fn skipped() {}\n");
		const r = await symbols({ path: "ext" });
		expect(r.symbols.map((s) => `${s.path} ${s.language} ${s.kind} ${s.name}`)).toEqual([
			"ext/a.mjs javascript function fromMjs",
			"ext/b.CJS javascript function fromCjs",
			"ext/c.jsx javascript function View",
			"ext/d.TS typescript type FromTs",
			"ext/e.Tsx tsx const El",
			"ext/f.PY python function from_py",
			"ext/g.Go go function FromGo",
		]);
		expect(r.errors).toEqual([]);
	});

	test("Python: Class. prefix inside a class, async functions, ranges without decorators", async () => {
		const r = await symbols({ path: "src/service.py" });
		expect(brief(r)).toEqual([
			"function plain 5-6",
			"function fetch 10-11", // async, decorator on line 9 excluded
			"class Service 15-30", // decorator on line 14 excluded
			"function Service.label 19-23",
			"function Service.helper 20-21", // nested in a method: still lexically inside Service
			"function Service.run 25-26",
			"class Config 28-30",
			"function Config.load 29-30", // the nearest enclosing class names it
			"function after 33-34",
		]);
		expect(r.symbols.every((s) => s.language === "python")).toBe(true);
	});

	test("Go: functions, Recv.Name methods, struct/interface/type, exported consts", async () => {
		const r = await symbols({ path: "src/server.go" });
		expect(brief(r)).toEqual([
			"const DefaultPort 7-7", // maxConns is unexported; `var Global` is no symbol
			"const Name 9-9",
			"const Version 9-9",
			"const Timeout 12-12",
			"struct Server 16-18",
			"interface Handler 20-22",
			"type ID 24-24",
			"type Alias 26-26",
			"struct List 28-28", // generic
			"function New 30-32",
			"method Server.Start 34-37", // pointer receiver
			"method List.Push 39-41", // pointer and type arguments dropped
			"method List.Len 43-43", // unnamed receiver
			"function Map 45-47",
		]);
		expect(r.symbols.every((s) => s.language === "go")).toBe(true);
	});
});

describe("records", () => {
	test("paths are repo-relative with forward slashes, resource ids name the symbol", async () => {
		const r = await symbols({ path: join(p.root, "src", "server.go"), name: "start" });
		expect(r.symbols).toEqual([
			{
				path: "src/server.go",
				language: "go",
				kind: "method",
				name: "Server.Start",
				start_line: 34,
				end_line: 37,
				resource_id: "symbol:src/server.go#Server.Start",
			},
		]);
	});

	test("a directory is sorted by path, start line, name", async () => {
		const r = await symbols({ path: "src", limit: 20000 });
		const keys = r.symbols.map((s) => [s.path, s.start_line, s.name] as const);
		const sorted = [...keys].sort((a, b) =>
			a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0),
		);
		expect(keys).toEqual(sorted);
		expect(new Set(r.symbols.map((s) => s.path))).toEqual(
			new Set([
				"src/broken.ts",
				"src/server.go",
				"src/service.py",
				"src/shapes.ts",
				"src/store.js",
				"src/widget.tsx",
			]),
		);
	});
});

describe("syntax errors", () => {
	test("a broken file gives the symbols that parsed and one error per broken region", async () => {
		const r = await symbols({ path: "src/broken.ts" });
		expect(brief(r)).toEqual([
			"function before 1-3",
			"function open 5-14", // its `{` is never closed, so it runs to the end of the file
			"class After 12-14",
			"method After.run 13-13",
		]);
		expect(r.errors).toEqual([
			{ path: "src/broken.ts", line: 10, message: "missing identifier" },
			{ path: "src/broken.ts", line: 14, message: "missing `}`" },
		]);
	});

	test("Python and Go: errors are reported, a node ending at column 0 ends on the line before", async () => {
		write(
			"broken/bad.py",
			"def ok():\n    pass\n\ndef bad(:\n    pass\n\nclass K:\n    def m(self):\n        return )\n",
		);
		// Go's missing `}` lands after the last newline: function A's node ends at column 0 of row 5.
		write("broken/bad.go", "package p\n\nfunc A() {\n\nfunc B() {}\n");
		const r = await symbols({ path: "broken" });
		expect(r.symbols.map((s) => `${s.path} ${s.kind} ${s.name} ${s.start_line}-${s.end_line}`)).toEqual([
			"broken/bad.go function A 3-5",
			"broken/bad.py function ok 1-2",
			"broken/bad.py function bad 4-5",
			"broken/bad.py class K 7-9",
			"broken/bad.py function K.m 8-9",
		]);
		expect(r.errors).toEqual([
			{ path: "broken/bad.go", line: 5, message: "syntax error" },
			{ path: "broken/bad.go", line: 5, message: "missing `}`" }, // not line 6: the file has 5
			{ path: "broken/bad.py", line: 4, message: "missing `)`" },
			{ path: "broken/bad.py", line: 9, message: "syntax error" },
		]);
	});
});

describe("filters", () => {
	test("language and kind are exact, name is a case-insensitive substring", async () => {
		const go = await symbols({ path: "src", language: "go", kind: "method" });
		expect(go.symbols.map((s) => s.name)).toEqual(["Server.Start", "List.Push", "List.Len"]);
		const named = await symbols({ path: "src", name: "CIRC" });
		expect(named.symbols.map((s) => `${s.kind} ${s.name}`)).toEqual([
			"class Circle",
			"method Circle.constructor",
			"method Circle.area",
			"method Circle.#secret",
			"method Circle.unit",
			"method Circle.unit",
		]);
		const none = await symbols({ path: "src", kind: "Function" });
		expect(none.symbols).toEqual([]);
		// The language filter skips other files unread, so their syntax errors are not reported.
		const py = await symbols({ path: "src", language: "python" });
		expect(new Set(py.symbols.map((s) => s.path))).toEqual(new Set(["src/service.py"]));
		expect(py.errors).toEqual([]);
	});

	test("limit keeps the first symbols in order and says when there were more", async () => {
		const all = await symbols({ path: "src/shapes.ts" });
		const cut = await symbols({ path: "src", limit: 3 });
		expect(cut.truncated).toBe(true);
		const full = await symbols({ path: "src", limit: 20000 });
		expect(cut.symbols).toEqual(full.symbols.slice(0, 3));
		const exact = await symbols({ path: "src/shapes.ts", limit: all.symbols.length });
		expect(exact).toEqual({ ...all, truncated: false });
		const one = await symbols({ path: "src/shapes.ts", limit: all.symbols.length - 1 });
		expect(one.truncated).toBe(true);
		expect(one.symbols).toEqual(all.symbols.slice(0, -1));
	});

	test("limit is validated by the registry schema", async () => {
		expect((await p.fail("repo.symbols", { limit: 0 })).code).toBe("invalid_argument");
		expect((await p.fail("repo.symbols", { language: "rust" })).code).toBe("invalid_argument");
	});
});

describe("walking a directory", () => {
	test(".gitignore is honored; unsupported, binary and huge files are skipped", async () => {
		write("walk/.gitignore", "ignored/\n*.gen.ts\n");
		write("walk/kept.ts", "export function kept() {}\n");
		write("walk/out.gen.ts", "export function generated() {}\n");
		write("walk/ignored/hidden.ts", "export function hidden() {}\n");
		write("walk/sub/.gitignore", "!again.gen.ts\n");
		write("walk/sub/again.gen.ts", "export function reincluded() {}\n");
		write("walk/notes.md", "# function notSource() {}\n");
		write("walk/blob.ts", Buffer.from("export function binary() {}\n\0\0\0"));
		// Just over 16 MiB: a symbol, then a long comment. It must be skipped unparsed.
		write("walk/huge.ts", `export function huge() {}\n//${"x".repeat(16 * 1024 * 1024)}\n`);
		const r = await symbols({ path: "walk" });
		expect(r.symbols.map((s) => `${s.path} ${s.name}`)).toEqual([
			"walk/kept.ts kept",
			"walk/sub/again.gen.ts reincluded",
		]);
		expect(r.errors).toEqual([]);
	});

	test("inside a git work tree the listing comes from git, with the same rules", async () => {
		const g = await makeProject();
		writeFileSync(join(g.root, ".gitignore"), "build/\n");
		mkdirSync(join(g.root, "build"));
		mkdirSync(join(g.root, "lib"));
		writeFileSync(join(g.root, "build", "out.js"), "function built() {}\n");
		writeFileSync(join(g.root, "lib", "util.py"), "def util():\n    pass\n");
		const init = Bun.spawnSync(["git", "init", "-q"], { cwd: g.root });
		expect(init.exitCode).toBe(0);
		const r = (await g.call("repo.symbols", {})) as unknown as Result;
		expectDeclaredOutput("repo.symbols", r);
		expect(r.symbols.map((s) => `${s.path} ${s.name}`)).toEqual(["lib/util.py util"]);
	});

	test("an explicit file is read even when ignored; an unsupported or binary one gives nothing", async () => {
		expect((await symbols({ path: "walk/out.gen.ts" })).symbols.map((s) => s.name)).toEqual(["generated"]);
		expect(await symbols({ path: "walk/notes.md" })).toEqual({ symbols: [], errors: [], truncated: false });
		expect(await symbols({ path: "walk/blob.ts" })).toEqual({ symbols: [], errors: [], truncated: false });
	});

	test("the whole repository by default", async () => {
		const r = await symbols({ limit: 20000 });
		expect(r.symbols.some((s) => s.path === "src/shapes.ts")).toBe(true);
		expect(r.symbols.some((s) => s.path === "walk/kept.ts")).toBe(true);
		expect(r.symbols.some((s) => s.path.startsWith(".roundtable/"))).toBe(false);
	});
});

describe("the path guard", () => {
	test("paths outside the root, in .git/ or .roundtable/, or missing are refused", async () => {
		const outside = tempDir();
		writeFileSync(join(outside, "secret.ts"), "export function secret() {}\n");
		mkdirSync(join(p.root, ".git"), { recursive: true });
		writeFileSync(join(p.root, ".git", "hook.ts"), "export function hook() {}\n");
		symlinkSync(join(outside, "secret.ts"), join(p.root, "link.ts"));
		const refused = async (path: string) => (await p.fail("repo.symbols", { path })).code;
		expect(await refused("../secret.ts")).toBe("permission_denied");
		expect(await refused(join(outside, "secret.ts"))).toBe("permission_denied");
		expect(await refused("link.ts")).toBe("permission_denied");
		expect(await refused(".git/hook.ts")).toBe("permission_denied");
		expect(await refused(".git")).toBe("permission_denied");
		expect(await refused(".roundtable")).toBe("permission_denied");
		expect(await refused("src/nope.ts")).toBe("not_found");
		// In a walk, the symlink that leads out is skipped, not followed.
		const r = await symbols({ limit: 20000 });
		expect(r.symbols.some((s) => s.name === "secret" || s.name === "hook")).toBe(false);
	});
});

describe("process", () => {
	test("a cancelled call stops with `cancelled`", async () => {
		const abort = new AbortController();
		abort.abort();
		const err = await call(
			p.rt,
			"repo.symbols",
			{ path: "src" },
			operatorContext("internal", abort.signal),
		).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(ToolError);
		expect((err as ToolError).code).toBe("cancelled");
	});

	test("each grammar loads once per process", () => {
		expect(readerFor("go")).toBe(readerFor("go"));
		expect(readerFor("tsx")).not.toBe(readerFor("typescript"));
	});

	test("the dispatcher and the CLI do not load tree-sitter until symbols are asked for", () => {
		const script = `
			await import(${JSON.stringify(join(REPO, "src/dispatch.ts"))});
			await import(${JSON.stringify(join(REPO, "src/cli/index.ts"))});
			console.log(Object.keys(require.cache).filter((k) => k.includes("tree-sitter")).length);`;
		const r = Bun.spawnSync([process.execPath, "-e", script], { cwd: REPO });
		expect(r.stderr.toString()).toBe("");
		expect(r.stdout.toString().trim()).toBe("0");
	});
});

describe("roundtable symbols", () => {
	test("prints one line per symbol, errors to stderr", async () => {
		const r = await runCli(["symbols", "--path", "src/broken.ts", "--root", p.root]);
		expect(r.code).toBe(0);
		expect(r.stdout).toBe(
			[
				"function before src/broken.ts 1 3",
				"function open src/broken.ts 5 14",
				"class After src/broken.ts 12 14",
				"method After.run src/broken.ts 13 13",
				"",
			].join("\n"),
		);
		expect(r.stderr).toBe("src/broken.ts:10: missing identifier\nsrc/broken.ts:14: missing `}`\n");
	});

	test("--json prints the tool's result", async () => {
		const r = await runCli(["symbols", "--path", "src/widget.tsx", "--json", "--root", p.root]);
		expect(r.code).toBe(0);
		const out = JSON.parse(r.stdout) as Result;
		expectDeclaredOutput("repo.symbols", out);
		expect(out).toEqual(await symbols({ path: "src/widget.tsx", limit: 20000 }));
	});

	test("without --path it exits 2; a refused path exits 1", async () => {
		const missing = await runCli(["symbols", "--root", p.root]);
		expect(missing.code).toBe(2);
		expect(missing.stdout).toBe("");
		expect(missing.stderr).toContain("symbols requires --path");
		const outside = await runCli(["symbols", "--path", "../x.ts", "--root", p.root]);
		expect(outside.code).toBe(1);
		expect(outside.stderr).toContain("outside the repository");
	});

	test("the compiled binary embeds the runtime and the grammars", async () => {
		const out = tempDir("rt-build-");
		const binary = join(out, "roundtable");
		const { stderr: buildErr, code: built } = await runProcess(
			[process.execPath, "build", "--compile", join(REPO, "src/main.ts"), "--outfile", binary],
			{ cwd: REPO },
		);
		expect(buildErr.includes("error") ? buildErr : "").toBe("");
		expect(built).toBe(0);
		// Run from an unrelated folder, so nothing can be found in node_modules on disk.
		const { stdout, stderr, code } = await runProcess(
			[binary, "symbols", "--path", "src/server.go", "--root", p.root],
			{ cwd: tempDir("rt-elsewhere-") },
		);
		expect(stderr).toBe("");
		expect(code).toBe(0);
		expect(stdout.split("\n")).toContain("method Server.Start src/server.go 34 37");
		for (const file of ["shapes.ts", "widget.tsx", "store.js", "service.py"]) {
			const r = Bun.spawnSync([binary, "symbols", "--path", `src/${file}`, "--root", p.root], {
				cwd: tempDir("rt-elsewhere-"),
			});
			expect(r.exitCode).toBe(0);
			expect(r.stdout.toString().split("\n").length).toBeGreaterThan(3);
		}
	}, 180_000);
});
