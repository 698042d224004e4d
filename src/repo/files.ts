// The repository's files as git sees them: tracked and untracked-but-not-ignored. Inside a work tree
// `git ls-files` answers (fast and exact); elsewhere a walk applies every .gitignore on the way.
// .git/ and .roundtable/ never appear, and directory symlinks are never entered.
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { isHidden, type RepoGuard, type RepoRel } from "./guard.ts";

async function gitListing(root: string, under: RepoRel): Promise<RepoRel[] | undefined> {
	let proc: ReturnType<typeof Bun.spawn>;
	try {
		proc = Bun.spawn(
			[
				"git",
				"ls-files",
				"-z",
				"--cached",
				"--others",
				"--exclude-standard",
				"--",
				under === "" ? "." : `:(literal)${under}`,
			],
			{
				cwd: root,
				stdin: "ignore",
				stdout: "pipe",
				stderr: "ignore",
				env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
			},
		);
	} catch {
		return undefined; // no git on this machine
	}
	const [out, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), proc.exited]);
	if (code !== 0) return undefined; // not a work tree
	// A nested repository shows up as "dir/": skip it like any directory.
	return out.split("\0").filter((p) => p !== "" && !p.endsWith("/") && !isHidden(p));
}

interface Rules {
	base: RepoRel;
	ig: Ignore;
}

function readRules(root: string, dir: RepoRel): Rules | undefined {
	try {
		const text = readFileSync(join(root, dir, ".gitignore"), "utf8");
		return { base: dir, ig: ignore().add(text) };
	} catch {
		return undefined;
	}
}

function isIgnored(rules: Rules[], rel: RepoRel, isDir: boolean): boolean {
	let ignored = false;
	for (const r of rules) {
		const sub = r.base === "" ? rel : rel.slice(r.base.length + 1);
		const verdict = r.ig.test(isDir ? `${sub}/` : sub);
		if (verdict.ignored) ignored = true;
		else if (verdict.unignored) ignored = false;
	}
	return ignored;
}

function walkListing(root: string, under: RepoRel): RepoRel[] {
	// The .gitignore files of every directory above `under` apply to it too.
	const rules: Rules[] = [];
	const parts = under === "" ? [] : under.split("/");
	for (let i = 0; i < parts.length; i++) {
		const found = readRules(root, parts.slice(0, i).join("/"));
		if (found) rules.push(found);
		if (isIgnored(rules, parts.slice(0, i + 1).join("/"), true)) return [];
	}
	const out: RepoRel[] = [];
	const walk = (dir: RepoRel, inherited: Rules[]) => {
		const own = readRules(root, dir);
		const active = own ? [...inherited, own] : inherited;
		let entries: Dirent[];
		try {
			entries = readdirSync(join(root, dir), { withFileTypes: true });
		} catch {
			return;
		}
		for (const entry of entries) {
			const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
			if (isHidden(entry.name)) continue;
			const isDir = entry.isDirectory();
			if (isIgnored(active, rel, isDir)) continue;
			if (isDir) walk(rel, active);
			else if (entry.isFile() || entry.isSymbolicLink()) out.push(rel);
		}
	};
	walk(under, rules);
	return out;
}

/** Every visible file at or below `under` (a repo-relative directory, "" for the root), sorted. */
export async function listFiles(root: string, under: RepoRel = ""): Promise<RepoRel[]> {
	const files = (await gitListing(root, under)) ?? walkListing(root, under);
	return files.sort();
}

/** The files a caller's `path` names: that file, the visible files under that directory, or (undefined) all. */
export async function filesAt(guard: RepoGuard, path: string | undefined): Promise<RepoRel[]> {
	if (path === undefined) return listFiles(guard.root);
	const { abs, rel } = guard.resolve(path);
	return statSync(abs).isDirectory() ? listFiles(guard.root, rel) : [rel];
}

/** Git's own test: a NUL byte in the first 8000 bytes makes a file binary. */
export function looksBinary(bytes: Uint8Array): boolean {
	return bytes.subarray(0, 8000).includes(0);
}
