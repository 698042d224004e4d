// Reading files through the guard: whole files for search and symbols, and the streamed, bounded
// line-range read of repo.read_file (it hashes the whole file but keeps only what it returns).
import { closeSync, readSync } from "node:fs";
import { looksBinary } from "./files.ts";
import type { OpenedFile, RepoGuard } from "./guard.ts";

const CHUNK = 1 << 20;

/** The whole content of an opened file (the caller checked its size). Closes it. */
export function readAll(file: OpenedFile): Buffer {
	try {
		const buf = Buffer.allocUnsafe(file.stat.size);
		let at = 0;
		while (at < buf.length) {
			const n = readSync(file.fd, buf, at, buf.length - at, at);
			if (n === 0) break; // the file shrank meanwhile
			at += n;
		}
		return buf.subarray(0, at);
	} finally {
		closeSync(file.fd);
	}
}

/**
 * One buffer reused for every file a search reads, grown as files need (up to the search's bound),
 * instead of a new one per file.
 */
export class ReadBuffer {
	private bytes = Buffer.allocUnsafe(64 * 1024);

	/**
	 * The content of an opened file, valid until the next read; undefined when it is larger than
	 * `maxBytes` or binary (a NUL byte in its first 8000, as git decides). Closes the file.
	 */
	read(file: OpenedFile, maxBytes: number): Buffer | undefined {
		try {
			const size = file.stat.size;
			if (size > maxBytes) return undefined;
			if (size > this.bytes.length) this.bytes = Buffer.allocUnsafe(Math.max(size, this.bytes.length * 2));
			let at = 0;
			while (at < size) {
				const n = readSync(file.fd, this.bytes, at, size - at, at);
				if (n === 0) break; // the file shrank meanwhile
				at += n;
			}
			const content = this.bytes.subarray(0, at);
			return looksBinary(content) ? undefined : content;
		} finally {
			closeSync(file.fd);
		}
	}
}

/** A text file's content, or undefined when it is binary or larger than `maxBytes`. */
export function readText(guard: RepoGuard, rel: string, maxBytes: number): string | undefined {
	let file: OpenedFile;
	try {
		file = guard.open(rel);
	} catch {
		return undefined; // gone, a symlink out of the repository, not a regular file: skipped
	}
	if (file.stat.size > maxBytes) {
		closeSync(file.fd);
		return undefined;
	}
	const bytes = readAll(file);
	return looksBinary(bytes) ? undefined : bytes.toString("utf8");
}

export interface LineRange {
	content: string | null;
	binary: boolean;
	sha256: string;
	size: number;
	truncated: boolean;
	start_line: number;
	end_line: number;
	total_lines: number;
}

/** Cuts a byte buffer back to a whole UTF-8 character. */
function wholeUtf8(bytes: Buffer): Buffer {
	let end = bytes.length;
	let back = 0;
	while (end - back > 0 && back < 4 && ((bytes[end - back - 1] as number) & 0xc0) === 0x80) back++;
	const lead = bytes[end - back - 1];
	if (lead !== undefined && lead >= 0xc0) {
		const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
		if (back + 1 < need) end -= back + 1;
	}
	return bytes.subarray(0, end);
}

/** Lines start..end (1-based, inclusive) of an opened file, at most maxBytes of them. Closes it. */
export function readLines(file: OpenedFile, start: number, end: number, maxBytes: number): LineRange {
	const hasher = new Bun.CryptoHasher("sha256");
	const kept: Buffer[] = [];
	let keptBytes = 0;
	let truncated = false;
	let binary = false;
	let line = 1;
	let lastLine = start - 1;
	let size = 0;
	let lastByte = 0x0a;
	const chunk = Buffer.allocUnsafe(CHUNK);
	try {
		for (;;) {
			const n = readSync(file.fd, chunk, 0, CHUNK, null);
			if (n === 0) break;
			const data = chunk.subarray(0, n);
			hasher.update(data);
			if (size === 0 && looksBinary(data)) binary = true;
			size += n;
			lastByte = data[n - 1] as number;
			if (binary) continue;
			let from = 0;
			while (from < n) {
				const newline = data.indexOf(0x0a, from);
				const to = newline === -1 ? n : newline + 1;
				if (line >= start && line <= end && !truncated) {
					const piece = data.subarray(from, to);
					if (keptBytes + piece.length > maxBytes) {
						kept.push(Buffer.from(piece.subarray(0, maxBytes - keptBytes)));
						keptBytes = maxBytes;
						truncated = true;
					} else {
						kept.push(Buffer.from(piece));
						keptBytes += piece.length;
					}
					lastLine = line;
				}
				if (newline === -1) break;
				line++;
				from = to;
			}
		}
	} finally {
		closeSync(file.fd);
	}
	const totalLines = size === 0 ? 0 : lastByte === 0x0a ? line - 1 : line;
	return {
		content: binary ? null : wholeUtf8(Buffer.concat(kept)).toString("utf8"),
		binary,
		sha256: hasher.digest("hex"),
		size,
		truncated: binary ? false : truncated,
		start_line: start,
		end_line: binary ? 0 : Math.min(lastLine, totalLines),
		total_lines: binary ? 0 : totalLines,
	};
}
