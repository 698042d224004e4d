// openat through libc (src/os/openat.ts): a name opened inside an open directory, and the errors
// callers tell apart by their code.
import { describe, expect, test } from "bun:test";
import { closeSync, constants, openSync, readSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openAt } from "../../src/os/openat.ts";
import { tempDir } from "../_helpers/helpers.ts";

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

describe.if(process.platform === "linux")("openAt", () => {
	const dir = tempDir("rt-openat-");
	writeFileSync(join(dir, "ünï cödé.txt"), "inside\n");
	symlinkSync("/etc/hostname", join(dir, "link"));
	const dirFd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
	const open = (name: string) => {
		if (openAt === undefined) throw new Error("openAt is missing");
		return openAt(dirFd, name, FLAGS);
	};
	const code = (name: string) => {
		try {
			closeSync(open(name));
			return "opened";
		} catch (err) {
			return (err as NodeJS.ErrnoException).code;
		}
	};

	test("is there on glibc", () => {
		expect(openAt).toBeDefined();
	});

	test("opens a name inside the directory", () => {
		const fd = open("ünï cödé.txt");
		const bytes = Buffer.alloc(16);
		const n = readSync(fd, bytes, 0, 16, 0);
		closeSync(fd);
		expect(bytes.toString("utf8", 0, n)).toBe("inside\n");
	});

	test("says why it could not", () => {
		expect(code("missing")).toBe("ENOENT");
		expect(code("link")).toBe("ELOOP");
		expect(code("ünï cödé.txt/x")).toBe("ENOTDIR");
		expect(code("n".repeat(5000))).toBe("ENAMETOOLONG");
		expect(code("a\0b")).toBe("EINVAL");
	});
});
