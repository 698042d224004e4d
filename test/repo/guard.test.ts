// Escape attempts against the one path guard. A secret lives next to the repository; no attempt may
// read a byte of it (or of .git/ and .roundtable/), through any repo tool.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { guardHooks } from "../../src/repo/guard.ts";
import { lacks, makeProject, type Project, tempDir } from "../_helpers/helpers.ts";

const SECRET = "TOP-SECRET-7f3a";

const p: Project = await makeProject();
const outside = tempDir("rt-outside-");
writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
mkdirSync(join(outside, "dir"));
writeFileSync(join(outside, "dir", "secret.txt"), `${SECRET}\n`);

// Inside the repository: ordinary files, and links that point out of it or into hidden places.
const root = p.root;
writeFileSync(join(root, "README.md"), "# inside\n");
mkdirSync(join(root, "src"), { recursive: true });
writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
mkdirSync(join(root, ".git"), { recursive: true });
writeFileSync(join(root, ".git", "config"), `[core]\n# ${SECRET}\n`);
mkdirSync(join(root, "vendor", "sub", ".git"), { recursive: true });
writeFileSync(join(root, "vendor", "sub", ".git", "config"), `# ${SECRET}\n`);
symlinkSync(join(outside, "secret.txt"), join(root, "link-abs"));
symlinkSync("../".repeat(10) + join(outside, "secret.txt").slice(1), join(root, "link-rel"));
symlinkSync(join(outside, "dir"), join(root, "linkdir"));
symlinkSync("link-abs", join(root, "link-chain"));
symlinkSync(join(root, ".git", "config"), join(root, "link-git"));
symlinkSync(join(root, ".roundtable", "config.yaml"), join(root, "link-roundtable"));
symlinkSync(`/proc/self/root${join(outside, "secret.txt")}`, join(root, "link-proc"));
symlinkSync("link-loop-b", join(root, "link-loop-a"));
symlinkSync("link-loop-a", join(root, "link-loop-b"));

const ATTEMPTS: [label: string, path: string][] = [
	["parent traversal", "../secret.txt"],
	["deep traversal", "../../../../../../../../etc/passwd"],
	["traversal to the neighbour", `../${outside.split("/").pop()}/secret.txt`],
	["traversal through a subdirectory", "src/../../x/secret.txt"],
	["dot-slash traversal", "./../secret.txt"],
	["doubled slashes", "..//..//etc//passwd"],
	["absolute path outside", "/etc/passwd"],
	["absolute path of the secret", join(outside, "secret.txt")],
	["absolute path with .. back out", `${root}/../${outside.split("/").pop()}/secret.txt`],
	["/proc/self/root to the secret", `/proc/self/root${join(outside, "secret.txt")}`],
	["/proc/self/cwd", "/proc/self/cwd/package.json"],
	["/dev/zero", "/dev/zero"],
	["symlink to an absolute outside file", "link-abs"],
	["relative symlink climbing out", "link-rel"],
	["symlinked directory", "linkdir/secret.txt"],
	["symlink chain", "link-chain"],
	["symlink through /proc/self/root", "link-proc"],
	["symlink into .git", "link-git"],
	["symlink into .roundtable", "link-roundtable"],
	["symlink loop", "link-loop-a"],
	[".git directly", ".git/config"],
	["nested .git", "vendor/sub/.git/config"],
	[".roundtable directly", ".roundtable/config.yaml"],
	[".roundtable via a detour", "src/../.roundtable/roundtable.db"],
	["URL-encoded traversal is a literal name", "..%2F..%2Fetc%2Fpasswd"],
	["two-dot leader look-alike", "\u2025/secret.txt"],
	["fullwidth dots look-alike", "\uff0e\uff0e/secret.txt"],
	["backslashes are not separators", "..\\..\\etc\\passwd"],
	["home tilde is not expanded", "~/.ssh/id_rsa"],
	["NUL byte", "README.md\u0000/../../etc/passwd"],
	["over-long path", `${"a/".repeat(3000)}x`],
	["over-long name", "n".repeat(300)],
];

describe("escape attempts through repo.read_file", () => {
	test.each(ATTEMPTS)("%s is refused without reading a byte", async (_label, path) => {
		const err = await p.fail("repo.read_file", { path });
		expect(["permission_denied", "not_found", "invalid_argument"]).toContain(err.code);
		expect(JSON.stringify(err.toJSON())).not.toContain(SECRET);
	});

	test("there are at least 25 of them", () => {
		expect(ATTEMPTS.length).toBeGreaterThanOrEqual(25);
	});

	test("ordinary reads inside still work, absolute ones included", async () => {
		expect(((await p.call("repo.read_file", { path: "README.md" })) as { content: string }).content).toBe(
			"# inside\n",
		);
		const abs = (await p.call("repo.read_file", { path: join(root, "src", "a.ts") })) as {
			path: string;
			content: string;
		};
		expect(abs.content).toBe("export const a = 1;\n");
		expect(abs.path).toBe(join(root, "src", "a.ts"));
	});

	test("the codes say what happened", async () => {
		expect((await p.fail("repo.read_file", { path: "../secret.txt" })).code).toBe("permission_denied");
		expect((await p.fail("repo.read_file", { path: "link-abs" })).code).toBe("permission_denied");
		expect((await p.fail("repo.read_file", { path: ".git/config" })).code).toBe("permission_denied");
		expect((await p.fail("repo.read_file", { path: "no/such/file" })).code).toBe("not_found");
		expect((await p.fail("repo.read_file", { path: "README.md\u0000x" })).code).toBe("invalid_argument");
		expect((await p.fail("repo.read_file", { path: "src" })).message).toContain("is a directory");
	});
});

describe("a path that changes between the check and the read", () => {
	afterEach(() => {
		guardHooks.beforeOpen = undefined;
	});

	test("a file swapped for a symlink to the secret after the check is refused", async () => {
		writeFileSync(join(root, "swap.txt"), "harmless\n");
		guardHooks.beforeOpen = () => {
			rmSync(join(root, "swap.txt"));
			symlinkSync(join(outside, "secret.txt"), join(root, "swap.txt"));
		};
		const err = await p.fail("repo.read_file", { path: "swap.txt" });
		expect(err.code).toBe("permission_denied");
		expect(JSON.stringify(err.toJSON())).not.toContain(SECRET);
		rmSync(join(root, "swap.txt"));
	});

	test("a directory swapped for a symlink to the outside after the check is refused", async () => {
		mkdirSync(join(root, "swapdir"));
		writeFileSync(join(root, "swapdir", "secret.txt"), "harmless\n");
		guardHooks.beforeOpen = () => {
			renameSync(join(root, "swapdir"), join(root, "swapdir-old"));
			symlinkSync(join(outside, "dir"), join(root, "swapdir"));
		};
		const err = await p.fail("repo.read_file", { path: "swapdir/secret.txt" });
		expect(err.code).toBe("permission_denied");
		expect(JSON.stringify(err.toJSON())).not.toContain(SECRET);
	});
});

describe("searches never read outside either", () => {
	afterEach(() => {
		guardHooks.beforeOpen = undefined;
	});

	test("a whole-repository search skips links out of it and hidden folders", async () => {
		const out = (await p.call("repo.search", { query: SECRET, limit: 5000 })) as {
			matches: { path: string }[];
		};
		expect(out.matches).toEqual([]);
	});

	test("a search rooted at a symlinked directory or outside path is refused", async () => {
		for (const path of ["linkdir", "..", outside, ".git", ".roundtable"]) {
			const err = await p.fail("repo.search", { query: SECRET, path });
			expect(err.code).toBe("permission_denied");
		}
	});

	test("a directory swapped for a symlink to the outside before a search opens it is refused", async () => {
		mkdirSync(join(root, "race-a"));
		writeFileSync(join(root, "race-a", "secret.txt"), "harmless\n");
		let swapped = false;
		guardHooks.beforeOpen = (path) => {
			if (swapped || path !== join(root, "race-a")) return;
			swapped = true;
			renameSync(join(root, "race-a"), join(root, "race-a-old"));
			symlinkSync(join(outside, "dir"), join(root, "race-a"));
		};
		const found = (await p.call("repo.search", { query: SECRET, limit: 5000 })) as { matches: unknown[] };
		expect(swapped).toBe(true);
		expect(found.matches).toEqual([]);
	});

	test("a directory swapped after a search checked it leads nowhere new: its files come from the directory checked", async () => {
		mkdirSync(join(root, "race-b"));
		writeFileSync(join(root, "race-b", "secret.txt"), "harmless, the checked one\n");
		let swapped = false;
		guardHooks.beforeOpen = (path) => {
			if (swapped || path !== join(root, "race-b", "secret.txt")) return;
			swapped = true;
			renameSync(join(root, "race-b"), join(root, "race-b-old"));
			symlinkSync(join(outside, "dir"), join(root, "race-b"));
		};
		const found = (await p.call("repo.search", { query: "harmless, the checked one", limit: 5000 })) as {
			matches: { path: string }[];
		};
		expect(swapped).toBe(true);
		expect(found.matches.map((m) => m.path)).toEqual(["race-b/secret.txt"]);
		const secret = (await p.call("repo.search", { query: SECRET, limit: 5000 })) as { matches: unknown[] };
		expect(secret.matches).toEqual([]);
	});

	test("a file swapped for a symlink to the outside after its directory was checked is refused", async () => {
		mkdirSync(join(root, "race-c"));
		writeFileSync(join(root, "race-c", "secret.txt"), "harmless\n");
		let swapped = false;
		guardHooks.beforeOpen = (path) => {
			if (swapped || path !== join(root, "race-c", "secret.txt")) return;
			swapped = true;
			rmSync(join(root, "race-c", "secret.txt"));
			symlinkSync(join(outside, "secret.txt"), join(root, "race-c", "secret.txt"));
		};
		const found = (await p.call("repo.search", { query: SECRET, limit: 5000 })) as { matches: unknown[] };
		expect(swapped).toBe(true);
		expect(found.matches).toEqual([]);
	});

	test.skipIf(lacks("mkfifo") !== null)(
		"a FIFO is refused at once instead of blocking the read",
		async () => {
			const fifo = join(root, "pipe");
			Bun.spawnSync(["mkfifo", fifo]);
			const err = await p.fail("repo.read_file", { path: "pipe" });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toContain("not a regular file");
			const found = (await p.call("repo.search", { query: "anything" })) as { matches: unknown[] };
			expect(found.matches).toEqual([]);
			rmSync(fifo);
		},
	);
});
