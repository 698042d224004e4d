// What an agent's call may read, without a database: readable_paths (plain paths and globs),
// credential and configuration names never, and for repo reads a claim that covers the file.
import { expect, test } from "bun:test";
import { readRefusal } from "../../src/domain/read-scope.ts";

test("readable_paths: a plain path covers itself and all below it; a glob matches, never a dot-file by itself", () => {
	const scope = { readable: ["src", "docs/*.md"] };
	expect(readRefusal(scope, "src")).toBeUndefined();
	expect(readRefusal(scope, "src/deep/a.ts")).toBeUndefined();
	expect(readRefusal(scope, "docs/guide.md")).toBeUndefined();
	expect(readRefusal(scope, "srcx/a.ts")).toBe("srcx/a.ts is outside its task's readable_paths");
	expect(readRefusal(scope, "docs/deep/guide.md")).toContain("outside");
	expect(readRefusal({ readable: ["*"] }, ".hidden")).toContain("outside");
	expect(readRefusal({ readable: [] }, "src/a.ts")).toBe("its task has no readable_paths");
});

test("credentials and configuration are never readable, whatever readable_paths say", () => {
	for (const path of [
		"src/.env",
		"src/.env.local",
		"src/.git/config",
		"src/id_rsa",
		"src/server.pem",
		"src/.npmrc",
	])
		expect({ path, why: readRefusal({ readable: ["src"] }, path) }).toEqual({
			path,
			why: `${path} may hold credentials or configuration`,
		});
});

test("with claims, a file must be covered: a file or symbol claim on it, or a directory claim above it", () => {
	const claimed = [
		{ type: "file", path: "src/a.ts" },
		{ type: "symbol", path: "src/b.ts" },
		{ type: "directory", path: "src/lib" },
		{ type: "endpoint", path: null },
	];
	const scope = { readable: ["src"], claimed };
	expect(readRefusal(scope, "src/a.ts")).toBeUndefined();
	expect(readRefusal(scope, "src/b.ts")).toBeUndefined();
	expect(readRefusal(scope, "src/lib/deep/c.ts")).toBeUndefined();
	expect(readRefusal(scope, "src/c.ts")).toBe("src/c.ts is not covered by an active claim of yours");
});
