// Pages of a log file read back whole UTF-8 characters at a time: a test run's log, a session's
// transcript. Each page says where it starts, where the next begins, and how big the log is.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

const isContinuation = (b: number | undefined) => b !== undefined && (b & 0xc0) === 0x80;

/** `i`, or the start of the next whole UTF-8 character when `i` falls inside one. */
export function charStartFrom(bytes: Uint8Array, i: number): number {
	let j = i;
	while (j < bytes.byteLength && j - i < 3 && isContinuation(bytes[j])) j++;
	return j;
}

/** `end`, or the start of the UTF-8 character that `end` would cut in two. */
export function wholeCharsEnd(bytes: Uint8Array, end = bytes.byteLength): number {
	for (let j = end - 1; j >= 0 && end - j <= 4; j--) {
		const b = bytes[j] as number;
		if (isContinuation(b)) continue;
		const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
		return j + length > end ? j : end;
	}
	return end;
}

/** A page of a stored log: `max_bytes` from `offset`, by default the last page. */
export function readLogPage(path: string, offset: number | undefined, maxBytes: number) {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		return { log: "", offset: 0, next_offset: null, log_bytes: 0 };
	}
	try {
		const size = fstatSync(fd).size;
		const from = Math.min(offset ?? Math.max(0, size - maxBytes), size);
		const buffer = Buffer.alloc(Math.min(maxBytes, size - from));
		const read = buffer.byteLength === 0 ? 0 : readSync(fd, buffer, 0, buffer.byteLength, from);
		// A page starts and ends on whole UTF-8 characters, so the pages next_offset chains are the log
		// (unless a page is too small to hold one character: then it still moves on).
		const start = charStartFrom(buffer.subarray(0, read), 0);
		const cut = from + read < size ? wholeCharsEnd(buffer, read) : read;
		const stop = cut > start ? cut : read;
		const end = from + stop;
		return {
			log: buffer.subarray(start, stop).toString("utf8"),
			offset: from + start,
			next_offset: end < size ? end : null,
			log_bytes: size,
		};
	} finally {
		closeSync(fd);
	}
}
