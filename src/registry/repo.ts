import { type } from "arktype";
import { nonBlank } from "../domain/scalars.ts";
import { pendingRecord } from "./records.ts";
import { tool } from "./types.ts";

export const repoTools = [
	tool({
		name: "repo.read_file",
		family: "repo",
		title: "Read a file",
		description: "Read one file of the repository (read-only; paths stay inside the repository root).",
		args: type({ path: nonBlank }),
		output: type({ path: "string", content: "string" }),
		mutates: false,
	}),
	tool({
		name: "repo.search",
		family: "repo",
		title: "Search the repository",
		description: "Case-insensitive text search over the repository's files, honoring .gitignore.",
		args: type({ query: nonBlank, "path?": nonBlank }),
		output: type({ matches: pendingRecord.array() }),
		mutates: false,
	}),
	tool({
		name: "repo.symbols",
		family: "repo",
		title: "List symbols",
		description:
			"Functions, classes, methods and types declared in a file (TypeScript, JavaScript, Python, Go).",
		args: type({ "path?": nonBlank, "language?": nonBlank }),
		output: type({ symbols: pendingRecord.array() }),
		mutates: false,
	}),
	tool({
		name: "repo.dependency_context",
		family: "repo",
		title: "Dependency context",
		description:
			"Read manifests and lockfiles and report which dependency versions are declared, which are resolved, and which are transitive.",
		args: type({ path: nonBlank }),
		output: pendingRecord,
		mutates: false,
	}),
] as const;
