// openat(2): a file opened by its name inside a directory already open, without resolving any path
// above it again. Bun has none; bun:ffi reaches glibc's, as lock.ts does for flock. Through
// `__openat_2`, glibc's non-variadic form of openat (its mode argument is never needed here).
// Where it cannot be reached (not glibc), `openAt` is undefined and callers do without.
import { dlopen, FFIType, type Pointer, ptr, read } from "bun:ffi";

/** Linux errno values, named as node:fs names them, for the errors callers tell apart. */
const ERRNO: Record<number, string> = {
	1: "EPERM",
	2: "ENOENT",
	6: "ENXIO",
	13: "EACCES",
	20: "ENOTDIR",
	21: "EISDIR",
	23: "ENFILE",
	24: "EMFILE",
	36: "ENAMETOOLONG",
	40: "ELOOP",
};

const NAME_BYTES = 4096;

function load(): ((dirFd: number, name: string, flags: number) => number) | undefined {
	if (process.platform !== "linux") return undefined;
	let libc: {
		symbols: {
			__openat_2: (dirFd: number, path: Pointer, flags: number) => number;
			__errno_location: () => Pointer;
		};
	};
	try {
		libc = dlopen("libc.so.6", {
			__openat_2: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
			__errno_location: { args: [], returns: FFIType.ptr },
		}) as unknown as typeof libc;
	} catch {
		return undefined;
	}
	// One buffer for the NUL-terminated name, reused by every call (calls are synchronous).
	const name = Buffer.alloc(NAME_BYTES + 1);
	const encoder = new TextEncoder();
	const fail = (code: string, path: string) =>
		Object.assign(new Error(`${code}: openat ${path}`), { code }) as NodeJS.ErrnoException;
	return (dirFd, path, flags) => {
		const { read: taken, written } = encoder.encodeInto(path, name.subarray(0, NAME_BYTES));
		if (taken !== path.length) throw fail("ENAMETOOLONG", path);
		if (path.includes("\0")) throw fail("EINVAL", path);
		name[written] = 0;
		const fd = libc.symbols.__openat_2(dirFd, ptr(name), flags);
		if (fd >= 0) return fd;
		const errno = read.i32(libc.symbols.__errno_location());
		throw fail(ERRNO[errno] ?? `errno ${errno}`, path);
	};
}

/** Opens `name` (one path segment, or a relative path) inside the directory `dirFd`; throws an error with node's `code`. */
export const openAt = load();
