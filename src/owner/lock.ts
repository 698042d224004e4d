// The owner lock: flock(2) on .roundtable/owner.lock, held for the owner's lifetime. The kernel
// drops it when the process dies, however it dies, so a crashed owner never blocks the next one.
// Bun has no flock API; bun:ffi reaches libc's.
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, constants, lstatSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

const LOCK_EX = 2;
const LOCK_NB = 4;

let libc: { symbols: { flock: (fd: number, op: number) => number } } | undefined;
function flock(fd: number, op: number): number {
	libc ??= dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
		flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
	});
	return libc.symbols.flock(fd, op);
}

export class LockHeldError extends Error {
	override name = "LockHeldError";
}

export interface HeldLock {
	release(): void;
}

/** Takes the lock without waiting; throws LockHeldError when another process holds it. */
export function acquireLock(path: string): HeldLock {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	try {
		if (!lstatSync(path).isFile()) throw new Error(`refusing non-regular lock path ${path}`);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
	}
	// O_NOFOLLOW: a symlink planted at the lock path is refused, not followed.
	const fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
	if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
		closeSync(fd);
		throw new LockHeldError(`${path} is held by another process`);
	}
	let held = true;
	return {
		release() {
			if (!held) return;
			held = false;
			closeSync(fd); // closing the descriptor releases the lock
		},
	};
}
