// The README's walkthrough ("Use it on your repository"), run as written: the blocks it marks
// `<!-- walkthrough: run -->` are read from README.md itself (so the two cannot drift apart) and run
// in order, in one shell, in a fresh git repository holding a committed hello.txt, with the package
// installed the way the README says (`npm pack`, then `npm i -D <tgz>`) and no bun on PATH. Where it
// marks `owner`, the test starts `roundtable start` itself, since the README keeps it running in
// another terminal. Skipped, saying why, only when the install fails and the registry is down.
import { afterAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, runProcess } from "../_helpers/helpers.ts";
import { cleanUp, scratch, startOwner, userEnv } from "../_helpers/install-helpers.ts";

afterAll(cleanUp);

interface Block {
	kind: string;
	code: string;
	line: number;
}

/** The README's marked blocks: each `<!-- walkthrough: KIND … -->` and the ```sh block after it. */
function walkthroughBlocks(readme: string): Block[] {
	const blocks: Block[] = [];
	const marker = /<!-- walkthrough: (\w+)[^>]*-->\n```sh\n([\s\S]*?)```/g;
	for (const m of readme.matchAll(marker))
		blocks.push({
			kind: m[1] as string,
			code: m[2] as string,
			line: readme.slice(0, m.index).split("\n").length,
		});
	return blocks;
}

const README = readFileSync(join(REPO, "README.md"), "utf8");

test("the README marks its walkthrough: what a user runs, and where the owner keeps running", () => {
	const blocks = walkthroughBlocks(README);
	expect(blocks.map((b) => b.kind)).toEqual(["run", "run", "owner", "run"]);
	// Every ```sh block of the section is marked, so none is left out by mistake.
	const section = README.slice(README.indexOf("## Use it on your repository"), README.indexOf("## CLI"));
	expect(section.match(/```sh\n/g)).toHaveLength(blocks.length);
});

const home = scratch("rt-walk-home-");
const cache = (await runProcess(["npm", "config", "get", "cache"])).stdout.trim();
const env = userEnv(home, { npm_config_cache: cache, npm_config_update_notifier: "false" });

/** One shell for the whole walkthrough, so what a block exports holds for the next. */
class Shell {
	private readonly proc;
	private out = "";
	private readonly reader;
	constructor(cwd: string) {
		this.proc = Bun.spawn(["/bin/sh"], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
		this.reader = this.proc.stdout.getReader();
	}
	/** Runs `code` (stopping at its first failing command); everything it printed. */
	async run(code: string, n: number): Promise<string> {
		const done = `__walkthrough_block_${n}_done__`;
		this.proc.stdin.write(`set -e\n${code}\necho ${done}\n`);
		this.proc.stdin.flush();
		while (!this.out.includes(done)) {
			const { value, done: ended } = await this.reader.read();
			if (ended) {
				const err = await new Response(this.proc.stderr).text();
				throw new Error(`block ${n} failed (exit ${await this.proc.exited}):\n${this.out}\n${err}`);
			}
			this.out += new TextDecoder().decode(value);
		}
		const [printed, rest] = this.out.split(`${done}\n`) as [string, string];
		this.out = rest;
		return printed;
	}
	async close() {
		this.proc.stdin.end();
		await this.proc.exited;
	}
}

test("the walkthrough runs as written, in order, in a fresh repository with only node and npm", async () => {
	const packDir = scratch("rt-walk-tgz-");
	const packed = await runProcess(["npm", "pack", "--json", "--pack-destination", packDir], {
		cwd: REPO,
		env,
	});
	expect(packed.code, packed.stderr).toBe(0);
	const tgz = join(packDir, (JSON.parse(packed.stdout) as { filename: string }[])[0]?.filename as string);

	// A fresh repository with the README's hello.txt, committed, and the package.json of a project
	// that installs a dev dependency (which the install then changes, as it did a user's).
	const repo = scratch("rt-walk-repo-");
	writeFileSync(join(repo, "hello.txt"), "hello\n");
	writeFileSync(join(repo, "package.json"), '{ "name": "hello", "version": "1.0.0", "private": true }\n');
	const git = (...args: string[]) =>
		runProcess(["git", "-c", "user.email=walk@example.com", "-c", "user.name=walk", ...args], {
			cwd: repo,
			env,
		});
	await git("init", "-q");
	await git("add", "hello.txt", "package.json");
	await git("commit", "-qm", "hello");
	// Install as the README says (the one step that names a path of yours).
	const installed = await runProcess(["npm", "i", "-D", "--prefer-offline", "--no-audit", "--no-fund", tgz], {
		cwd: repo,
		env,
	});
	if (installed.code !== 0) {
		const ping = await runProcess(["npm", "ping", "--fetch-timeout=15000", "--fetch-retries=0"], { env });
		if (ping.code !== 0) {
			console.warn(`skipping the walkthrough: npm install failed and the registry cannot be reached`);
			return;
		}
		throw new Error(`npm i -D ${tgz}: ${installed.stderr}`);
	}

	const shell = new Shell(repo);
	const printed: string[] = [];
	try {
		for (const [n, block] of walkthroughBlocks(README).entries()) {
			if (block.kind === "run") printed.push(await shell.run(block.code, n));
			else if (block.kind === "owner") {
				expect(block.code.trim()).toStartWith("roundtable start");
				await startOwner([join(repo, "node_modules/.bin/roundtable"), "start", "--port", "0"], repo, env);
			}
		}
	} finally {
		await shell.close();
	}
	const all = printed.join("");
	expect(all).toContain('"approvable": true');
	expect(readFileSync(join(repo, "hello.txt"), "utf8")).toBe("hello, world\n");
	const task = await runProcess(
		[
			join(repo, "node_modules/.bin/roundtable"),
			"mcp",
			"call",
			"--tool",
			"task.get",
			"--args",
			'{"task_id":"greeting"}',
		],
		{ cwd: repo, env },
	);
	expect(JSON.parse(task.stdout).task.status).toBe("done");
	// What init --client wrote stays out of git; the walkthrough's own files are all git shows.
	const status = (await git("status", "--porcelain")).stdout;
	expect(status).not.toContain(".mcp.json");
	expect(status).not.toContain(".codex");
}, 300_000);
