// The six escapes of issue 15, each a command that, when test.run ran it, created a file outside
// the project. Shared by test/test-run-args.test.ts and the before/after measurement.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { write } from "./helpers.ts";

export const ESCAPE_ALLOW = ["make test", "bun test", "npm test", "pytest"];

/** Writes the outside fixtures under `out` and the project's own under `root`; name → command. */
export function escapes(root: string, out: string): Record<string, string> {
	write(root, "ok.test.ts", 'import { test } from "bun:test";\ntest("ok", () => {});\n');
	write(root, "package.json", JSON.stringify({ scripts: { test: "true" } }));
	write(out, "evil.ts", `require("node:fs").writeFileSync(${JSON.stringify(join(out, "preload"))}, "x");\n`);
	write(
		out,
		"evil.test.ts",
		`require("node:fs").writeFileSync(${JSON.stringify(join(out, "testfile"))}, "x");\n`,
	);
	write(out, "Makefile", `test:\n\ttouch ${join(out, "makefile")}\n`);
	mkdirSync(join(out, "pkg"), { recursive: true });
	write(out, "pkg/package.json", JSON.stringify({ scripts: { test: `touch ${join(out, "prefix")}` } }));
	write(out, "test_evil.py", `open(${JSON.stringify(join(out, "pytest"))}, "w").write("x")\n`);
	return {
		eval: `make test --eval=test:;touch\\ ${join(out, "eval")}`,
		preload: `bun test --preload ${join(out, "evil.ts")}`,
		testfile: `bun test ${join(out, "evil.test.ts")}`,
		makefile: `make test -f ${join(out, "Makefile")}`,
		prefix: `npm test --prefix ${join(out, "pkg")}`,
		pytest: `pytest ${join(out, "test_evil.py")}`,
	};
}
