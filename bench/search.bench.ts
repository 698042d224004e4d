// The "search" figure of issue 22: repo.search through a live owner's socket ÷ `rg -i -F` on the same
// project, finding the same 200 lines. The project is what a user has: `roundtable init` in a git
// repository with a few committed files and 20,000 untracked source files of realistic sizes (a
// lognormal spread around 2.5 kB, some tens of kB, a few non-ASCII lines), plus an ignored
// node_modules/ and dist/ that both must skip. Windows alternate rg and the owner; the figure is the
// median of the per-window ratios.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callSocket } from "../src/transports/socket-client.ts";
import { type Figure, fmt, initOnAnyPort, median, startOwner } from "./lib.ts";

const FILES = Number(process.env.BENCH_SEARCH_FILES ?? 20_000);
const MATCHES = 200;
const WINDOWS = Number(process.env.BENCH_SEARCH_WINDOWS ?? 15);
/** Where the project goes; BENCH_DIR overrides. */
const BASE = process.env.BENCH_DIR ?? tmpdir();
const QUERY = "needle";

/** A small seeded generator, so every run builds the same tree. */
function random(seed: number): () => number {
	let s = seed >>> 0;
	return () => {
		s = (s + 0x6d2b79f5) >>> 0;
		let t = s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS = (
	"const let return function import export from type interface async await value index result " +
	"options config handler request response error message count items length string number boolean " +
	"state store query update create delete list get set map filter reduce push slice parse format"
).split(" ");
const NON_ASCII = ["// größe prüfen", "// café crème", "// 日本語のコメント", "// ✓ done"];

/** Source-like text of about `bytes` bytes. */
function body(rand: () => number, bytes: number): string[] {
	const lines: string[] = [];
	let size = 0;
	while (size < bytes) {
		const indent = "\t".repeat(Math.floor(rand() * 4));
		const words: string[] = [];
		const n = 2 + Math.floor(rand() * 9);
		for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)] as string);
		const line =
			rand() < 0.01 ? `${indent}${NON_ASCII[Math.floor(rand() * 4)]}` : `${indent}${words.join(" ")};`;
		lines.push(line);
		size += Buffer.byteLength(line) + 1;
	}
	return lines;
}

/** A lognormal file size: median ~2.4 kB, mean ~4 kB, capped at 200 kB. */
function size(rand: () => number): number {
	const normal = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
	return Math.min(200_000, Math.max(60, Math.round(Math.exp(7.8 + normal))));
}

function generate(root: string): void {
	const rand = random(22);
	writeFileSync(join(root, ".gitignore"), "node_modules/\ndist/\n*.log\n");
	writeFileSync(join(root, "README.md"), "# bench project\n");
	writeFileSync(join(root, "package.json"), '{ "name": "bench" }\n');
	// Every (FILES / MATCHES)th file gets one matching line, its case varied.
	const every = Math.floor(FILES / MATCHES);
	const cases = ["needle", "Needle", "NEEDLE", "nEeDlE"];
	const perDir = 50;
	for (let f = 0; f < FILES; f++) {
		const dir = join(
			root,
			"packages",
			`pkg${Math.floor(f / 500)}`,
			"src",
			`mod${Math.floor(f / perDir) % 10}`,
		);
		if (f % perDir === 0) mkdirSync(dir, { recursive: true });
		const lines = body(rand, size(rand));
		if (f % every === 0 && f / every < MATCHES) {
			const at = Math.floor(rand() * lines.length);
			lines[at] = `\tconst found = find(${cases[(f / every) % 4]}, haystack); // ${lines[at]?.trim()}`;
		}
		writeFileSync(join(dir, `file${f}.ts`), `${lines.join("\n")}\n`);
	}
	for (const ignored of ["node_modules/dep/lib", "dist"]) {
		mkdirSync(join(root, ignored), { recursive: true });
		for (let f = 0; f < 1000; f++) writeFileSync(join(root, ignored, `x${f}.js`), `// ${QUERY}\n`);
	}
}

function git(root: string, ...args: string[]): void {
	const r = Bun.spawnSync(["git", "-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: root });
	if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

/** One rg run: its wall time and the `path:line` of each match. */
function ripgrep(root: string): { ms: number; found: Set<string> } {
	const start = performance.now();
	const r = Bun.spawnSync(["rg", "-i", "-F", "-n", "--column", "--no-heading", QUERY], {
		cwd: root,
		stdout: "pipe",
		stderr: "ignore",
	});
	const ms = performance.now() - start;
	const lines = r.stdout.toString().split("\n").filter(Boolean);
	return { ms, found: new Set(lines.map((l) => l.split(":").slice(0, 2).join(":"))) };
}

/** One repo.search over the owner's socket: its wall time and the `path:line` of each match. */
async function ours(socket: string): Promise<{ ms: number; found: Set<string> }> {
	const start = performance.now();
	const reply = await callSocket(socket, "repo.search", { query: QUERY, limit: 1000 });
	const ms = performance.now() - start;
	if (!reply.ok) throw new Error(`repo.search failed: ${reply.error}`);
	const result = reply.result as { matches: { path: string; line: number }[]; truncated: boolean };
	if (result.truncated) throw new Error("repo.search was truncated: raise the limit");
	return { ms, found: new Set(result.matches.map((m) => `${m.path}:${m.line}`)) };
}

function sameLines(a: Set<string>, b: Set<string>): boolean {
	return a.size === b.size && [...a].every((k) => b.has(k));
}

export async function run(): Promise<Figure> {
	if (Bun.which("rg") === null)
		throw new Error("its floor is ripgrep, and rg is not on PATH (Debian: apt-get install ripgrep)");
	const project = mkdtempSync(join(BASE, "rt-bench-search-"));
	const t0 = performance.now();
	generate(project);
	git(project, "init", "-q");
	git(project, "add", ".gitignore", "README.md", "package.json");
	git(project, "commit", "-qm", "start");
	initOnAnyPort(project);
	const built = (performance.now() - t0) / 1000;
	const owner = await startOwner(project);
	try {
		const { socket } = owner;
		// Warm-up (page cache, JIT), and the check that both find the same lines.
		const rgFirst = ripgrep(project);
		const oursFirst = await ours(socket);
		if (rgFirst.found.size !== MATCHES || !sameLines(rgFirst.found, oursFirst.found))
			throw new Error(
				`rg found ${rgFirst.found.size} lines, repo.search ${oursFirst.found.size}: they must be the same ${MATCHES}`,
			);
		const rgMs: number[] = [];
		const oursMs: number[] = [];
		const ratios: number[] = [];
		for (let w = 0; w < WINDOWS; w++) {
			// Alternate which goes first, so neither always meets a cache the other just warmed.
			const first = w % 2 === 0;
			const r1 = first ? ripgrep(project).ms : (await ours(socket)).ms;
			const r2 = first ? (await ours(socket)).ms : ripgrep(project).ms;
			const [rg, o] = first ? [r1, r2] : [r2, r1];
			rgMs.push(rg);
			oursMs.push(o);
			ratios.push(o / rg);
		}
		const ratio = median(ratios);
		console.log(
			`search: repo.search over the owner's socket vs rg -i -F, ${fmt(FILES)} untracked files (tree built in ${fmt(built, 1)} s), ${MATCHES} matching lines, ${WINDOWS} windows:`,
		);
		console.log(
			`  floor: rg -i -F       ${rgMs.map((x) => fmt(x)).join(" ")}  median ${fmt(median(rgMs))} ms`,
		);
		console.log(
			`  repo.search (socket)  ${oursMs.map((x) => fmt(x)).join(" ")}  median ${fmt(median(oursMs))} ms`,
		);
		console.log(
			`  ratio per window      ${ratios.map((x) => fmt(x, 2)).join(" ")}  median ${fmt(ratio, 2)} (goal ≤ 1.5)`,
		);
		return { name: "search", ratio, goal: { op: "≤", value: 1.5 } };
	} finally {
		await owner.stop();
		rmSync(project, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
