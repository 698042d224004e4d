// Files are written whole or not at all: a temp file beside the target, flushed, then renamed.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";

export function writeFileAtomic(path: string, content: string | Uint8Array, mode = 0o644): void {
	const temp = join(
		dirname(path),
		`.${Date.now()}-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`,
	);
	try {
		const fd = openSync(temp, "wx", mode);
		try {
			const bytes = typeof content === "string" ? Buffer.from(content) : content;
			// writeSync may write less than asked: keep going until every byte is down.
			for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		renameSync(temp, path);
	} catch (err) {
		rmSync(temp, { force: true });
		throw err;
	}
	// The rename is durable only once the directory entry is.
	const dir = openSync(dirname(path), "r");
	try {
		fsyncSync(dir);
	} finally {
		closeSync(dir);
	}
}
