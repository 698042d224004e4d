// Which manifest and lockfiles govern a path: walking up from its directory to the repository root,
// the nearest manifest of each ecosystem governs. Its lockfiles sit beside it, or — for a member of
// an npm/pnpm/Yarn/Bun, Cargo or uv workspace — at the workspace root further up, which counts only
// if its manifest really lists the member (a stray lockfile higher up is someone else's).
import picomatch from "picomatch";
import { parse as parseYaml } from "yaml";
import type { RepoRel } from "../guard.ts";
import {
	type DepReader,
	isRecord,
	joinRel,
	jsonObject,
	parentRel,
	relativeRel,
	stringList,
} from "./reader.ts";
import type { Ecosystem } from "./types.ts";

export interface Found {
	ecosystem: Ecosystem;
	/** The manifest's directory (for a lone lockfile, the lockfile's). */
	dir: RepoRel;
	manifest: RepoRel | null;
	lockfiles: RepoRel[];
	/** Where the lockfiles are: `dir`, or the workspace root above it. */
	lockDir: RepoRel;
	/** The workspace root's directory when `dir` is a member of a workspace above it. */
	workspaceRoot?: RepoRel;
}

const LOCKFILES: Record<Ecosystem, string[]> = {
	npm: ["package-lock.json", "npm-shrinkwrap.json", "bun.lock", "pnpm-lock.yaml", "yarn.lock"],
	go: ["go.sum"],
	cargo: ["Cargo.lock"],
	python: ["uv.lock", "poetry.lock"],
};

const MANIFEST_NAMES: Record<Exclude<Ecosystem, "python">, string> = {
	npm: "package.json",
	go: "go.mod",
	cargo: "Cargo.toml",
};

const isRequirementsFile = (name: string) => /^requirements.*\.txt$/i.test(name);

/** The ecosystem a manifest or lockfile name belongs to. */
export function ecosystemOfFile(
	name: string,
): { ecosystem: Ecosystem; kind: "manifest" | "lockfile" } | undefined {
	for (const [ecosystem, names] of Object.entries(LOCKFILES) as [Ecosystem, string[]][]) {
		if (names.includes(name)) return { ecosystem, kind: "lockfile" };
	}
	for (const [ecosystem, manifest] of Object.entries(MANIFEST_NAMES) as [Ecosystem, string][]) {
		if (manifest === name) return { ecosystem, kind: "manifest" };
	}
	if (name === "pyproject.toml" || isRequirementsFile(name)) return { ecosystem: "python", kind: "manifest" };
	return undefined;
}

/** The manifest of an ecosystem in one directory; for Python pyproject.toml wins over requirements files. */
function manifestIn(r: DepReader, ecosystem: Ecosystem, dir: RepoRel): RepoRel | undefined {
	if (ecosystem !== "python")
		return r.has(dir, MANIFEST_NAMES[ecosystem]) ? joinRel(dir, MANIFEST_NAMES[ecosystem]) : undefined;
	if (r.has(dir, "pyproject.toml")) return joinRel(dir, "pyproject.toml");
	const reqs = requirementsIn(r, dir);
	return reqs.find((f) => f.endsWith("/requirements.txt") || f === "requirements.txt") ?? reqs[0];
}

/** The requirements*.txt files directly in a directory, sorted. */
export function requirementsIn(r: DepReader, dir: RepoRel): RepoRel[] {
	return [...r.list(dir)]
		.filter(([name, kind]) => kind === "file" && isRequirementsFile(name))
		.map(([name]) => joinRel(dir, name))
		.sort();
}

const lockfilesIn = (r: DepReader, ecosystem: Ecosystem, dir: RepoRel) =>
	LOCKFILES[ecosystem].filter((name) => r.has(dir, name)).map((name) => joinRel(dir, name));

export function discover(r: DepReader, ecosystem: Ecosystem, start: RepoRel): Found | undefined {
	for (let dir: RepoRel | undefined = start; dir !== undefined; dir = parentRel(dir)) {
		const manifest = manifestIn(r, ecosystem, dir);
		if (manifest === undefined) continue;
		const found: Found = {
			ecosystem,
			dir,
			manifest,
			lockfiles: lockfilesIn(r, ecosystem, dir),
			lockDir: dir,
		};
		if (found.lockfiles.length > 0) return found;
		for (let up = parentRel(dir); up !== undefined; up = parentRel(up)) {
			if (manifestIn(r, ecosystem, up) !== undefined && workspaceContains(r, ecosystem, up, dir)) {
				return { ...found, lockfiles: lockfilesIn(r, ecosystem, up), lockDir: up, workspaceRoot: up };
			}
		}
		return found;
	}
	return undefined;
}

/** Whether the manifest in `root` declares a workspace whose members include `member`. */
function workspaceContains(r: DepReader, ecosystem: Ecosystem, root: RepoRel, member: RepoRel): boolean {
	const rel = relativeRel(root, member);
	return matchesGlobs(rel, workspaceGlobs(r, ecosystem, root));
}

function workspaceGlobs(r: DepReader, ecosystem: Ecosystem, root: RepoRel): string[] {
	const negate = (v: unknown) => stringList(v).map((s) => `!${s}`);
	if (ecosystem === "npm") {
		const pkg = r.parse(joinRel(root, "package.json"), "package.json", jsonObject);
		const ws = pkg?.workspaces;
		const pnpm = r.has(root, "pnpm-workspace.yaml")
			? r.parse(joinRel(root, "pnpm-workspace.yaml"), "pnpm-workspace.yaml", (t) => parseYaml(t) as unknown)
			: undefined;
		return [
			...stringList(isRecord(ws) ? ws.packages : ws),
			...stringList(isRecord(pnpm) ? pnpm.packages : undefined),
		];
	}
	if (ecosystem === "cargo") {
		const ws = r.parse(joinRel(root, "Cargo.toml"), "Cargo.toml", toml)?.workspace;
		return isRecord(ws) ? [...stringList(ws.members), ...negate(ws.exclude)] : [];
	}
	if (ecosystem === "python") {
		const tool = r.parse(joinRel(root, "pyproject.toml"), "pyproject.toml", toml)?.tool;
		const ws = isRecord(tool) && isRecord(tool.uv) ? tool.uv.workspace : undefined;
		return isRecord(ws) ? [...stringList(ws.members), ...negate(ws.exclude)] : [];
	}
	return []; // Go workspaces (go.work) are not read
}

/** Workspace globs ("packages/*", "./apps/**", "!packages/legacy") against a relative folder. */
function matchesGlobs(rel: string, globs: string[]): boolean {
	const clean = (g: string) => g.replace(/^\.\//, "").replace(/\/+$/, "");
	const include = globs.filter((g) => !g.startsWith("!")).map(clean);
	const exclude = globs.filter((g) => g.startsWith("!")).map((g) => clean(g.slice(1)));
	if (include.length === 0 || rel === "" || rel.startsWith("..")) return false;
	return picomatch(include)(rel) && (exclude.length === 0 || !picomatch(exclude)(rel));
}

/** TOML via Bun's parser; the top level is always a table. */
export function toml(text: string): Record<string, unknown> {
	return Bun.TOML.parse(text) as Record<string, unknown>;
}
