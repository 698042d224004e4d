// Rules for the repository paths and globs an operator lets a task's assignee read. A pattern may
// never name a place that holds credentials or configuration, nor leave the repository. Matching
// (when capability tokens arrive) uses picomatch with `dot: false`, so a wildcard never reaches a
// dot-file or dot-directory by itself; those can only be named explicitly, which is checked here.

import picomatch from "picomatch";
import { invalidArgument } from "../errors.ts";
import { DOT } from "../layout.ts";

const SENSITIVE_EXACT = new Set([
	".git",
	DOT,
	".ssh",
	".aws",
	".gnupg",
	".docker",
	".kube",
	".npmrc",
	".yarnrc",
	".yarnrc.yml",
	".pypirc",
	".netrc",
	".git-credentials",
]);
const KEY_FILE = /^id_(rsa|dsa|ecdsa|ed25519)|\.(pem|key|crt|cer|der|p12|pfx|jks|keystore)$/;

/** A file or directory name that holds credentials or configuration. */
export function isSensitiveName(name: string): boolean {
	const n = name.toLowerCase();
	return n.startsWith(".env") || SENSITIVE_EXACT.has(n) || KEY_FILE.test(n);
}

// A glob segment names a sensitive kind when it matches one of these samples of that kind.
const SAMPLES = [
	...SENSITIVE_EXACT,
	".env",
	".env.local",
	".envrc",
	"id_rsa",
	"id_ed25519",
	...["pem", "key", "crt", "cer", "der", "p12", "pfx", "jks", "keystore"].map((ext) => `server.${ext}`),
];

const isPureWildcard = (segment: string) => /^\*{1,2}$/.test(segment);
const hasGlob = (segment: string) => /[*?[\]{}()!+@]/.test(segment);

function namesSensitive(segment: string): string | undefined {
	if (!hasGlob(segment)) return isSensitiveName(segment) ? segment : undefined;
	const matches = picomatch(segment, { dot: false, nocase: true });
	return SAMPLES.find((name) => matches(name));
}

/** Normalizes each pattern or throws invalid_argument naming the offending entry. */
export function checkReadablePaths(patterns: readonly string[], name = "readable_paths"): string[] {
	return patterns.map((raw, i) => {
		const field = `${name}[${i}]`;
		const refuse = (why: string) => {
			throw invalidArgument(`${field} '${raw}' is refused: ${why}`, { field });
		};
		const pattern = raw.trim().replace(/^(\.\/)+/, "");
		if (pattern === "" || pattern === ".") refuse("name a path or glob inside the repository");
		if (pattern.includes("\0")) refuse("it contains a NUL byte");
		if (pattern.includes("\\")) refuse("use forward slashes");
		if (pattern.startsWith("/") || pattern.startsWith("~") || /^[A-Za-z]:/.test(pattern)) {
			refuse("it must be relative to the repository root");
		}
		const segments = pattern.split("/");
		if (segments.includes("..")) refuse("it leaves the repository");
		for (const segment of segments) {
			if (segment === "" || segment === "." || isPureWildcard(segment)) continue;
			const hit = namesSensitive(segment);
			if (hit !== undefined) refuse(`it could reach credentials or configuration (like '${hit}')`);
		}
		return pattern;
	});
}

/**
 * A run's scope: folders or files (no globs, so what lies inside one is exact), each as a readable
 * path must be.
 */
export function checkScope(paths: readonly string[]): string[] {
	return checkReadablePaths(paths, "scope").map((p, i) => {
		if (p.split("/").some(hasGlob))
			throw invalidArgument(`scope[${i}] '${p}' is refused: a scope names folders or files, not globs`, {
				field: `scope[${i}]`,
			});
		return p.replace(/\/+$/, "");
	});
}

/**
 * Whether everything a readable path or glob can match lies inside the scope (empty: the whole
 * repository): its part before the first wildcard segment is one of the scope's folders or files, or
 * below one. `src/*.ts` and `src/lib` are inside `src`; `*.ts` and `src*` are inside no folder.
 */
export function insideScope(pattern: string, scope: readonly string[]): boolean {
	if (scope.length === 0) return true;
	const segments = pattern.replace(/\/+$/, "").split("/");
	const wild = segments.findIndex(hasGlob);
	const fixed = (wild === -1 ? segments : segments.slice(0, wild)).join("/");
	return fixed !== "" && scope.some((s) => fixed === s || fixed.startsWith(`${s}/`));
}
