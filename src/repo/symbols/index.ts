// repo.symbols: the declarations of a file or of every supported file under a directory, found by
// tree-sitter (engine.ts, loaded on first use). Every read goes through the guard; a file with
// syntax errors still gives the symbols that parsed, and the errors are listed beside them.
import { ToolError } from "../../errors.ts";
import { filesAt } from "../files.ts";
import type { RepoGuard } from "../guard.ts";
import { readText } from "../read.ts";
import { languageOf, type SymbolLanguage } from "./languages.ts";

export interface SymbolQuery {
	path: string | undefined;
	language: SymbolLanguage | undefined;
	kind: string | undefined;
	name: string | undefined;
	limit: number;
	signal: AbortSignal;
}

export interface SymbolRecord {
	path: string;
	language: SymbolLanguage;
	kind: string;
	name: string;
	start_line: number;
	end_line: number;
	resource_id: string;
}

export interface SymbolError {
	path: string;
	line: number;
	message: string;
}

/** Larger files are skipped: nobody hand-writes 16 MiB of source, and parsing it would stall. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Parsing is synchronous; yielding this often lets a cancellation (or other calls) get through. */
const YIELD_EVERY_MS = 20;

let engine: Promise<typeof import("./engine.ts")> | undefined;
const loadEngine = () => {
	engine ??= import("./engine.ts");
	return engine;
};

const cancelled = () => new ToolError("cancelled", "the call was cancelled");

/** Code-unit order, the same order listFiles sorts paths in (localeCompare would differ). */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const bySpot = (a: SymbolRecord, b: SymbolRecord) =>
	cmp(a.path, b.path) || a.start_line - b.start_line || cmp(a.name, b.name);

export async function listSymbols(
	guard: RepoGuard,
	q: SymbolQuery,
): Promise<{ symbols: SymbolRecord[]; errors: SymbolError[]; truncated: boolean }> {
	if (q.signal.aborted) throw cancelled();
	const files = await filesAt(guard, q.path);
	const needle = q.name?.toLowerCase();
	const symbols: SymbolRecord[] = [];
	const errors: SymbolError[] = [];
	let lastYield = performance.now();
	for (const rel of files) {
		if (q.signal.aborted) throw cancelled();
		const language = languageOf(rel);
		if (!language || (q.language !== undefined && language !== q.language)) continue;
		const text = readText(guard, rel, MAX_FILE_BYTES); // undefined: binary, too large or unreadable
		if (text === undefined) continue;
		const read = await (await loadEngine()).readerFor(language);
		const found = read(text);
		for (const s of found.symbols) {
			if (q.kind !== undefined && s.kind !== q.kind) continue;
			if (needle !== undefined && !s.name.toLowerCase().includes(needle)) continue;
			symbols.push({ path: rel, language, ...s, resource_id: `symbol:${rel}#${s.name}` });
		}
		for (const e of found.errors) errors.push({ path: rel, ...e });
		// Files come sorted by path, so once past the limit no later file can sort before the cut.
		// (The errors then cover the files read, which is all a caller sees symbols from.)
		if (symbols.length > q.limit) break;
		if (performance.now() - lastYield > YIELD_EVERY_MS) {
			await new Promise((resolve) => setImmediate(resolve));
			lastYield = performance.now();
		}
	}
	symbols.sort(bySpot);
	return { symbols: symbols.slice(0, q.limit), errors, truncated: symbols.length > q.limit };
}
