// Kernel file locks: flock(2), held as long as the descriptor is open and dropped by the kernel when
// the process dies, however it dies, so a crashed holder never blocks anyone. Bun has no flock API;
// bun:ffi reaches libc's. The owner lock is exclusive; the repository lock is shared by readers and
// exclusive for an apply, a rollback or recovery.
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, constants, lstatSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;

let libc: { symbols: { flock: (fd: number, op: number) => number } } | undefined;
function flock(fd: number, op: number): number {
	libc ??= dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
		flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
	});
	return libc.symbols.flock(fd, op);
}

export interface HeldLock {
	release(): void;
}

export type LockMode = "shared" | "exclusive";

function openLockFile(path: string): number {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	try {
		if (!lstatSync(path).isFile()) throw new Error(`refusing non-regular lock path ${path}`);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
	}
	// O_NOFOLLOW: a symlink planted at the lock path is refused, not followed.
	return openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
}

/** Takes the lock without waiting, or returns undefined when another holder's mode excludes ours. */
export function tryLock(path: string, mode: LockMode = "exclusive"): HeldLock | undefined {
	const fd = openLockFile(path);
	if (flock(fd, (mode === "shared" ? LOCK_SH : LOCK_EX) | LOCK_NB) !== 0) {
		closeSync(fd);
		return undefined;
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

/** Waits (polling, so the event loop stays free) until the lock is ours or `timeoutMs` ran out. */
export async function waitForLock(
	path: string,
	mode: LockMode,
	timeoutMs: number,
): Promise<HeldLock | undefined> {
	const deadline = Date.now() + timeoutMs;
	for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
		const lock = tryLock(path, mode);
		if (lock || Date.now() >= deadline) return lock;
		await Bun.sleep(pause);
	}
}
