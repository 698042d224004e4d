// repo.search: a literal or a regular expression over the visible files, one match per line. The
// files come from the in-process listing; each is opened through a DirectoryReader (one check per
// directory), read into one reused buffer and scanned in its bytes where the query allows it
// (scan.ts). A large search shares its files, chunk by chunk, with a second thread
// (search-pool.ts); the chunks are merged back in order (search-files.ts). Work is bounded by the
// match limit, the size cap per file and cancellation.
import picomatch from "picomatch";
import { invalidArgument, ToolError } from "../errors.ts";
import { filesAt } from "./files.ts";
import { DirectoryReader, type RepoGuard } from "./guard.ts";
import { ReadBuffer } from "./read.ts";
import { type Match, type Scanner, type ScanSpec, scannerOf } from "./scan.ts";
import { CHUNK_FILES, type Chunk, matchCount, NEXT, NOTHING, STOP, takeChunk } from "./search-files.ts";
import { lend, searchTuning } from "./search-pool.ts";
import type { WorkerResult } from "./search-worker.ts";

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

interface Found {
	matches: Match[];
	truncated: boolean;
	files_searched: number;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const cancelled = () => new ToolError("cancelled", "repo.search was cancelled");

/** The scanner's recipe; a bad regular expression is refused here, before any file is listed. */
function specOf(o: SearchOptions): ScanSpec {
	const flags = `gm${o.caseSensitive ? "" : "i"}`;
	const source = o.regex ? o.query : escapeRegExp(o.query);
	try {
		new RegExp(source, flags);
	} catch (err) {
		throw invalidArgument(`argument 'query' is not a valid regular expression: ${(err as Error).message}`, {
			field: "query",
		});
	}
	return { query: o.query, literal: !o.regex, caseSensitive: o.caseSensitive, source, flags };
}

/** The chunks in file order, as one thread reading every file in turn would have met them. */
function merge(guard: RepoGuard, files: string[], chunks: Chunk[], limit: number): Found {
	const matches: Match[] = [];
	let searched = 0;
	for (const chunk of chunks.sort((a, b) => a.index - b.index)) {
		for (const [i, file] of chunk.files.entries()) {
			if (file === null) continue;
			// The second thread reads without the caller's read scope: it is applied here.
			const real = file === NOTHING ? (files[chunk.index * CHUNK_FILES + i] as string) : file.real;
			if (guard.refusal(real) !== undefined) continue;
			searched++;
			if (file === NOTHING) continue;
			// One more than the limit tells whether there were more.
			for (const m of file.matches.slice(0, limit + 1 - matches.length)) matches.push(m);
			if (matches.length > limit)
				return { matches: matches.slice(0, limit), truncated: true, files_searched: searched };
		}
	}
	return { matches, truncated: false, files_searched: searched };
}

/** The second thread's chunks, or undefined when it failed; a cancellation does not wait for it. */
function takeBack(theirs: Promise<WorkerResult>, signal: AbortSignal): Promise<WorkerResult | undefined> {
	return new Promise((resolve, reject) => {
		if (signal.aborted) return reject(cancelled());
		const onAbort = () => reject(cancelled());
		signal.addEventListener("abort", onAbort, { once: true });
		theirs
			.then(resolve, () => resolve(undefined))
			.finally(() => signal.removeEventListener("abort", onAbort));
	});
}

export async function searchRepo(guard: RepoGuard, o: SearchOptions): Promise<Found> {
	const spec = specOf(o);
	const listed = await filesAt(guard, o.path, o.signal);
	const wanted = o.globs.length > 0 ? picomatch(o.globs, { dot: true }) : undefined;
	const files = wanted ? listed.filter((rel) => wanted(rel)) : listed;
	const room = o.limit + 1;
	const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
	const state = new Int32Array(shared);
	const theirs =
		files.length >= searchTuning.parallelFrom
			? lend({ root: guard.root, files, spec, room, shared })
			: undefined;
	const scan: Scanner = scannerOf(spec);
	const reader = new DirectoryReader(guard);
	const buffer = new ReadBuffer();
	const chunks: Chunk[] = [];
	let found = 0;
	let lastYield = performance.now();
	try {
		while (Atomics.load(state, STOP) === 0) {
			// Reading is synchronous: yield now and then so other calls (and a cancellation) get through.
			if (performance.now() - lastYield > YIELD_EVERY_MS) {
				await new Promise((resolve) => setImmediate(resolve));
				lastYield = performance.now();
			}
			if (o.signal.aborted) throw cancelled();
			const chunk = takeChunk(files, state, room - found, reader, buffer, scan);
			if (chunk === undefined) break;
			chunks.push(chunk);
			found += matchCount(chunk);
			// Enough: the chunks taken so far hold the first `room` matches.
			if (found >= room) Atomics.store(state, STOP, 1);
		}
		if (theirs) {
			const back = await takeBack(theirs, o.signal);
			if (back) chunks.push(...back);
			else {
				// The second thread failed, and its stop flag ended the loop above too: every chunk
				// not read here is read now, in order, until the chunks read hold enough.
				const byIndex = new Map(chunks.map((c) => [c.index, c]));
				const own = new Int32Array(2);
				let prefix = 0;
				for (let index = 0; index * CHUNK_FILES < files.length && prefix < room; index++) {
					if (o.signal.aborted) throw cancelled();
					let chunk = byIndex.get(index);
					if (chunk === undefined) {
						own[NEXT] = index;
						chunk = takeChunk(files, own, room, reader, buffer, scan) as Chunk;
						chunks.push(chunk);
						searchTuning.reread++;
					}
					prefix += matchCount(chunk);
				}
			}
		}
		return merge(guard, files, chunks, o.limit);
	} finally {
		Atomics.store(state, STOP, 1);
		reader.close();
	}
}
