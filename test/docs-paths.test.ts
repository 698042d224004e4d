// Comments and docs name only files that exist: every path into this program's src/ named in a
// comment of src/, test/ or bench/, or anywhere in README.md and docs/, is there. A `src/x.ts` one folder
// deep that is no file of ours is a project's file in an example (`src/a.ts`), not a reference.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "./_helpers/helpers.ts";

/**
 * The `src/…` paths in `text` that mean this program's files: a pattern (`<family>`, `*`, `{a,b}`,
 * `…`) names no one file, and a path one level deep whose name is none of src/'s, or through a dot
 * folder (`src/.git/HEAD`), is an example project's.
 */
function pathsIn(text: string): string[] {
	const ours = new Set(readdirSync(join(REPO, "src")));
	return [...text.matchAll(/(?<![\w/.-])src\/[\w./<>*{},…-]*[\w/]/g)]
		.map((m) => m[0])
		.filter((p) => !/[<>*{},…]/.test(p))
		.filter((p) => !p.split("/").some((part) => part.startsWith(".")))
		.filter((p) => p.split("/").filter(Boolean).length > 2 || ours.has(p.split("/")[1] as string));
}

/** The comments of a TypeScript or JavaScript file: `// …` to the end of the line, and `/* … *\/`. */
const comments = (code: string) =>
	[...code.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => m[0]).join("\n");

function files(dir: string, ext: RegExp): string[] {
	return readdirSync(join(REPO, dir), { recursive: true, withFileTypes: true })
		.filter((e) => e.isFile() && ext.test(e.name) && !e.parentPath.includes("node_modules"))
		.map((e) => relative(REPO, join(e.parentPath, e.name)));
}

test("every src/ path named in a comment or in the docs exists", () => {
	const named: [string, string][] = [];
	for (const f of [...files("src", /\.(ts|js)$/), ...files("test", /\.ts$/), ...files("bench", /\.ts$/)])
		for (const p of pathsIn(comments(readFileSync(join(REPO, f), "utf8")))) named.push([f, p]);
	for (const f of ["README.md", ...files("docs", /\.md$/)])
		for (const p of pathsIn(readFileSync(join(REPO, f), "utf8"))) named.push([f, p]);
	expect(named.length).toBeGreaterThan(100);
	const missing = named.filter(([, p]) => !existsSync(join(REPO, p.replace(/[.,:;)]+$/, ""))));
	expect(missing.map(([f, p]) => `${f}: ${p}`)).toEqual([]);
});
