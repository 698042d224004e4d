// Which test commands fit a change. The project says how it is tested (package.json scripts and
// its lockfile, go.mod, Cargo.toml, pytest configuration, a Makefile `test` target); the change
// says which of those matter: only the ecosystems of the files it touches, narrowed to the package,
// crate or test files when a command can say so. Every candidate is then checked the way test.run
// would run it — allowed by tests.allowed_commands, its program found — and what fails lands under
// `skipped` with the reason, never silently.
import { accessSync, constants, statSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { discover, type Found, toml } from "../repo/deps/discover.ts";
import {
	DepReader,
	dirOf,
	isRecord,
	joinRel,
	jsonObject,
	parentRel,
	relativeRel,
} from "../repo/deps/reader.ts";
import type { Ecosystem } from "../repo/deps/types.ts";
import { listFiles } from "../repo/files.ts";
import type { RepoGuard, RepoRel } from "../repo/guard.ts";
import { allowedBy, canonical, splitCommand } from "./argv.ts";
import { argumentRefusal } from "./inside.ts";

export interface Suggestion {
	command: string;
	reason: string;
}

export interface SuggestInput {
	/** Repository-relative paths the change touches; null for the whole project. */
	touched: RepoRel[] | null;
	/** Set when the change is not to be narrowed (its risk, say): the reason, in words. */
	whole?: string;
	/** The proposal's expected_tests, suggested first. */
	expected: string[];
}

/** One thing worth running, with fallbacks tried in order (`pytest`, then `python3 -m pytest`). */
interface Candidate {
	commands: string[];
	reason: string;
}

const NPM_PLACEHOLDER = /no test specified/;
const MAX_NARROWED = 20;
const DOCS =
	/\.(md|mdx|markdown|txt|rst|adoc|png|jpe?g|gif|svg|webp|ico)$|(^|\/)(LICENSE|COPYING|AUTHORS|CODEOWNERS)[^/]*$/i;
const CI = /(^|\/)(Dockerfile[^/]*|\.gitlab-ci\.ya?ml|Jenkinsfile)$|^\.(github\/workflows|circleci)\//;
const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];
/** pytest itself, else through whichever Python is there. */
const PYTEST = ["pytest", "python3 -m pytest", "python -m pytest"];

function ecosystemOf(rel: RepoRel): Ecosystem | undefined {
	const name = basename(rel);
	if (/\.(c|m)?[jt]sx?$|\.(vue|svelte)$/.test(name)) return "npm";
	if (
		["package.json", "package-lock.json", "bun.lock", "bun.lockb", "pnpm-lock.yaml", "yarn.lock"].includes(
			name,
		)
	)
		return "npm";
	if (/^tsconfig.*\.json$/.test(name)) return "npm";
	if (name.endsWith(".go") || ["go.mod", "go.sum", "go.work"].includes(name)) return "go";
	if (name.endsWith(".rs") || name === "Cargo.toml" || name === "Cargo.lock") return "cargo";
	if (/\.pyi?$/.test(name) || /^requirements.*\.txt$/.test(name)) return "python";
	if (["pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "uv.lock", "poetry.lock"].includes(name))
		return "python";
	return undefined;
}

const isManifest = (rel: RepoRel) =>
	/^(package(-lock)?\.json|bun\.lockb?|pnpm-lock\.yaml|yarn\.lock|go\.(mod|sum|work)|Cargo\.(toml|lock)|pyproject\.toml|setup\.cfg|pytest\.ini|tox\.ini|uv\.lock|poetry\.lock)$/.test(
		basename(rel),
	);

/** Folders for a command line: `./pkg/a`, and `.` for the root. */
const dotted = (rel: RepoRel) => (rel === "" ? "." : `./${rel}`);
const quoted = (words: string[]) => canonical(words);
const list = (items: string[]) =>
	items.length <= 3 ? items.join(", ") : `${items.slice(0, 3).join(", ")} and ${items.length - 3} more`;

class Planner {
	readonly r: DepReader;
	readonly out: Candidate[] = [];
	/** Touched files no ecosystem command covers; a Makefile `test` target may. */
	readonly uncovered: RepoRel[] = [];
	readonly skipped: Suggestion[] = [];
	private testFiles: RepoRel[] | undefined;

	constructor(
		readonly guard: RepoGuard,
		readonly whole: string | undefined,
	) {
		this.r = new DepReader(guard, undefined);
	}

	/** The touched files by the manifest that governs them; a file none governs is uncovered. */
	private byManifest(ecosystem: "npm" | "cargo", files: RepoRel[]) {
		const out = new Map<RepoRel, { found: Found; touched: RepoRel[] }>();
		for (const f of files) {
			const found = discover(this.r, ecosystem, dirOf(f));
			const entry = found && out.get(found.dir);
			if (!found) this.uncovered.push(f);
			else if (entry) entry.touched.push(f);
			else out.set(found.dir, { found, touched: [f] });
		}
		return out;
	}

	// --- npm, pnpm, Yarn, Bun -------------------------------------------------------------------

	private manager(lockDir: RepoRel): "npm" | "pnpm" | "yarn" | "bun" {
		if (this.r.has(lockDir, "bun.lock") || this.r.has(lockDir, "bun.lockb")) return "bun";
		if (this.r.has(lockDir, "pnpm-lock.yaml")) return "pnpm";
		if (this.r.has(lockDir, "yarn.lock")) return "yarn";
		if (this.r.has(lockDir, "package-lock.json") || this.r.has(lockDir, "npm-shrinkwrap.json")) return "npm";
		const declared = this.packageJson(lockDir)?.packageManager;
		const name = typeof declared === "string" ? declared.split("@")[0] : "";
		return name === "pnpm" || name === "yarn" || name === "bun" ? name : "npm";
	}

	private packageJson(dir: RepoRel): Record<string, unknown> | undefined {
		return this.r.has(dir, "package.json")
			? this.r.parse(joinRel(dir, "package.json"), "package.json", jsonObject)
			: undefined;
	}

	/** The package's real test script, or why there is none. */
	private testScript(dir: RepoRel): { script: string } | { missing: string } {
		const scripts = this.packageJson(dir)?.scripts;
		const script = isRecord(scripts) ? scripts.test : undefined;
		const where = joinRel(dir, "package.json");
		if (typeof script !== "string" || script.trim() === "") return { missing: `${where} has no test script` };
		if (NPM_PLACEHOLDER.test(script)) return { missing: `${where}'s test script is npm's placeholder` };
		return { script };
	}

	npm(files: RepoRel[]): void {
		for (const [dir, { found, touched }] of this.byManifest("npm", files)) {
			const pm = this.manager(found.lockDir);
			const run = pm === "bun" ? ["bun", "run", "test"] : [pm, "test"];
			const what = `${list(touched)} ${touched.length === 1 ? "is" : "are"} in ${dir === "" ? "the root package" : dir}`;
			const own = this.testScript(dir);
			const root = dir === "" ? own : this.testScript("");
			if (dir === "" && "script" in own) {
				this.out.push({
					commands: [quoted(run)],
					reason: `${what}; its test script runs \`${own.script}\` (${pm})`,
				});
			} else if (found.workspaceRoot === "" && pm === "npm" && "script" in own) {
				this.out.push({
					commands: [quoted([...run, "--workspace", dir])],
					reason: `${what}, an npm workspace; only its test script runs (\`${own.script}\`)`,
				});
			} else if (found.workspaceRoot === "" && "script" in root) {
				const why = "missing" in own ? own.missing : `${pm} cannot narrow to one package from the root`;
				this.out.push({
					commands: [quoted(run)],
					reason: `${what}, ${pm === "npm" ? "an" : "a"} ${pm} workspace; ${why}, so the root test script runs (\`${root.script}\`)`,
				});
			} else if (found.workspaceRoot === undefined && pm === "npm" && "script" in own) {
				this.out.push({
					commands: [quoted([...run, "--prefix", dir])],
					reason: `${what}, a package of its own; its test script runs \`${own.script}\``,
				});
			} else {
				const why =
					"missing" in own
						? own.missing
						: `${dir} is ${pm === "npm" ? "an" : "a"} ${pm} package below the root, and test.run runs at the root`;
				this.skipped.push({ command: quoted(run), reason: why });
				this.uncovered.push(...touched);
			}
		}
	}

	// --- Go -------------------------------------------------------------------------------------

	go(files: RepoRel[]): void {
		const modules = new Map<RepoRel, Set<RepoRel> | "all">();
		for (const f of files) {
			const found = discover(this.r, "go", dirOf(f));
			if (!found) {
				this.uncovered.push(f);
				continue;
			}
			const pkgs = modules.get(found.dir) ?? new Set<RepoRel>();
			if (pkgs === "all" || isManifest(f)) modules.set(found.dir, "all");
			else modules.set(found.dir, pkgs.add(relativeRel(found.dir, dirOf(f))));
		}
		for (const [dir, pkgs] of modules) {
			// `-C` must come first; it lets a module below the root be tested from the root.
			const base = dir === "" ? ["go", "test"] : ["go", "test", "-C", dir];
			const where = dir === "" ? "the module" : `the module in ${dir}`;
			if (pkgs === "all" || pkgs.size > MAX_NARROWED) {
				const why = pkgs === "all" ? "go.mod or go.sum changed" : `${pkgs.size} packages changed`;
				this.out.push({
					commands: [quoted([...base, "./..."])],
					reason: `${why}: every package of ${where}`,
				});
			} else {
				const targets = [...pkgs].sort().map(dotted);
				this.out.push({
					commands: [quoted([...base, ...targets])],
					reason: `the Go package${targets.length === 1 ? "" : "s"} changed in ${where}: ${list(targets)}`,
				});
			}
		}
	}

	// --- Cargo ----------------------------------------------------------------------------------

	cargo(files: RepoRel[]): void {
		for (const [dir, { found, touched }] of this.byManifest("cargo", files)) {
			const manifest = this.r.parse(joinRel(dir, "Cargo.toml"), "Cargo.toml", toml);
			const pkg = manifest?.package;
			const name = isRecord(pkg) && typeof pkg.name === "string" ? pkg.name : undefined;
			const changed = `${list(touched)} changed`;
			if (name === undefined) {
				this.out.push({
					commands: [quoted(["cargo", "test", "--workspace"])],
					reason: `${changed}: the workspace manifest`,
				});
			} else if (dir === "") {
				this.out.push({ commands: ["cargo test"], reason: `${changed} in the crate ${name}` });
			} else if (found.workspaceRoot === "") {
				this.out.push({
					commands: [quoted(["cargo", "test", "-p", name])],
					reason: `${changed} in the workspace member ${name} (${dir})`,
				});
			} else {
				this.out.push({
					commands: [quoted(["cargo", "test", "--manifest-path", joinRel(dir, "Cargo.toml")])],
					reason: `${changed} in the crate ${name} (${dir})`,
				});
			}
		}
	}

	// --- pytest ---------------------------------------------------------------------------------

	private async tests(): Promise<RepoRel[]> {
		this.testFiles ??= (await listFiles(this.guard.root)).filter((f) =>
			/(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(f),
		);
		return this.testFiles;
	}

	/** Where pytest is configured, if anywhere at the root. */
	private pytestConfig(): string | undefined {
		if (this.r.has("", "pytest.ini")) return "pytest.ini";
		const tool = this.r.has("", "pyproject.toml")
			? this.r.parse("pyproject.toml", "pyproject.toml", toml)?.tool
			: undefined;
		if (isRecord(tool) && isRecord(tool.pytest)) return "[tool.pytest] in pyproject.toml";
		for (const [file, section] of [
			["tox.ini", "[pytest]"],
			["setup.cfg", "[tool:pytest]"],
		] as const) {
			if (this.r.has("", file) && this.r.text(file)?.includes(section)) return `${section} in ${file}`;
		}
		return this.r.has("", "conftest.py") ? "conftest.py" : undefined;
	}

	/** Why pytest applies here (its configuration, else the test files found), if it does. */
	private async pytestFound(): Promise<string | undefined> {
		const config = this.pytestConfig();
		if (config !== undefined) return `pytest is configured (${config})`;
		const count = (await this.tests()).length;
		return count > 0 ? `the project has ${count} pytest files` : undefined;
	}

	async python(files: RepoRel[]): Promise<void> {
		const how = await this.pytestFound();
		if (how === undefined) {
			this.skipped.push({ command: "pytest", reason: "no pytest configuration and no test_*.py files" });
			this.uncovered.push(...files);
			return;
		}
		const tests = await this.tests();
		// A touched module narrows to the test files named after it; one without any means run all.
		const wanted = new Set<RepoRel>();
		let narrow = this.whole === undefined && !files.some(isManifest);
		for (const f of files.filter((f) => f.endsWith(".py"))) {
			if (tests.includes(f)) wanted.add(f);
			else {
				const stem = basename(f, ".py");
				const named = tests.filter((t) => [`test_${stem}.py`, `${stem}_test.py`].includes(basename(t)));
				if (named.length === 0 || stem === "__init__" || stem === "conftest") narrow = false;
				for (const t of named) wanted.add(t);
			}
		}
		if (narrow && wanted.size > 0 && wanted.size <= MAX_NARROWED) {
			const targets = [...wanted].sort();
			this.out.push({
				commands: PYTEST.map((r) => `${r} ${quoted(targets)}`),
				reason: `${how}; the test files for what changed: ${list(targets)}`,
			});
		} else {
			this.out.push({ commands: PYTEST, reason: `${how}; ${list(files)} changed` });
		}
	}

	// --- make -----------------------------------------------------------------------------------

	private makefileWithTest(dir: RepoRel): RepoRel | undefined {
		for (const name of MAKEFILES) {
			if (!this.r.has(dir, name)) continue;
			return /^test\s*:(?!=)/m.test(this.r.text(joinRel(dir, name)) ?? "") ? joinRel(dir, name) : undefined;
		}
		return undefined;
	}

	make(files: RepoRel[], why: (makefile: RepoRel) => string): void {
		const byMakefile = new Map<RepoRel, RepoRel[]>();
		for (const f of files) {
			for (let dir: RepoRel | undefined = dirOf(f); dir !== undefined; dir = parentRel(dir)) {
				const makefile = this.makefileWithTest(dir);
				if (makefile) {
					byMakefile.set(makefile, [...(byMakefile.get(makefile) ?? []), f]);
					break;
				}
			}
		}
		for (const makefile of byMakefile.keys()) {
			const dir = dirOf(makefile);
			this.out.push({
				commands: [quoted(dir === "" ? ["make", "test"] : ["make", "test", "-C", dir])],
				reason: why(makefile),
			});
		}
	}

	// --- the whole project ----------------------------------------------------------------------

	/** Every ecosystem at the root, unnarrowed; a Makefile `test` target when there is none. */
	async wholeProject(why: string): Promise<void> {
		if (this.r.has("", "package.json")) {
			const pm = this.manager("");
			const run = quoted(pm === "bun" ? ["bun", "run", "test"] : [pm, "test"]);
			const test = this.testScript("");
			if ("missing" in test) this.skipped.push({ command: run, reason: test.missing });
			else
				this.out.push({
					commands: [run],
					reason: `${why}; the root test script runs \`${test.script}\` (${pm})`,
				});
		}
		if (this.r.has("", "go.mod"))
			this.out.push({ commands: ["go test ./..."], reason: `${why}; go.mod at the root` });
		if (this.r.has("", "Cargo.toml")) {
			const manifest = this.r.parse("Cargo.toml", "Cargo.toml", toml);
			const command = isRecord(manifest?.workspace) ? "cargo test --workspace" : "cargo test";
			this.out.push({ commands: [command], reason: `${why}; Cargo.toml at the root` });
		}
		const how = await this.pytestFound();
		if (how !== undefined) this.out.push({ commands: PYTEST, reason: `${why}; ${how}` });
		if (this.out.length === 0) this.make(["Makefile"], (m) => `${why}; ${m} has a test target`);
	}
}

function executable(abs: string): boolean {
	try {
		accessSync(abs, constants.X_OK);
		return statSync(abs).isFile();
	} catch {
		return false;
	}
}

/**
 * Why `argv` would not start, if it would not: its program (a path from the root, or a name on
 * PATH) is missing, or — for `python -m pytest` — the interpreter lacks the module.
 */
function wontStart(root: string, argv: string[], path: string): string | undefined {
	const [program = "", flag, module] = argv;
	const found = program.includes("/")
		? executable(isAbsolute(program) ? program : join(root, program)) && program
		: Bun.which(program, { PATH: path });
	if (!found)
		return program.includes("/")
			? `\`${program}\` is not an executable file`
			: `\`${program}\` is not on PATH`;
	if (/^python[0-9.]*$/.test(basename(program)) && flag === "-m" && module) {
		const probe = Bun.spawnSync(
			[
				found,
				"-c",
				"import importlib.util, sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)",
				module,
			],
			{ env: { PATH: path }, stdout: "ignore", stderr: "ignore" },
		);
		if (probe.exitCode !== 0) return `\`${program}\` has no module ${module}`;
	}
	return undefined;
}

export async function suggestTests(
	guard: RepoGuard,
	input: SuggestInput,
	allowed: readonly string[],
	path = process.env.PATH ?? "",
): Promise<{ suggestions: Suggestion[]; skipped: Suggestion[] }> {
	const plan = new Planner(guard, input.whole);
	const expected: Candidate[] = input.expected.map((command) => ({
		commands: [command],
		reason: "listed in the proposal's expected_tests",
	}));
	const touched = input.touched?.filter((f) => !DOCS.test(f));
	const ci = touched?.filter((f) => CI.test(f)) ?? [];
	if (touched === undefined) await plan.wholeProject("no change given, so the whole project");
	else if (ci.length > 0)
		await plan.wholeProject(`${list(ci)} changed (how the project is built and tested)`);
	else if (input.whole !== undefined) await plan.wholeProject(input.whole);
	else {
		const by = new Map<Ecosystem | undefined, RepoRel[]>();
		for (const f of touched) by.set(ecosystemOf(f), [...(by.get(ecosystemOf(f)) ?? []), f]);
		if (by.has("npm")) plan.npm(by.get("npm") ?? []);
		if (by.has("go")) plan.go(by.get("go") ?? []);
		if (by.has("cargo")) plan.cargo(by.get("cargo") ?? []);
		if (by.has("python")) await plan.python(by.get("python") ?? []);
		const rest = [...(by.get(undefined) ?? []), ...plan.uncovered];
		plan.make(rest, (m) =>
			rest.some((f) => MAKEFILES.includes(basename(f)))
				? `${m} changed and has a test target`
				: `${list(rest)} changed and no language's tests cover ${rest.length === 1 ? "it" : "them"}; ${m} has a test target`,
		);
	}

	const suggestions: Suggestion[] = [];
	const skipped: Suggestion[] = [...plan.skipped];
	const seen = new Set<string>();
	for (const c of [...expected, ...plan.out]) {
		const refusals: Suggestion[] = [];
		for (const command of c.commands) {
			let argv: string[];
			try {
				argv = splitCommand(command);
			} catch (err) {
				refusals.push({ command, reason: (err as Error).message });
				continue;
			}
			const text = canonical(argv);
			const prefix = allowedBy(argv, allowed);
			const refused = prefix
				? (argumentRefusal(argv, splitCommand(prefix).length, guard.root) ??
					wontStart(guard.root, argv, path))
				: "it is not in tests.allowed_commands";
			if (refused) {
				refusals.push({ command: text, reason: `${c.reason}, but ${refused}` });
			} else {
				if (!seen.has(text)) suggestions.push({ command: text, reason: c.reason });
				seen.add(text);
				refusals.length = 0;
				break;
			}
		}
		// Fallbacks that were tried too are named, not listed one by one.
		const [first, ...others] = refusals;
		if (first && !seen.has(first.command)) {
			const also = others.length > 0 ? ` (also tried: ${others.map((o) => o.command).join("; ")})` : "";
			skipped.push({ command: first.command, reason: `${first.reason}${also}` });
		}
	}
	return { suggestions, skipped };
}
