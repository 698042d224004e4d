// Bytes a sandbox reads from a descriptor (bwrap's --seccomp, --ro-bind-data): kept in a file that is
// unlinked as soon as it is open, so nothing is left on disk, and reopened through /proc/self/fd for
// each sandbox (bwrap reads a descriptor to its end; each needs its own offset).
import { closeSync, openSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface MemoryFile {
	/** A new descriptor reading the bytes from the start; the caller closes it. */
	open(): number;
}

export function memoryFile(bytes: Uint8Array | string): MemoryFile {
	const path = join(tmpdir(), `roundtable-${process.pid}-${crypto.randomUUID()}`);
	writeFileSync(path, bytes, { mode: 0o600, flag: "wx" });
	const held = openSync(path, "r");
	unlinkSync(path);
	return {
		open: () => openSync(`/proc/self/fd/${held}`, "r"),
	};
}

/** Closes descriptors, ignoring ones already closed. */
export function closeAll(fds: number[]): void {
	for (const fd of fds.splice(0)) {
		try {
			closeSync(fd);
		} catch {
			// already closed
		}
	}
}
