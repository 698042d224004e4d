// What a claim's arguments point at in the repository: the resource's canonical id, its path (a
// directory or not), and a symbol's lines as given or as repo.symbols finds them.
import { statSync } from "node:fs";
import { canonicalId, isPathType, parseCanonicalId, type Scope } from "../domain/claims.ts";
import { invalidArgument, notFound } from "../errors.ts";
import type { Args } from "../registry/index.ts";
import type { RepoGuard } from "../repo/guard.ts";
import { listSymbols } from "../repo/symbols/index.ts";
import { languageOf } from "../repo/symbols/languages.ts";

/** What a claim argument set points at, checked against the repository. */
export async function scopeOf(
	guard: RepoGuard,
	a: Args<"resource.claim">,
): Promise<Scope & { language: string | null }> {
	const type = a.resource_type;
	if (!isPathType(type)) {
		for (const field of ["path", "symbol", "start_line", "end_line"] as const) {
			if (a[field] !== undefined)
				throw invalidArgument(`${field} applies to file, directory and symbol claims only`, { field });
		}
		return {
			resource_id: a.resource_id,
			resource_type: type,
			path: null,
			symbol: null,
			start_line: null,
			end_line: null,
			language: null,
		};
	}
	const named = parseCanonicalId(a.resource_id);
	if (named && named.type !== type) {
		throw invalidArgument(`resource_id names a ${named.type} but resource_type is ${type}`, {
			field: "resource_id",
		});
	}
	const given = a.path ?? named?.path;
	if (given === undefined) {
		throw invalidArgument(`a ${type} claim needs path (or a resource_id like ${type}:<path>)`, {
			field: "path",
		});
	}
	const path = type === "directory" && (given === "" || given === ".") ? "" : guard.relative(given);
	if (type !== "directory" && (path === "" || isDirectory(guard, path))) {
		throw invalidArgument(`${given === "" ? "." : given} is a directory: claim it as directory:${path}`, {
			field: "path",
			did_you_mean: `directory:${path}`,
		});
	}
	const symbol = type === "symbol" ? (a.symbol ?? named?.symbol ?? null) : null;
	if (type === "symbol" && symbol === null) {
		throw invalidArgument("a symbol claim needs symbol (or a resource_id like symbol:<path>#<name>)", {
			field: "symbol",
		});
	}
	if (type !== "symbol" && a.symbol !== undefined)
		throw invalidArgument("symbol applies to symbol claims only", { field: "symbol" });
	const id = canonicalId(type, path, symbol);
	if (a.resource_id !== id) {
		throw invalidArgument(`resource_id for this ${type} must be '${id}'`, {
			field: "resource_id",
			did_you_mean: id,
		});
	}
	let lines = { start_line: null as number | null, end_line: null as number | null };
	if (type === "symbol") lines = await symbolLines(guard, path, symbol as string, a);
	else if (a.start_line !== undefined || a.end_line !== undefined) {
		throw invalidArgument("start_line and end_line apply to symbol claims only", { field: "start_line" });
	}
	return {
		resource_id: id,
		resource_type: type,
		path,
		symbol,
		...lines,
		language: type === "directory" ? null : (languageOf(path) ?? null),
	};
}

function isDirectory(guard: RepoGuard, path: string): boolean {
	try {
		return statSync(guard.resolve(path).abs).isDirectory();
	} catch {
		return false; // not there yet: a file about to be created
	}
}

/** A symbol's lines: as given, or as repo.symbols finds them. */
async function symbolLines(guard: RepoGuard, path: string, symbol: string, a: Args<"resource.claim">) {
	if ((a.start_line === undefined) !== (a.end_line === undefined)) {
		throw invalidArgument("give both start_line and end_line, or neither", {
			field: a.start_line === undefined ? "start_line" : "end_line",
		});
	}
	if (a.start_line !== undefined && a.end_line !== undefined) {
		if (a.end_line < a.start_line)
			throw invalidArgument("end_line comes before start_line", { field: "end_line" });
		return { start_line: a.start_line, end_line: a.end_line };
	}
	const found = await listSymbols(guard, {
		path,
		language: undefined,
		kind: undefined,
		name: symbol,
		limit: 20000,
		signal: new AbortController().signal,
	});
	const hit = found.symbols.find((s) => s.name === symbol);
	if (!hit) {
		throw notFound(`symbol ${symbol} not found in ${path}; give start_line and end_line to claim it anyway`, {
			path,
			symbol,
		});
	}
	return { start_line: hit.start_line, end_line: hit.end_line };
}
