// repo.search: a literal or a regular expression over the visible files, one match per line.
import picomatch from "picomatch";
import { invalidArgument, ToolError } from "../errors.ts";
import { filesAt } from "./files.ts";
import type { RepoGuard, RepoRel } from "./guard.ts";
import { readText } from "./read.ts";

/** Files larger than this are skipped, like binary ones. */
const MAX_SEARCH_FILE_BYTES = 16 * 1024 * 1024;
const YIELD_EVERY_MS = 20;
/** A matching line longer than this is cut in the result (the match itself is still reported). */
const MAX_LINE_CHARS = 1000;

export interface SearchOptions {
	query: string;
	regex: boolean;
	caseSensitive: boolean;
	path: string | undefined;
	globs: string[];
	limit: number;
	signal: AbortSignal;
}

export interface Match {
	path: string;
	line: number;
	column: number;
	content: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function compile(o: SearchOptions): RegExp {
	const flags = `gm${o.caseSensitive ? "" : "i"}`;
	if (!o.regex) return new RegExp(escapeRegExp(o.query), flags);
	try {
		return new RegExp(o.query, flags);
	} catch (err) {
		throw invalidArgument(`argument 'query' is not a valid regular expression: ${(err as Error).message}`, {
			field: "query",
		});
	}
}

/** Appends the matches of one file, at most one per line, stopping after `room` of them. */
function scan(text: string, pattern: RegExp, path: RepoRel, room: number, out: Match[]): void {
	pattern.lastIndex = 0;
	let line = 1;
	let counted = 0; // text before this offset has been counted into `line`
	let found = 0;
	for (;;) {
		const m = pattern.exec(text);
		if (!m) return;
		for (let i = text.indexOf("\n", counted); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1)) line++;
		counted = m.index;
		const lineStart = text.lastIndexOf("\n", m.index - 1) + 1;
		const newline = text.indexOf("\n", m.index);
		const lineEnd = newline === -1 ? text.length : newline;
		const content = text.slice(lineStart, lineEnd).replace(/\r$/, "");
		out.push({
			path,
			line,
			column: m.index - lineStart + 1,
			content: content.length > MAX_LINE_CHARS ? `${content.slice(0, MAX_LINE_CHARS)}…` : content,
		});
		if (++found >= room || newline === -1) return;
		// One match per line: go on from the next line.
		pattern.lastIndex = newline + 1;
		counted = newline;
	}
}

export async function searchRepo(
	guard: RepoGuard,
	o: SearchOptions,
): Promise<{ matches: Match[]; truncated: boolean; files_searched: number }> {
	const pattern = compile(o);
	const files = await filesAt(guard, o.path);
	const wanted = o.globs.length > 0 ? picomatch(o.globs, { dot: true }) : undefined;
	const matches: Match[] = [];
	let searched = 0;
	let lastYield = performance.now();
	for (const rel of files) {
		// Reading is synchronous: yield now and then so other calls (and a cancellation) get through.
		if (performance.now() - lastYield > YIELD_EVERY_MS) {
			await new Promise((resolve) => setImmediate(resolve));
			lastYield = performance.now();
		}
		if (o.signal.aborted) throw new ToolError("cancelled", "repo.search was cancelled");
		if (wanted && !wanted(rel)) continue;
		const text = readText(guard, rel, MAX_SEARCH_FILE_BYTES);
		if (text === undefined) continue;
		searched++;
		// One more than the limit tells whether there were more.
		scan(text, pattern, rel, o.limit + 1 - matches.length, matches);
		if (matches.length > o.limit)
			return { matches: matches.slice(0, o.limit), truncated: true, files_searched: searched };
	}
	return { matches, truncated: false, files_searched: searched };
}
