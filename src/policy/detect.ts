// Which profiles a change brings in, from its risk, the paths it touches and the lines it adds.
import picomatch from "picomatch";
import { commandPattern } from "../domain/security-scan.ts";
import type { EvaluationInput, Policy } from "./types.ts";

type Change = Pick<EvaluationInput, "risk" | "touched" | "added">;

const MANIFESTS = new Set([
	"package.json",
	"package-lock.json",
	"npm-shrinkwrap.json",
	"pnpm-lock.yaml",
	"yarn.lock",
	"bun.lock",
	"go.mod",
	"go.sum",
	"Cargo.toml",
	"Cargo.lock",
	"pyproject.toml",
	"poetry.lock",
	"uv.lock",
]);

const segments = (path: string) => path.replace(/^\.\//, "").split("/");
const basename = (path: string) => segments(path).at(-1) ?? "";

const isDependencyManifest = (path: string) => {
	const name = basename(path);
	return MANIFESTS.has(name) || /^requirements.*\.txt$/.test(name);
};

/** A file under a `migrations/` directory at any depth (not a file named `migrations.ts`). */
const isMigration = (path: string) => segments(path).slice(0, -1).includes("migrations");

export const isHighRisk = (risk: EvaluationInput["risk"]) => risk === "high" || risk === "critical";

// Compiled once per policy, not once per proposal: a Chair tick judges hundreds of proposals
// against the same policy. Keyed by the policy's own arrays, which a reload replaces, never edits.
const pathMatchers = new WeakMap<readonly string[], (path: string) => boolean>();
const commandPatterns = new WeakMap<readonly string[], { command: string; pattern: RegExp | null }[]>();

/**
 * A path matcher for risk.high_paths. A pattern without a `/` matches the file name at any depth
 * (as in .gitignore), so `Dockerfile` covers `services/api/Dockerfile`; the others match the whole
 * path. `dot: true` lets `*` match dotfiles such as `.env.local`. (picomatch's own `basename`
 * option is not used: it also changes how patterns with a `/` match.)
 */
function highPathMatcher(patterns: readonly string[]): (path: string) => boolean {
	let matches = pathMatchers.get(patterns);
	if (!matches) {
		const byPath = picomatch(
			patterns.filter((p) => p.includes("/")),
			{ dot: true },
		);
		const byName = picomatch(
			patterns.filter((p) => !p.includes("/")),
			{ dot: true },
		);
		matches = (path) => byPath(path) || byName(basename(path));
		pathMatchers.set(patterns, matches);
	}
	return matches;
}

/** The touched paths matching risk.high_paths (see highPathMatcher). */
export function highRiskPaths(policy: Policy, touched: string[]): string[] {
	const matches = highPathMatcher(policy.risk.high_paths);
	return [...new Set(touched)]
		.map((path) => path.replace(/^\.\//, ""))
		.filter(matches)
		.sort();
}

/** The configured dangerous commands that some added line runs, in policy order. */
export function dangerousCommands(dangerous: string[], added: Change["added"]): string[] {
	let patterns = commandPatterns.get(dangerous);
	if (!patterns) {
		patterns = dangerous.map((command) => ({ command, pattern: commandPattern(command) }));
		commandPatterns.set(dangerous, patterns);
	}
	return patterns
		.filter(({ pattern }) => pattern !== null && added.some((line) => pattern.test(line.text)))
		.map(({ command }) => command);
}

export interface Detection {
	profiles: string[];
	high_risk_paths: string[];
	dangerous_commands: string[];
}

/** The detected profiles (`default` first, then in policy order) and what brought them in. */
export function detect(policy: Policy, change: Change): Detection {
	const touched = [...new Set(change.touched)];
	const high_risk_paths = highRiskPaths(policy, touched);
	const dangerous_commands = dangerousCommands(policy.commands.dangerous, change.added);
	// Only files inside a directory count toward directories spanned; a root file spans none.
	const topDirs = new Set(touched.map(segments).flatMap((s) => (s.length > 1 ? [s[0]] : [])));
	const applies: Record<string, boolean> = {
		default: true,
		architecture:
			touched.length >= policy.architecture.min_files ||
			topDirs.size >= policy.architecture.min_top_level_dirs,
		security: isHighRisk(change.risk) || high_risk_paths.length > 0,
		dependency_change: touched.some(isDependencyManifest),
		destructive_command: dangerous_commands.length > 0,
		migration: touched.some(isMigration),
	};
	const profiles = ["default", ...Object.keys(policy.consensus).filter((n) => n !== "default")].filter(
		(name) => applies[name] === true,
	);
	return { profiles, high_risk_paths, dangerous_commands };
}
