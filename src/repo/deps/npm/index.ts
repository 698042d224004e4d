// The npm ecosystem (npm, Bun, pnpm, Yarn share package.json): declared dependencies per section,
// resolved through whichever lockfiles sit beside it or at the workspace root.
import type { Found } from "../discover.ts";
import { lockedProject } from "../graph.ts";
import { baseOf, type DepReader, jsonObject, relativeRel, stringMap } from "../reader.ts";
import type { Declared, Lock, ProjectContext, Scope } from "../types.ts";
import { bunLock } from "./bun-lock.ts";
import { packageLock } from "./package-lock.ts";
import { pnpmLock } from "./pnpm-lock.ts";
import { yarnLock } from "./yarn-lock.ts";

const SECTIONS: [string, Scope][] = [
	["dependencies", "runtime"],
	["devDependencies", "dev"],
	["optionalDependencies", "optional"],
	["peerDependencies", "peer"],
];

type LockParser = (text: string, file: string, importer: string | undefined) => Lock;
const PARSERS: Record<string, LockParser> = {
	"package-lock.json": packageLock,
	"npm-shrinkwrap.json": packageLock,
	"bun.lock": bunLock,
	"pnpm-lock.yaml": pnpmLock,
	"yarn.lock": yarnLock,
};

export function loadNpm(r: DepReader, f: Found): ProjectContext {
	const pkg = f.manifest === null ? undefined : r.parse(f.manifest, "package.json", jsonObject);
	const declared: Declared[] = [];
	if (pkg && f.manifest !== null) {
		for (const [section, scope] of SECTIONS) {
			for (const [name, range] of stringMap(pkg[section]))
				declared.push({ name, scope, declared: range, files: [f.manifest] });
		}
	}
	// The project as the lockfile sees it: its folder relative to the lockfile's ("" is the root).
	const importer = f.manifest === null ? undefined : relativeRel(f.lockDir, f.dir);
	const project = lockedProject("npm", f, declared, (file) => {
		const name = baseOf(file);
		const parser = PARSERS[name] as LockParser; // discover() only finds these names
		return r.parse(file, name, (text) => parser(text, file, importer));
	});
	return {
		project,
		dir: f.dir,
		own: typeof pkg?.name === "string" ? [pkg.name] : [],
	};
}
