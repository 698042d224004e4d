// repo.search: a literal or a regular expression over the visible files, one match per line. The
// files come from the in-process listing; each is opened through a DirectoryReader (one check per
// directory), read into one reused buffer and scanned in its bytes where the query allows it
// (scan.ts). Work is bounded by the match limit, the size cap per file and cancellation.
import picomatch from "picomatch";
import { invalidArgument, ToolError } from "../errors.ts";
import { filesAt } from "./files.ts";
import { DirectoryReader, type OpenedFile, type RepoGuard } from "./guard.ts";
import { ReadBuffer } from "./read.ts";
import { asciiScanner, type Match, type Scanner, textScanner } from "./scan.ts";

/** Files larger than this are skipped, like binary ones. */
const MAX_SEARCH_FILE_BYTES = 16 * 1024 * 1024;
const YIELD_EVERY_MS = 20;

export interface SearchOptions {
	query: string;
	regex: boolean;
	caseSensitive: boolean;
	path: string | undefined;
	globs: string[];
	limit: number;
	signal: AbortSignal;
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

function scanner(o: SearchOptions): Scanner {
	const pattern = compile(o); // a bad regular expression is refused before any file is listed
	return (!o.regex && asciiScanner(o.query, o.caseSensitive)) || textScanner(pattern);
}

export async function searchRepo(
	guard: RepoGuard,
	o: SearchOptions,
): Promise<{ matches: Match[]; truncated: boolean; files_searched: number }> {
	const scan = scanner(o);
	const files = await filesAt(guard, o.path, o.signal);
	const wanted = o.globs.length > 0 ? picomatch(o.globs, { dot: true }) : undefined;
	const reader = new DirectoryReader(guard);
	const buffer = new ReadBuffer();
	const matches: Match[] = [];
	let searched = 0;
	let lastYield = performance.now();
	try {
		for (const rel of files) {
			// Reading is synchronous: yield now and then so other calls (and a cancellation) get through.
			if (performance.now() - lastYield > YIELD_EVERY_MS) {
				await new Promise((resolve) => setImmediate(resolve));
				lastYield = performance.now();
			}
			if (o.signal.aborted) throw new ToolError("cancelled", "repo.search was cancelled");
			if (wanted && !wanted(rel)) continue;
			let file: OpenedFile;
			try {
				file = reader.open(rel);
			} catch {
				continue; // gone, a symlink out of the repository, not a regular file, out of scope: skipped
			}
			const bytes = buffer.read(file, MAX_SEARCH_FILE_BYTES);
			if (bytes === undefined) continue;
			searched++;
			// One more than the limit tells whether there were more.
			scan(bytes, rel, o.limit + 1 - matches.length, matches);
			if (matches.length > o.limit)
				return { matches: matches.slice(0, o.limit), truncated: true, files_searched: searched };
		}
	} finally {
		reader.close();
	}
	return { matches, truncated: false, files_searched: searched };
}
