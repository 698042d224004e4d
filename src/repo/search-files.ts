// The files of a search, read and scanned a chunk at a time by whichever thread takes the next chunk
// from a counter both threads share (Atomics), so neither waits on the other's share of slow files.
// Each chunk is whole once taken, so the chunks taken always form a prefix of the sorted files:
// merged in order they give exactly what one thread reading every file in turn would.
import type { DirectoryReader, OpenedFile, RepoRel } from "./guard.ts";
import type { ReadBuffer } from "./read.ts";
import type { Match, Scanner } from "./scan.ts";

/** Files larger than this are skipped, like binary ones. */
export const MAX_SEARCH_FILE_BYTES = 16 * 1024 * 1024;
/** Files per chunk: small enough to balance two threads, large enough that taking one costs nothing. */
export const CHUNK_FILES = 64;
/** Indexes into the shared Int32s: a thread raises STOP when it wants no more taken; NEXT is the next chunk. */
export const STOP = 0;
export const NEXT = 1;

export interface Scanned {
	/** The file's real repo-relative path, which a read scope judges. */
	real: RepoRel;
	matches: Match[];
}

/**
 * One chunk's files in order: each scanned, or NOTHING (searched, no match, at its listed path:
 * most files, kept small for the trip between threads), or null (not searched).
 */
export interface Chunk {
	index: number;
	files: (Scanned | typeof NOTHING | null)[];
}

export const NOTHING = 0;

/** The matches of one listed file (at most `room`), or undefined when it is not searched. */
export function searchFile(
	reader: DirectoryReader,
	buffer: ReadBuffer,
	scan: Scanner,
	rel: RepoRel,
	room: number,
): Scanned | undefined {
	let file: OpenedFile;
	try {
		file = reader.open(rel);
	} catch {
		return undefined; // gone, a symlink out of the repository, not a regular file, out of scope: skipped
	}
	const bytes = buffer.read(file, MAX_SEARCH_FILE_BYTES);
	if (bytes === undefined) return undefined; // binary or too large
	const matches: Match[] = [];
	scan(bytes, rel, room, matches);
	return { real: file.rel, matches };
}

/**
 * Takes chunks until none are left, STOP is up, or this thread's chunks hold `room` matches (then
 * it raises STOP: the prefix taken so far is enough). The second thread's loop; the calling thread
 * runs its own, which yields between chunks.
 */
export function searchChunks(
	files: RepoRel[],
	state: Int32Array,
	room: number,
	reader: DirectoryReader,
	buffer: ReadBuffer,
	scan: Scanner,
): Chunk[] {
	const chunks: Chunk[] = [];
	let found = 0;
	while (Atomics.load(state, STOP) === 0) {
		const chunk = takeChunk(files, state, room - found, reader, buffer, scan);
		if (chunk === undefined) break;
		chunks.push(chunk);
		found += matchCount(chunk);
		if (found >= room) Atomics.store(state, STOP, 1);
	}
	return chunks;
}

/** The next chunk, read and scanned; undefined when every chunk is taken. */
export function takeChunk(
	files: RepoRel[],
	state: Int32Array,
	room: number,
	reader: DirectoryReader,
	buffer: ReadBuffer,
	scan: Scanner,
): Chunk | undefined {
	const index = Atomics.add(state, NEXT, 1);
	const start = index * CHUNK_FILES;
	if (start >= files.length) return undefined;
	const out: Chunk = { index, files: [] };
	// This thread's earlier chunks all come before this one, so `room` less what they hold is all
	// any file here can add; once it is used up, the search ends at or before that file.
	let left = room;
	for (const rel of files.slice(start, start + CHUNK_FILES)) {
		const scanned = left > 0 ? (searchFile(reader, buffer, scan, rel, left) ?? null) : null;
		out.files.push(scanned && scanned.matches.length === 0 && scanned.real === rel ? NOTHING : scanned);
		left -= scanned ? scanned.matches.length : 0;
	}
	return out;
}

/** How many matches a chunk holds. */
export function matchCount(chunk: Chunk): number {
	let n = 0;
	for (const f of chunk.files) if (f !== null && f !== NOTHING) n += f.matches.length;
	return n;
}
