import { type } from "arktype";
import { nonBlank, positiveInt } from "../domain/scalars.ts";
import { tool } from "./types.ts";

export const SYMBOL_LANGUAGES = ["typescript", "tsx", "javascript", "python", "go"] as const;
export const DEPENDENCY_ECOSYSTEMS = ["npm", "go", "cargo", "python"] as const;

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
		title: "Read a file",
		description:
			"Read one file of the repository (read-only). Paths are relative to the repository root; nothing outside it, and nothing in .git/ or .roundtable/, is served. Returns the text (or a line range of it) up to `max_bytes`, with its size and sha256; binary files come back with `binary: true` and no content.",
		args: type({
			path: nonBlank,
			"start_line?": positiveInt,
			"end_line?": positiveInt,
			"max_bytes?": type("1 <= number.integer <= 16777216").describe("an integer from 1 to 16777216"),
		}),
		argDocs: {
			path: "Repository-relative path (an absolute one must lie inside the repository).",
			start_line: "First line to return (1-based, default 1).",
			end_line: "Last line to return (inclusive, default the last line).",
			max_bytes:
				"Return at most this many bytes of content (default 1 MiB); `truncated` says when more was there.",
		},
		output: type({
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
		title: "Search the repository",
		description:
			"Search file contents: a case-insensitive literal by default, or a regular expression with `regex: true`. Honors .gitignore, skips binary and very large files, and never looks in .git/ or .roundtable/. Matches are sorted by path and line, one per line, with the column of the first match.",
		args: type({
			query: nonBlank,
			"regex?": "boolean",
			"case_sensitive?": "boolean",
			"path?": nonBlank,
			"glob?": nonBlank.or(nonBlank.array()),
			"limit?": type("1 <= number.integer <= 5000").describe("an integer from 1 to 5000"),
		}),
		argDocs: {
			query: "The text to find, or a regular expression with `regex: true`.",
			regex: "Treat `query` as a JavaScript regular expression (default false).",
			case_sensitive: "Match case exactly (default false).",
			path: "A file, or a directory searched recursively (default the whole repository).",
			glob: "Only files whose repository-relative path matches this glob (or any of these globs), e.g. `**/*.ts`.",
			limit: "At most this many matches (default 200, at most 5000); `truncated` says when there were more.",
		},
		output: type({
			matches: type({ path: "string", line: positiveInt, column: positiveInt, content: "string" }).array(),
			truncated: "boolean",
			files_searched: int0,
		}),
		mutates: false,
	}),
	tool({
		name: "repo.symbols",
		family: "repo",
		title: "List symbols",
		description:
			"Functions, classes, methods, interfaces, types and constants declared in TypeScript, TSX, JavaScript, Python and Go files, parsed with tree-sitter. `path` may be a file or a directory. A file with syntax errors still yields the symbols that parsed, and the errors are listed.",
		args: type({
			"path?": nonBlank,
			"language?": type.enumerated(...SYMBOL_LANGUAGES),
			"kind?": nonBlank,
			"name?": nonBlank,
			"limit?": type("1 <= number.integer <= 20000").describe("an integer from 1 to 20000"),
		}),
		argDocs: {
			path: "A file or a directory (default the whole repository).",
			language: "Only files of this language.",
			kind: "Only symbols of this kind (function, method, class, interface, type, enum, struct, const).",
			name: "Only symbols whose name contains this text (case-insensitive).",
			limit:
				"At most this many symbols (default 2000, at most 20000); `truncated` says when there were more.",
		},
		output: type({
			symbols: symbol.array(),
			errors: type({ path: "string", line: positiveInt, message: "string" }).array(),
			truncated: "boolean",
		}),
		mutates: false,
	}),
	tool({
		name: "repo.dependency_context",
		family: "repo",
		title: "Dependency context",
		description:
			"For a manifest, lockfile, source file or directory: the governing manifests and lockfiles (npm/bun/pnpm/yarn, Go, Cargo, Python), the direct dependencies with their declared ranges and resolved versions, the transitive ones marked as such, dev versus runtime, and for a source file which of its imports map to which dependency. Every fact names the file it came from; an import that cannot be mapped with certainty is `unresolved`; a manifest or lockfile that does not parse is skipped and named in `warnings`. Nothing is fetched.",
		args: type({ path: nonBlank }),
		argDocs: { path: "A manifest, lockfile, source file or directory of the repository." },
		output: type({
			path: "string",
			target: "'manifest' | 'lockfile' | 'source' | 'directory'",
			projects: project.array(),
			imports: importRecord.array(),
			warnings: "string[]",
		}),
		mutates: false,
	}),
] as const;
