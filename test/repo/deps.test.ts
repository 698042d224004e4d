// repo.dependency_context on the hand-written sample projects in fixtures/deps/, copied into a real
// initialized project: manifests and lockfiles of every ecosystem, imports of source files, target
// kinds, malformed files and the path guard.
import { describe, expect, test } from "bun:test";
import { cpSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expectDeclaredOutput, makeProject, REPO, tempDir, write } from "../_helpers/helpers.ts";

interface Dep {
	name: string;
	scope: string;
	relation: "direct" | "transitive";
	declared: string | null;
	resolved: string | null;
	sources: { file: string; kind: string }[];
}
interface Project {
	ecosystem: string;
	manifest: string | null;
	lockfiles: string[];
	dependencies: Dep[];
}
interface Import {
	specifier: string;
	line: number;
	status: string;
	dependency: string | null;
	ecosystem: string | null;
	reason: string | null;
}
interface Context {
	path: string;
	target: string;
	projects: Project[];
	imports: Import[];
	warnings: string[];
}

const p = await makeProject();
cpSync(join(REPO, "fixtures", "deps"), p.root, { recursive: true });
const put = (rel: string, content: string) => write(p.root, rel, content);

async function context(path: string): Promise<Context> {
	const out = await p.call("repo.dependency_context", { path });
	expectDeclaredOutput("repo.dependency_context", out);
	return out as unknown as Context;
}

/** The one project of an ecosystem. */
function project(c: Context, ecosystem: string): Project {
	const found = c.projects.filter((x) => x.ecosystem === ecosystem);
	expect(found).toHaveLength(1);
	return found[0] as Project;
}

/** The dependencies of a name (several when a name is locked at several versions). */
const deps = (pr: Project, name: string, relation?: string) =>
	pr.dependencies.filter((d) => d.name === name && (relation === undefined || d.relation === relation));

function dep(pr: Project, name: string, relation: "direct" | "transitive" = "direct"): Dep {
	const found = deps(pr, name, relation);
	expect(found.map((d) => `${d.name}@${d.resolved}`)).toHaveLength(1);
	return found[0] as Dep;
}

/** Specifier → [status, dependency, reason]. */
const importMap = (c: Context) =>
	Object.fromEntries(c.imports.map((i) => [i.specifier, [i.status, i.dependency, i.reason] as const]));

const manifest = (file: string) => ({ file, kind: "manifest" });
const lockfile = (file: string) => ({ file, kind: "lockfile" });

/** Direct dependencies come first, then by name. */
function expectSorted(pr: Project) {
	const keys = pr.dependencies.map((d) => `${d.relation === "direct" ? 0 : 1} ${d.name}`);
	expect(keys).toEqual([...keys].sort());
}

describe("npm with package-lock.json v3", () => {
	test("direct dependencies: declared ranges, resolved versions, scopes and sources", async () => {
		const c = await context("npm-lock/package.json");
		expect(c.target).toBe("manifest");
		expect(c.imports).toEqual([]);
		const npm = project(c, "npm");
		expect(npm.manifest).toBe("npm-lock/package.json");
		expect(npm.lockfiles).toEqual(["npm-lock/package-lock.json"]);
		expect(dep(npm, "debug")).toEqual({
			name: "debug",
			scope: "runtime",
			relation: "direct",
			declared: "^4.3.4",
			resolved: "4.3.5",
			sources: [manifest("npm-lock/package.json"), lockfile("npm-lock/package-lock.json")],
		});
		expect(dep(npm, "typescript")).toMatchObject({ scope: "dev", declared: "~5.4.5", resolved: "5.4.5" });
		expect(dep(npm, "fsevents")).toMatchObject({ scope: "optional", resolved: "2.3.3" });
		expectSorted(npm);
	});

	test("transitive ones, including nested node_modules copies, with npm's dev flag", async () => {
		const npm = project(await context("npm-lock/package-lock.json"), "npm");
		expect(deps(npm, "ms", "transitive").map((d) => d.resolved)).toEqual(["2.0.0", "2.1.2"]);
		expect(dep(npm, "debug", "transitive")).toEqual({
			name: "debug",
			scope: "runtime",
			relation: "transitive",
			declared: null,
			resolved: "2.6.9",
			sources: [lockfile("npm-lock/package-lock.json")],
		});
		expect(dep(npm, "@types/ms", "transitive").scope).toBe("dev");
		expect(dep(npm, "ee-first", "transitive").scope).toBe("runtime");
	});

	test("a source file's imports: builtin, relative, dependency, transitive only, unresolved", async () => {
		const c = await context("npm-lock/src/server.ts");
		expect(c.target).toBe("source");
		expect(c.imports[0]).toEqual({
			specifier: "node:http",
			line: 1,
			status: "builtin",
			dependency: null,
			ecosystem: "npm",
			reason: null,
		});
		expect(importMap(c)).toEqual({
			"node:http": ["builtin", null, null],
			path: ["builtin", null, null],
			commander: ["dependency", "commander", null],
			debug: ["dependency", "debug", null],
			finalhandler: ["dependency", "finalhandler", null],
			ms: ["dependency", "ms", "transitive only: not declared in package.json"],
			zod: ["unresolved", null, "not declared in package.json and not in its lockfile"],
			"./invoices.js": ["relative", null, null],
			chalk: ["dependency", "chalk", null], // await import("chalk")
		});
		// The import in a comment and the one in a template string are not imports.
		expect(c.imports.map((i) => i.specifier)).not.toContain("legacy-billing");
		expect(c.imports.map((i) => i.specifier)).not.toContain("here");
	});
});

describe("bun with bun.lock", () => {
	test("JSONC lockfile with trailing commas; hoisted and nested versions", async () => {
		const c = await context("bun/bun.lock");
		expect(c.target).toBe("lockfile");
		const npm = project(c, "npm");
		expect(npm.lockfiles).toEqual(["bun/bun.lock"]);
		expect(dep(npm, "hono")).toMatchObject({ declared: "^4.4.0", resolved: "4.4.13", scope: "runtime" });
		expect(dep(npm, "@types/node")).toMatchObject({ declared: "^22.5.0", resolved: "22.5.4", scope: "dev" });
		// bun-types pulls its own @types/node, nested under its key.
		expect(dep(npm, "@types/node", "transitive")).toMatchObject({ resolved: "20.12.14", scope: "dev" });
		expect(deps(npm, "undici-types", "transitive").map((d) => d.resolved)).toEqual(["5.26.5", "6.19.8"]);
	});

	test("imports: bun: builtins, subpaths of a package, transitive only", async () => {
		expect(importMap(await context("bun/src/index.ts"))).toEqual({
			"bun:sqlite": ["builtin", null, null],
			"node:crypto": ["builtin", null, null],
			"@hono/zod-validator": ["dependency", "@hono/zod-validator", null],
			hono: ["dependency", "hono", null],
			"hono/logger": ["dependency", "hono", null],
			"undici-types": ["dependency", "undici-types", "transitive only: not declared in package.json"],
			zod: ["dependency", "zod", null],
			"drizzle-orm/bun-sqlite": ["unresolved", null, "not declared in package.json and not in its lockfile"],
			"./routes/users": ["relative", null, null],
		});
	});
});

describe("pnpm with pnpm-lock.yaml v9", () => {
	test("importers, snapshots with peer suffixes, dev reached only through dev dependencies", async () => {
		const npm = project(await context("pnpm"), "npm");
		expect(npm.lockfiles).toEqual(["pnpm/pnpm-lock.yaml"]);
		expect(dep(npm, "react-dom")).toMatchObject({
			declared: "^18.3.1",
			resolved: "18.3.1",
			scope: "runtime",
		});
		expect(dep(npm, "typescript")).toMatchObject({ declared: "~5.5.3", resolved: "5.5.4", scope: "dev" });
		expect(dep(npm, "scheduler", "transitive")).toMatchObject({ resolved: "0.23.2", scope: "runtime" });
		expect(dep(npm, "csstype", "transitive")).toMatchObject({ resolved: "3.1.3", scope: "dev" });
		expectSorted(npm);
	});

	test("imports of a TSX file and of a CommonJS-style script", async () => {
		const main = await context("pnpm/src/main.tsx");
		expect(importMap(main)).toEqual({
			react: ["dependency", "react", null],
			"react-dom/client": ["dependency", "react-dom", null],
			clsx: ["dependency", "clsx", null],
			scheduler: ["dependency", "scheduler", "transitive only: not declared in package.json"],
			"@tanstack/react-query": ["unresolved", null, "not declared in package.json and not in its lockfile"],
			"./Sidebar": ["relative", null, null],
		});
		const script = await context("pnpm/scripts/sitemap.ts");
		expect(script.imports.map((i) => [i.specifier, i.line, i.status])).toEqual([
			["fs", 1, "builtin"],
			["node:path", 2, "builtin"],
			["../src/pages.json", 3, "relative"],
		]);
	});
});

describe("yarn.lock", () => {
	test("classic v1: multi-descriptor entries, transitive graph, require() imports", async () => {
		const c = await context("yarn-classic/lib/cli.js");
		const npm = project(c, "npm");
		expect(npm.lockfiles).toEqual(["yarn-classic/yarn.lock"]);
		expect(dep(npm, "minimist")).toMatchObject({ declared: "^1.2.8", resolved: "1.2.8" });
		expect(dep(npm, "prettier")).toMatchObject({ scope: "dev", resolved: "3.3.2" });
		expect(dep(npm, "supports-color", "transitive")).toMatchObject({ resolved: "7.2.0", scope: "runtime" });
		expect(dep(npm, "color-name", "transitive").resolved).toBe("1.1.4");
		expect(deps(npm, "minimist", "transitive")).toEqual([]); // mkdirp's minimist is the direct one
		expect(importMap(c)).toEqual({
			fs: ["builtin", null, null],
			"node:path": ["builtin", null, null],
			chalk: ["dependency", "chalk", null],
			minimist: ["dependency", "minimist", null],
			mkdirp: ["dependency", "mkdirp", null],
			"supports-color": ["dependency", "supports-color", "transitive only: not declared in package.json"],
			"./config": ["relative", null, null],
			"update-notifier": ["unresolved", null, "not declared in package.json and not in its lockfile"],
		});
	});

	test("berry: YAML with a workspace entry and a patch: descriptor", async () => {
		const c = await context("yarn-berry/src/index.mjs");
		const npm = project(c, "npm");
		expect(npm.lockfiles).toEqual(["yarn-berry/yarn.lock"]);
		expect(dep(npm, "p-retry")).toMatchObject({ declared: "^6.2.0", resolved: "6.2.0" });
		expect(dep(npm, "typescript")).toMatchObject({ scope: "dev", declared: "^5.5.3", resolved: "5.5.3" });
		expect(dep(npm, "retry", "transitive").resolved).toBe("0.13.1");
		expect(importMap(c)).toMatchObject({
			"node:events": ["builtin", null, null],
			retry: ["dependency", "retry", "transitive only: not declared in package.json"],
			pino: ["unresolved", null, "not declared in package.json and not in its lockfile"],
			"./channels.mjs": ["relative", null, null],
		});
	});
});

describe("npm workspaces", () => {
	test("a member's own manifest governs, with the lockfile at the workspace root", async () => {
		const c = await context("npm-workspaces/packages/api/src/index.ts");
		const npm = project(c, "npm");
		expect(npm.manifest).toBe("npm-workspaces/packages/api/package.json");
		expect(npm.lockfiles).toEqual(["npm-workspaces/package-lock.json"]);
		// packages/api/node_modules/uuid shadows the hoisted copy for this member.
		expect(dep(npm, "uuid")).toMatchObject({ declared: "^10.0.0", resolved: "10.0.0" });
		expect(dep(npm, "@acme/shared")).toMatchObject({ declared: "^0.4.0", resolved: "0.4.0" });
		// Through the workspace link into @acme/shared's own dependencies.
		expect(dep(npm, "zod", "transitive").resolved).toBe("3.23.8");
		expect(dep(npm, "uuid", "transitive").resolved).toBe("9.0.1");
		// The root's dev dependency is not the member's.
		expect(deps(npm, "typescript")).toEqual([]);
		expect(importMap(c)).toMatchObject({
			"@acme/shared": ["dependency", "@acme/shared", null],
			uuid: ["dependency", "uuid", null],
			zod: ["dependency", "zod", "transitive only: not declared in package.json"],
			fastify: ["unresolved", null, "not declared in package.json and not in its lockfile"],
		});
	});

	test("the workspace root has its own dependencies only", async () => {
		const npm = project(await context("npm-workspaces"), "npm");
		expect(npm.manifest).toBe("npm-workspaces/package.json");
		expect(npm.dependencies.map((d) => [d.name, d.relation, d.resolved])).toEqual([
			["typescript", "direct", "5.5.4"],
		]);
	});
});

describe("Go with go.mod and go.sum", () => {
	test("requires are direct, // indirect ones transitive, go.sum confirms the versions", async () => {
		const c = await context("go");
		expect(c.target).toBe("directory");
		expect(c.imports).toEqual([]);
		const go = project(c, "go");
		expect(go).toMatchObject({ manifest: "go/go.mod", lockfiles: ["go/go.sum"] });
		expect(dep(go, "github.com/go-chi/chi/v5")).toEqual({
			name: "github.com/go-chi/chi/v5",
			scope: "runtime",
			relation: "direct",
			declared: "v5.0.12",
			resolved: "v5.0.12",
			sources: [manifest("go/go.mod"), lockfile("go/go.sum")],
		});
		expect(dep(go, "golang.org/x/sync", "transitive")).toMatchObject({
			declared: "v0.1.0",
			resolved: "v0.1.0",
		});
		// Modules go.sum only mentions for the module graph are not dependencies of this module.
		expect(deps(go, "github.com/stretchr/testify")).toEqual([]);
		expectSorted(go);
	});

	test("imports: standard library, own packages, longest module prefix, indirect, unresolved", async () => {
		const c = await context("go/cmd/server/main.go");
		expect(importMap(c)).toEqual({
			context: ["builtin", null, null],
			"log/slog": ["builtin", null, null],
			"net/http": ["builtin", null, null],
			os: ["builtin", null, null],
			"github.com/go-chi/chi/v5": ["dependency", "github.com/go-chi/chi/v5", null],
			"github.com/go-chi/chi/v5/middleware": ["dependency", "github.com/go-chi/chi/v5", null],
			"github.com/jackc/pgx/v5/pgxpool": ["dependency", "github.com/jackc/pgx/v5", null],
			"github.com/rs/zerolog": ["unresolved", null, "no module required in go.mod provides this package"],
			"golang.org/x/sync/errgroup": ["dependency", "golang.org/x/sync", "marked // indirect in go.mod"],
			"github.com/acme/todo-api/internal/store": ["relative", null, "a package of this module"],
		});
		expect(c.imports.find((i) => i.specifier === "context")?.line).toBe(5);
	});
});

describe("Cargo", () => {
	test("dependency tables by scope, target-specific ones, Cargo.lock versions and graph", async () => {
		const c = await context("cargo/Cargo.toml");
		const cargo = project(c, "cargo");
		expect(cargo.lockfiles).toEqual(["cargo/Cargo.lock"]);
		expect(dep(cargo, "serde")).toEqual({
			name: "serde",
			scope: "runtime",
			relation: "direct",
			declared: "1.0.203",
			resolved: "1.0.203",
			sources: [manifest("cargo/Cargo.toml"), lockfile("cargo/Cargo.lock")],
		});
		expect(dep(cargo, "flate2")).toMatchObject({ scope: "optional", resolved: "1.0.30" });
		expect(dep(cargo, "libc")).toMatchObject({ scope: "runtime", declared: "0.2.155" }); // [target.'cfg(unix)'.dependencies]
		expect(dep(cargo, "pretty_assertions").scope).toBe("dev");
		expect(dep(cargo, "cc").scope).toBe("build");
		expect(dep(cargo, "itoa", "transitive")).toMatchObject({ scope: "runtime", resolved: "1.0.11" });
		expect(dep(cargo, "yansi", "transitive").scope).toBe("dev");
		expect(deps(cargo, "log-shipper")).toEqual([]); // the package itself
		expectSorted(cargo);
	});

	test("imports: use and mod; a crate only in Cargo.lock is not usable, so it is unresolved", async () => {
		const c = await context("cargo/src/main.rs");
		expect(importMap(c)).toEqual({
			"std::io::{self,BufRead}": ["builtin", null, null],
			"anyhow::{Context,Result}": ["dependency", "anyhow", null],
			"itoa::Buffer": [
				"unresolved",
				null,
				"only in Cargo.lock: a crate can use only the dependencies its Cargo.toml declares",
			],
			"serde::Serialize": ["dependency", "serde", null],
			"serde_json::json": ["dependency", "serde_json", null],
			"tokio::runtime::Runtime": [
				"unresolved",
				null,
				"not a dependency in Cargo.toml (it may be a name this file brings into scope)",
			],
			"crate::config::Config": ["relative", null, null],
			"super::*": ["relative", null, null],
			"pretty_assertions::assert_eq": ["dependency", "pretty_assertions", null],
		});
	});

	test("a workspace member inherits `workspace = true` requirements and the root Cargo.lock", async () => {
		const c = await context("cargo-workspace/crates/ledger-cli/src/main.rs");
		const cargo = project(c, "cargo");
		expect(cargo.manifest).toBe("cargo-workspace/crates/ledger-cli/Cargo.toml");
		expect(cargo.lockfiles).toEqual(["cargo-workspace/Cargo.lock"]);
		expect(dep(cargo, "thiserror")).toMatchObject({
			declared: "1.0.61",
			resolved: "1.0.61",
			sources: [
				manifest("cargo-workspace/crates/ledger-cli/Cargo.toml"),
				manifest("cargo-workspace/Cargo.toml"),
				lockfile("cargo-workspace/Cargo.lock"),
			],
		});
		expect(dep(cargo, "ledger-core")).toMatchObject({ declared: "path+../ledger-core", resolved: "0.8.0" });
		expect(dep(cargo, "serde", "transitive").resolved).toBe("1.0.203");
		expect(importMap(c)).toMatchObject({
			ledger_core: ["dependency", "ledger-core", null], // extern crate; `-` becomes `_`
			"ledger_core::{Ledger,LedgerError}": ["dependency", "ledger-core", null],
			"std::env": ["builtin", null, null],
			"thiserror::Error": ["dependency", "thiserror", null],
		});
		expect(importMap(c)["serde::Serialize"]?.[0]).toBe("unresolved");
	});
});

describe("Python", () => {
	test("PEP 621 + uv.lock: normalized names, optional extras, dependency groups", async () => {
		const py = project(await context("python-uv/uv.lock"), "python");
		expect(py).toMatchObject({ manifest: "python-uv/pyproject.toml", lockfiles: ["python-uv/uv.lock"] });
		expect(dep(py, "pyyaml")).toEqual({
			name: "pyyaml",
			scope: "runtime",
			relation: "direct",
			declared: ">=6.0.1",
			resolved: "6.0.1",
			sources: [manifest("python-uv/pyproject.toml"), lockfile("python-uv/uv.lock")],
		});
		expect(dep(py, "typing-extensions")).toMatchObject({ declared: ">=4.12", resolved: "4.12.2" });
		expect(dep(py, "rich")).toMatchObject({ scope: "optional", resolved: "13.7.1" });
		expect(dep(py, "pytest")).toMatchObject({ scope: "dev", declared: ">=8.2", resolved: "8.2.2" });
		expect(dep(py, "sniffio", "transitive")).toMatchObject({ scope: "runtime", resolved: "1.3.1" });
		expect(dep(py, "pygments", "transitive").scope).toBe("optional");
		expect(dep(py, "iniconfig", "transitive").scope).toBe("dev");
		expect(deps(py, "weather-report")).toEqual([]);
		expectSorted(py);
	});

	test("imports: a module maps only to a distribution of the same normalized name", async () => {
		const c = await context("python-uv/src/weather_report/report.py");
		const differs = "module name differs from every declared distribution";
		expect(importMap(c)).toEqual({
			__future__: ["builtin", null, null],
			json: ["builtin", null, null],
			"os.path": ["builtin", null, null],
			datetime: ["builtin", null, null],
			typing: ["builtin", null, null],
			httpx: ["dependency", "httpx", null],
			sniffio: ["dependency", "sniffio", "transitive only: not declared in pyproject.toml"],
			yaml: ["unresolved", null, differs], // PyYAML: not guessed
			"rich.console": ["dependency", "rich", null],
			typing_extensions: ["dependency", "typing-extensions", null],
			".": ["relative", null, null],
			".units": ["relative", null, null],
			weather_report: ["relative", null, "the project's own package"],
			pandas: ["unresolved", null, differs],
		});
		// "import requests" in the docstring is not an import.
		expect(c.imports.map((i) => i.specifier)).not.toContain("requests");
	});

	test("Poetry: python is not a dependency; groups, optional, and poetry.lock's own groups", async () => {
		const c = await context("python-poetry/ticket_sync/sync.py");
		const py = project(c, "python");
		expect(py.lockfiles).toEqual(["python-poetry/poetry.lock"]);
		expect(deps(py, "python")).toEqual([]);
		expect(dep(py, "requests")).toMatchObject({ scope: "runtime", declared: "^2.32.3", resolved: "2.32.3" });
		expect(dep(py, "pytest")).toMatchObject({ scope: "dev", resolved: "8.2.2" });
		expect(dep(py, "python-dateutil")).toMatchObject({ scope: "optional", resolved: "2.9.0.post0" });
		expect(dep(py, "urllib3", "transitive")).toMatchObject({ scope: "runtime", resolved: "2.2.2" });
		expect(dep(py, "six", "transitive").scope).toBe("optional");
		expect(dep(py, "pluggy", "transitive").scope).toBe("dev");
		expect(importMap(c)).toMatchObject({
			sqlite3: ["builtin", null, null],
			click: ["dependency", "click", null],
			urllib3: ["dependency", "urllib3", "transitive only: not declared in pyproject.toml"],
			dateutil: ["unresolved", null, "module name differs from every declared distribution"],
			".models": ["relative", null, null],
			"ticket_sync.models": ["relative", null, "the project's own package"],
		});
	});

	test("requirements files: -r includes, dev files, options stripped, no lockfile so nothing resolved", async () => {
		const c = await context("python-requirements/scrape.py");
		const py = project(c, "python");
		expect(py).toMatchObject({ manifest: "python-requirements/requirements.txt", lockfiles: [] });
		expect(py.dependencies.map((d) => [d.name, d.scope, d.declared, d.resolved, d.sources[0]?.file])).toEqual(
			[
				["beautifulsoup4", "runtime", ">=4.12,<5", null, "python-requirements/requirements.txt"],
				["flask", "runtime", "==3.0.3", null, "python-requirements/requirements.txt"],
				["lxml", "runtime", ">=5.2", null, "python-requirements/requirements.txt"],
				["pytest", "dev", "==8.2.2", null, "python-requirements/requirements-dev.txt"],
				["requests", "runtime", "~=2.32.0", null, "python-requirements/requirements.txt"],
				["ruff", "dev", ">=0.5", null, "python-requirements/requirements-dev.txt"],
			],
		);
		expect(importMap(c)).toEqual({
			os: ["builtin", null, null],
			sys: ["builtin", null, null],
			re: ["builtin", null, null],
			requests: ["dependency", "requests", null],
			bs4: ["unresolved", null, "module name differs from every declared distribution"],
			flask: ["dependency", "flask", null],
			lxml: ["dependency", "lxml", null],
			"werkzeug.exceptions": ["unresolved", null, "module name differs from every declared distribution"],
			helpers: ["relative", null, "a module of this project: python-requirements/helpers.py"],
		});
		expect(c.imports.filter((i) => i.line === 4).map((i) => i.specifier)).toEqual(["sys", "re"]);
	});

	test("a requirements file named as the target is the manifest; includes outside the repository are not followed", async () => {
		put("reqs-outside/requirements-dev.txt", "-r ../../../../../../etc/passwd.txt\nblack==24.4.2\n");
		const c = await context("reqs-outside/requirements-dev.txt");
		expect(c.target).toBe("manifest");
		const py = project(c, "python");
		expect(py.manifest).toBe("reqs-outside/requirements-dev.txt");
		expect(py.dependencies.map((d) => [d.name, d.scope])).toEqual([["black", "dev"]]);
	});
});

describe("targets and governing files", () => {
	test("a lockfile with no manifest beside it: everything in it is transitive", async () => {
		put("orphan/Cargo.lock", await Bun.file(join(p.root, "cargo/Cargo.lock")).text());
		const c = await context("orphan/Cargo.lock");
		const cargo = project(c, "cargo");
		expect(cargo.manifest).toBeNull();
		expect(cargo.lockfiles).toEqual(["orphan/Cargo.lock"]);
		expect(cargo.dependencies.every((d) => d.relation === "transitive" && d.declared === null)).toBe(true);
		expect(dep(cargo, "serde", "transitive").resolved).toBe("1.0.203");
		expect(deps(cargo, "log-shipper")).toEqual([]); // a local package, not a dependency
	});

	test("the nearest manifest of each ecosystem governs; a source file maps with its own language", async () => {
		put("mixed/package.json", JSON.stringify({ name: "mixed", devDependencies: { prettier: "^3.3.2" } }));
		put(
			"mixed/tools/pyproject.toml",
			'[project]\nname = "tools"\nversion = "0"\ndependencies = ["requests>=2"]\n',
		);
		put("mixed/tools/fetch.py", "import requests\nimport prettier\n");
		const c = await context("mixed/tools/fetch.py");
		expect(c.projects.map((x) => [x.ecosystem, x.manifest, x.lockfiles])).toEqual([
			["npm", "mixed/package.json", []],
			["python", "mixed/tools/pyproject.toml", []],
		]);
		expect(dep(project(c, "npm"), "prettier")).toMatchObject({ declared: "^3.3.2", resolved: null });
		expect(importMap(c)).toEqual({
			requests: ["dependency", "requests", null],
			prettier: ["unresolved", null, "module name differs from every declared distribution"],
		});
	});

	test("nothing governs: no projects, and bare imports are unresolved", async () => {
		put("loose/notes.txt", "nothing here\n");
		put("loose/script.mjs", 'import fs from "node:fs";\nimport left from "left-pad";\n');
		expect(await context("loose")).toEqual({
			path: "loose",
			target: "directory",
			projects: [],
			imports: [],
			warnings: [],
		});
		const c = await context("loose/notes.txt");
		expect(c).toMatchObject({ target: "source", projects: [], imports: [] });
		expect(importMap(await context("loose/script.mjs"))).toEqual({
			"node:fs": ["builtin", null, null],
			"left-pad": ["unresolved", null, "no package.json governs this file"],
		});
	});

	test("the JavaScript scanner: export-from, import = require, multi-line imports, computed imports skipped", async () => {
		put(
			"scan/package.json",
			JSON.stringify({ name: "scan", dependencies: { a: "1", "@s/b": "2" }, devDependencies: { c: "3" } }),
		);
		put(
			"scan/index.ts",
			[
				'export * from "./reexport";',
				'export { b } from "@s/b/sub";',
				'import x = require("a");',
				"import {",
				"  one,",
				"  two,",
				'} from "c";',
				"const name = 'x';",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned source has a template literal
				"await import(`./dyn/${name}`);",
				'obj.require("not-this");',
				'import "#internal";',
				'import alias from "@/components/button";',
				'import scan from "scan/utils";',
			].join("\n"),
		);
		const c = await context("scan/index.ts");
		expect(c.imports.map((i) => [i.specifier, i.line, i.status, i.dependency])).toEqual([
			["./reexport", 1, "relative", null],
			["@s/b/sub", 2, "dependency", "@s/b"],
			["a", 3, "dependency", "a"],
			["c", 4, "dependency", "c"],
			["#internal", 11, "unresolved", null],
			["@/components/button", 12, "unresolved", null],
			["scan/utils", 13, "relative", null],
		]);
	});
});

describe("malformed files and the guard", () => {
	test("a malformed manifest or lockfile named as the target is invalid_argument", async () => {
		put("broken/package.json", '{ "name": "broken", ');
		put("broken/go.mod", "module example.com/broken\n\nrequire (\n\tgithub.com/a/b v1.0.0\n");
		put("broken/Cargo.lock", "[[package]]\nname = \n");
		put("broken/yarn.lock", "foo@^1.0.0:\n      version 1.0.0\n");
		for (const file of ["package.json", "go.mod", "Cargo.lock", "yarn.lock"]) {
			const err = await p.fail("repo.dependency_context", { path: `broken/${file}` });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toContain(`broken/${file} is not a valid`);
		}
	});

	test("a malformed sibling lockfile is skipped; the project is reported with what could be read", async () => {
		put("halfbroken/package.json", JSON.stringify({ name: "hb", dependencies: { zod: "^3.23.8" } }));
		put("halfbroken/package-lock.json", "{ this is not json");
		put("halfbroken/index.js", 'const zod = require("zod");\n');
		const c = await context("halfbroken/index.js");
		const npm = project(c, "npm");
		expect(npm.lockfiles).toEqual([]);
		expect(npm.dependencies).toEqual([
			{
				name: "zod",
				scope: "runtime",
				relation: "direct",
				declared: "^3.23.8",
				resolved: null,
				sources: [manifest("halfbroken/package.json")],
			},
		]);
		expect(importMap(c).zod).toEqual(["dependency", "zod", null]);
		expect(c.warnings).toHaveLength(1);
		expect(c.warnings[0]).toStartWith("halfbroken/package-lock.json was skipped: it is not a valid");
	});

	test("a lockfile that is a symlink out of the repository is not read", async () => {
		const outside = tempDir("rt-deps-outside-");
		writeFileSync(
			join(outside, "package-lock.json"),
			await Bun.file(join(p.root, "npm-lock/package-lock.json")).text(),
		);
		put("escape/package.json", JSON.stringify({ name: "escape", dependencies: { debug: "^4.3.4" } }));
		symlinkSync(join(outside, "package-lock.json"), join(p.root, "escape/package-lock.json"));
		const npm = project(await context("escape"), "npm");
		expect(npm.lockfiles).toEqual([]);
		expect(dep(npm, "debug").resolved).toBeNull();
		const err = await p.fail("repo.dependency_context", { path: "escape/package-lock.json" });
		expect(err.code).toBe("permission_denied");
	});

	test("missing paths are not_found; paths outside the repository or in .git/.roundtable are refused", async () => {
		expect((await p.fail("repo.dependency_context", { path: "nope/package.json" })).code).toBe("not_found");
		for (const path of ["../outside", "/etc/passwd", ".roundtable/config.yaml", ".git/config"]) {
			expect((await p.fail("repo.dependency_context", { path })).code).toBe("permission_denied");
		}
	});
});
