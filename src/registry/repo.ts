import { nonBlank, positiveInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { DEPENDENCY_ECOSYSTEMS, SYMBOL_LANGUAGES } from "../vocabulary/statuses.ts";
import { tool, WORKERS } from "./types.ts";

const int0 = "number.integer >= 0";

const symbol = type({
	path: "string",
	language: type.enumerated(...SYMBOL_LANGUAGES),
	kind: "string",
	name: "string",
	start_line: positiveInt,
	end_line: positiveInt,
	resource_id: "string",
});

const source = type({ file: "string", kind: "'manifest' | 'lockfile'" });

const dependency = type({
	name: "string",
	scope: "'runtime' | 'dev' | 'optional' | 'peer' | 'build'",
	relation: "'direct' | 'transitive'",
	declared: "string | null",
	resolved: "string | null",
	sources: source.array(),
});

const project = type({
	ecosystem: type.enumerated(...DEPENDENCY_ECOSYSTEMS),
	manifest: "string | null",
	lockfiles: "string[]",
	dependencies: dependency.array(),
});

const importRecord = type({
	specifier: "string",
	line: positiveInt,
	status: "'dependency' | 'builtin' | 'relative' | 'unresolved'",
	dependency: "string | null",
	ecosystem: type.enumerated(...DEPENDENCY_ECOSYSTEMS).or("null"),
	reason: "string | null",
});

export const repoTools = [
	tool({
		name: "repo.read_file",
		family: "repo",
		access: WORKERS,
		reads: "claimed",
		title: "Read a file",
		description:
			"Read a repository file or line range, with its sha256. Next: resource.claim what you will change.",
		details:
			"Read one file of the repository (read-only). Paths are relative to the repository root; nothing outside it, and nothing in .git/ or .roundtable/, is served. Returns the text (or a line range of it) up to `max_bytes`, with its size and sha256; binary files come back with `binary: true` and no content.",
		args: () =>
			type({
				path: nonBlank,
				"start_line?": positiveInt,
				"end_line?": positiveInt,
				"max_bytes?": type("1 <= number.integer <= 16777216").describe("an integer from 1 to 16777216"),
			}),
		argDocs: {
			path: "Repository-relative path.",
			start_line: "First line (default 1).",
			end_line: "Last line (default end).",
			max_bytes: "Cap (default 1 MiB).",
		},
		output: () =>
			type({
				path: "string",
				size: int0,
				sha256: "string",
				binary: "boolean",
				content: "string | null",
				truncated: "boolean",
				start_line: positiveInt,
				end_line: int0,
				total_lines: int0,
			}),
		mutates: false,
	}),
	tool({
		name: "repo.search",
		family: "repo",
		access: WORKERS,
		reads: "claimed",
		title: "Search the repository",
		description:
			"Search file contents (honors .gitignore) to find code. Next: repo.read_file around a match.",
		details:
			"Search file contents: a case-insensitive literal by default, or a regular expression with `regex: true`. Honors .gitignore, skips binary and very large files, and never looks in .git/ or .roundtable/. Matches are sorted by path and line, one per line, with the column of the first match.",
		args: () =>
			type({
				query: nonBlank,
				"regex?": "boolean",
				"case_sensitive?": "boolean",
				"path?": nonBlank,
				"glob?": nonBlank.or(nonBlank.array()),
				"limit?": type("1 <= number.integer <= 5000").describe("an integer from 1 to 5000"),
			}),
		argDocs: {
			query: "Text, case-insensitive.",
			regex: "query is a JS regex.",
			case_sensitive: "Match case.",
			path: "File or directory (default all).",
			glob: "Only paths matching, e.g. **/*.ts.",
			limit: "Max matches (default 200).",
		},
		output: () =>
			type({
				matches: type({ path: "string", line: positiveInt, column: positiveInt, content: "string" }).array(),
				truncated: "boolean",
				files_searched: int0,
			}),
		mutates: false,
	}),
	tool({
		name: "repo.symbols",
		family: "repo",
		access: WORKERS,
		reads: "claimed",
		title: "List symbols",
		description:
			"Declarations in TS, JS, Python and Go files, to find code. Next: resource.claim symbol:<path>#<name>.",
		details:
			"Functions, classes, methods, interfaces, types and constants declared in TypeScript, TSX, JavaScript, Python and Go files, parsed with tree-sitter. `path` may be a file or a directory. A file with syntax errors still yields the symbols that parsed, and the errors are listed.",
		args: () =>
			type({
				"path?": nonBlank,
				"language?": type.enumerated(...SYMBOL_LANGUAGES),
				"kind?": nonBlank,
				"name?": nonBlank,
				"limit?": type("1 <= number.integer <= 20000").describe("an integer from 1 to 20000"),
			}),
		argDocs: {
			path: "File or directory (default all).",
			language: "Only this language.",
			kind: "e.g. function, class, type.",
			name: "Name contains this.",
			limit: "Max symbols (default 2000).",
		},
		output: () =>
			type({
				symbols: symbol.array(),
				errors: type({ path: "string", line: positiveInt, message: "string" }).array(),
				truncated: "boolean",
			}),
		mutates: false,
	}),
	tool({
		name: "repo.dependency_context",
		family: "repo",
		access: WORKERS,
		reads: "claimed",
		title: "Dependency context",
		description:
			"Manifests, lockfiles, dependency versions and import mapping for a path, each with its source file; before touching dependencies. Next: resource.claim the manifest.",
		details:
			"For a manifest, lockfile, source file or directory: the governing manifests and lockfiles (npm/bun/pnpm/yarn, Go, Cargo, Python), the direct dependencies with their declared ranges and resolved versions, the transitive ones marked as such, dev versus runtime, and for a source file which of its imports map to which dependency. Every fact names the file it came from; an import that cannot be mapped with certainty is `unresolved`; a manifest or lockfile that does not parse is skipped and named in `warnings`. Nothing is fetched.",
		args: () => type({ path: nonBlank }),
		argDocs: {
			path: "Manifest, lockfile, source or directory.",
		},
		output: () =>
			type({
				path: "string",
				target: "'manifest' | 'lockfile' | 'source' | 'directory'",
				projects: project.array(),
				imports: importRecord.array(),
				warnings: "string[]",
			}),
		mutates: false,
	}),
] as const;
