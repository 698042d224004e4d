// repo.read_file, repo.search, repo.symbols, repo.dependency_context: read-only views of the
// repository, every path through the one guard (src/repo/guard.ts).

import { invalidArgument, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { repoGuard } from "../handlers/env.ts";
import type { Args } from "../registry/index.ts";
import { dependencyContext as contextOf } from "./deps/index.ts";
import { readLines } from "./read.ts";
import { searchRepo } from "./search.ts";
import { listSymbols } from "./symbols/index.ts";

export async function readFile(a: Args<"repo.read_file">, env: Env) {
	const start = a.start_line ?? 1;
	const end = a.end_line ?? Number.POSITIVE_INFINITY;
	if (end < start) throw invalidArgument("end_line comes before start_line", { field: "end_line" });
	const file = repoGuard(env).open(a.path);
	return { path: a.path, ...readLines(file, start, end, a.max_bytes ?? 1024 * 1024) };
}

export function search(a: Args<"repo.search">, env: Env) {
	return searchRepo(repoGuard(env), {
		query: a.query,
		regex: a.regex ?? false,
		caseSensitive: a.case_sensitive ?? false,
		path: a.path,
		globs: a.glob === undefined ? [] : [a.glob].flat(),
		limit: a.limit ?? 200,
		signal: env.ctx.signal,
	});
}

export function symbols(a: Args<"repo.symbols">, env: Env) {
	return listSymbols(repoGuard(env), {
		path: a.path,
		language: a.language,
		kind: a.kind,
		name: a.name,
		limit: a.limit ?? 2000,
		signal: env.ctx.signal,
	});
}

export function dependencyContext(a: Args<"repo.dependency_context">, env: Env) {
	const guard = repoGuard(env);
	// An agent names a manifest or folder it may read; what it leads to is read through the same scope.
	if (env.reads) {
		const { rel } = guard.resolve(a.path);
		const why = guard.refusal(rel);
		if (why) throw new ToolError("permission_denied", `${a.path} may not be read: ${why}`, { path: a.path });
	}
	return contextOf(guard, a.path);
}
