// Rules for the repository paths and globs an operator lets a task's assignee read. A pattern may
// never name a place that holds credentials or configuration, nor leave the repository. Matching
// (when capability tokens arrive) uses picomatch with `dot: false`, so a wildcard never reaches a
// dot-file or dot-directory by itself; those can only be named explicitly, which is checked here.
import picomatch from "picomatch";
import { invalidArgument } from "../errors.ts";

// Sample names of every sensitive kind. A pattern segment that matches one of them names that kind.
const SENSITIVE_NAMES = [
	".git",
	".roundtable",
	".env",
	".env.local",
	".env.production",
	".ssh",
	".aws",
	".npmrc",
	".yarnrc",
	".yarnrc.yml",
	".pypirc",
	".netrc",
	".git-credentials",
	".gnupg",
	".docker",
	".kube",
	"id_rsa",
	"id_dsa",
	"id_ecdsa",
	"id_ed25519",
	"server.pem",
	"server.key",
	"server.crt",
	"server.cer",
	"server.der",
	"server.p12",
	"server.pfx",
	"server.jks",
	"server.keystore",
];

const isPureWildcard = (segment: string) => /^\*{1,2}$/.test(segment);

/** Normalizes each pattern or throws invalid_argument naming the offending entry. */
export function checkReadablePaths(patterns: readonly string[]): string[] {
	return patterns.map((raw, i) => {
		const field = `readable_paths[${i}]`;
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
			const matches = picomatch(segment, { dot: false });
			const hit = SENSITIVE_NAMES.find((name) => matches(name));
			if (hit !== undefined) refuse(`it could reach credentials or configuration (like '${hit}')`);
		}
		return pattern;
	});
}
