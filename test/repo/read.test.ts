// repo.read_file: line ranges, byte caps, binary files, hashes and sizes, on real files.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expectDeclaredOutput, makeProject } from "../_helpers/helpers.ts";

interface Read {
	path: string;
	size: number;
	sha256: string;
	binary: boolean;
	content: string | null;
	truncated: boolean;
	start_line: number;
	end_line: number;
	total_lines: number;
}

const p = await makeProject();
const put = (name: string, content: string | Uint8Array) => writeFileSync(join(p.root, name), content);
const read = async (args: Record<string, unknown>) => {
	const out = await p.call("repo.read_file", args);
	expectDeclaredOutput("repo.read_file", out);
	return out as unknown as Read;
};
const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
put("ten.txt", `${TEN}\n`);
put("no-final-newline.txt", "a\nb\nc");
put("empty.txt", "");
put("accents.txt", "héllo wörld ✓\n");

describe("whole files", () => {
	test("returns the content, the path as given, size, sha256 and line counts", async () => {
		const r = await read({ path: "ten.txt" });
		expect(r).toEqual({
			path: "ten.txt",
			size: TEN.length + 1,
			sha256: sha(`${TEN}\n`),
			binary: false,
			content: `${TEN}\n`,
			truncated: false,
			start_line: 1,
			end_line: 10,
			total_lines: 10,
		});
		expect((await read({ path: "./ten.txt" })).path).toBe("./ten.txt");
	});

	test("a last line without a newline counts; an empty file has no lines", async () => {
		expect(await read({ path: "no-final-newline.txt" })).toMatchObject({
			content: "a\nb\nc",
			total_lines: 3,
			end_line: 3,
		});
		expect(await read({ path: "empty.txt" })).toMatchObject({
			content: "",
			size: 0,
			total_lines: 0,
			end_line: 0,
			truncated: false,
		});
	});
});

describe("line ranges", () => {
	test("start_line and end_line are 1-based and inclusive", async () => {
		const r = await read({ path: "ten.txt", start_line: 3, end_line: 5 });
		expect(r).toMatchObject({
			content: "line 3\nline 4\nline 5\n",
			start_line: 3,
			end_line: 5,
			total_lines: 10,
		});
		expect(r.sha256).toBe(sha(`${TEN}\n`)); // the hash is always of the whole file
	});

	test("open-ended ranges and ranges past the end", async () => {
		expect((await read({ path: "ten.txt", start_line: 9 })).content).toBe("line 9\nline 10\n");
		expect((await read({ path: "ten.txt", end_line: 2 })).content).toBe("line 1\nline 2\n");
		expect(await read({ path: "ten.txt", start_line: 8, end_line: 99 })).toMatchObject({
			content: "line 8\nline 9\nline 10\n",
			end_line: 10,
		});
		expect(await read({ path: "ten.txt", start_line: 50 })).toMatchObject({
			content: "",
			end_line: 10,
			truncated: false,
		});
	});

	test("end_line before start_line, or a line number of 0, is invalid_argument", async () => {
		expect((await p.fail("repo.read_file", { path: "ten.txt", start_line: 5, end_line: 4 })).details).toEqual(
			{ field: "end_line" },
		);
		expect((await p.fail("repo.read_file", { path: "ten.txt", start_line: 0 })).code).toBe(
			"invalid_argument",
		);
	});
});

describe("max_bytes", () => {
	test("cuts the content and says so", async () => {
		const r = await read({ path: "ten.txt", max_bytes: 10 });
		expect(r).toMatchObject({
			content: "line 1\nlin",
			truncated: true,
			total_lines: 10,
			size: TEN.length + 1,
		});
	});

	test("never cuts a character in half", async () => {
		// "héllo": h (1 byte) + é (2 bytes): 2 bytes would split the é.
		expect((await read({ path: "accents.txt", max_bytes: 2 })).content).toBe("h");
		expect((await read({ path: "accents.txt", max_bytes: 3 })).content).toBe("hé");
	});

	test("defaults to 1 MiB", async () => {
		put("big.txt", `${"x".repeat(1024 * 1024 + 100)}\n`);
		const r = await read({ path: "big.txt" });
		expect(r.truncated).toBe(true);
		expect(r.content?.length).toBe(1024 * 1024);
	});

	test("a range that fits is not truncated even in a large file", async () => {
		put("long.txt", Array.from({ length: 200_000 }, (_, i) => `row ${i + 1}`).join("\n"));
		const r = await read({ path: "long.txt", start_line: 150_000, end_line: 150_001 });
		expect(r).toMatchObject({ content: "row 150000\nrow 150001\n", truncated: false, total_lines: 200_000 });
	});
});

describe("binary files", () => {
	test("come back with binary: true, no content, and their size and hash", async () => {
		const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x0a, 0x41]);
		put("image.png", bytes);
		expect(await read({ path: "image.png" })).toEqual({
			path: "image.png",
			size: bytes.length,
			sha256: sha(bytes),
			binary: true,
			content: null,
			truncated: false,
			start_line: 1,
			end_line: 0,
			total_lines: 0,
		});
	});
});
