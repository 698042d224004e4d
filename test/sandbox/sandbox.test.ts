// The sandbox module with real bubblewrap, tried from inside as an attacker would: what exists at all
// (held to the allowlist), what can be written, reached, typed or read. Skipped, with the probe's
// reason printed, where bubblewrap does not work (CI installs it, so there it runs).
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
	homeInside,
	probeSandbox,
	type SandboxSpec,
	sandboxArgv,
	toolFolders,
} from "../../src/sandbox/index.ts";
import { packageOf } from "../../src/sandbox/tools.ts";
import { runProcess } from "../../src/test-runs/process.ts";
import { REPO, removeTempDirs, tempDir, write } from "../_helpers/helpers.ts";
import { strayPaths } from "../_helpers/sandbox-helpers.ts";

const choice = probeSandbox();
if (choice.kind === "none") console.log(`sandbox tests skipped: ${choice.reason}`);
const bwrap = choice.kind === "bwrap" ? choice.bwrap : "";

afterAll(removeTempDirs);

type Spec = Partial<SandboxSpec> & { dir: string };

async function inside(script: string, spec: Spec, env: Record<string, string> = {}) {
	const s = sandboxArgv(bwrap, {
		tools: [],
		home: { inside: homeInside(tempDir("rt-home-")) },
		network: false,
		terminal: "new",
		...spec,
		// One stream: what the script prints, in the order it printed it.
		argv: ["/bin/sh", "-c", `exec 2>&1; ${script}`],
	});
	const r = await runProcess({
		argv: s.argv,
		cwd: spec.dir,
		env: { PATH: "/usr/bin:/bin", ...env },
		timeoutMs: 20_000,
		maxBytes: 1 << 20,
		signal: new AbortController().signal,
		fds: s.fds,
	});
	s.close();
	return { code: r.exit_code, out: new TextDecoder().decode(r.output) };
}

/** Planted outside the temp folder the helpers clean up: removed after the tests. */
const planted: string[] = [];
afterAll(() => {
	for (const dir of planted) rmSync(dir, { recursive: true, force: true });
});

/** Secrets where an attacker would look: another project under /var/tmp, /tmp and $HOME. */
function plantProjects(home: string) {
	const varTmp = mkdtempSync("/var/tmp/rt-victim-");
	planted.push(varTmp);
	const spots = [varTmp, tempDir("rt-victim-"), join(home, "victim")];
	for (const root of spots) write(root, ".roundtable/operator.token", "OPERATOR-TOKEN-SECRET");
	write(home, ".cargo/credentials.toml", "CARGO-SECRET");
	write(home, ".claude/settings.json", "{}");
	return spots;
}

describe.skipIf(choice.kind === "none")("the allowlist", () => {
	test("find / sees the system, the listed /etc entries, its tools, its directory, /tmp and $HOME — nothing else", async () => {
		const home = tempDir("rt-home-");
		const victims = plantProjects(home);
		const tool = tempDir("rt-tool-");
		write(tool, "bin/t", "#!/bin/sh\necho t\n");
		const dir = tempDir("rt-run-");
		write(dir, "mine.txt", "mine");
		const homeIn = homeInside(home);
		const r = await inside(
			"find / -maxdepth 3 -not -path '/proc/*' -not -path '/usr/*' -not -path '/dev/*' 2>/dev/null | sort; cat /var/tmp/*/.roundtable/operator.token $HOME/victim/.roundtable/operator.token 2>&1; echo end",
			{ dir, tools: [tool], home: { inside: homeIn } },
		);
		expect(r.out).toContain("end");
		expect(r.out).not.toContain("OPERATOR-TOKEN-SECRET");
		const seen = r.out.split("\n").filter((l) => l.startsWith("/"));
		const stray = strayPaths(seen, { under: [dir, tool], wayTo: [dir, homeIn, tool] });
		expect(stray).toEqual([]);
		expect(seen).toContain(join(dir, "mine.txt"));
		expect(seen).toContain("/etc/passwd");
		for (const gone of ["/var", "/run", "/root", "/home/victim", ...victims, join(home, ".cargo")])
			expect(seen).not.toContain(gone);
	});

	test("its directory is writable; the root, the system and a tool are not; a write elsewhere never lands", async () => {
		const dir = tempDir("rt-run-");
		const tool = tempDir("rt-tool-");
		const r = await inside(
			`echo in > inside.txt; touch /x; touch /etc/rt-x; touch ${tool}/x; touch /tmp/ok && echo tmp-ok; echo end`,
			{ dir, tools: [tool] },
		);
		expect(r.out).toContain("end");
		expect(readFileSync(join(dir, "inside.txt"), "utf8")).toBe("in\n");
		expect(r.out).toContain("tmp-ok");
		expect(r.out.match(/Read-only file system/g)?.length).toBe(3);
		expect(existsSync(join(tool, "x"))).toBe(false);
	});

	test("a dependency folder inside its directory is read-only; it may appear at another path", async () => {
		const dir = tempDir("rt-run-");
		write(dir, "node_modules/dep/index.js", "original\n");
		const r = await inside("echo x > node_modules/dep/index.js; pwd; cat node_modules/dep/index.js", {
			dir,
			dirInside: "/workspace",
			readOnly: [join(dir, "node_modules")],
		});
		expect(r.out).toContain("Read-only file system");
		expect(r.out).toContain("/workspace\noriginal\n");
		expect(readFileSync(join(dir, "node_modules/dep/index.js"), "utf8")).toBe("original\n");
	});

	test("no network: a loopback listener of the host and an abstract socket are unreachable; with network on, reached", async () => {
		let accepted = 0;
		const server = Bun.listen({
			hostname: "127.0.0.1",
			port: 0,
			socket: { open: () => void accepted++, data: () => {} },
		});
		try {
			const connect = `node -e "require('net').connect(${server.port},'127.0.0.1').on('connect',()=>{console.log('connected');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(3)})"`;
			const off = await inside(connect, { dir: tempDir() });
			expect(off.code).toBe(3);
			expect(accepted).toBe(0);
			const on = await inside(connect, { dir: tempDir(), network: true });
			expect(on.out).toContain("connected");
			expect(accepted).toBe(1);
		} finally {
			server.stop(true);
		}
		// An abstract Unix socket lives in the network namespace: the host's is not there.
		const name = `rt-abstract-${process.pid}`;
		const abstract = Bun.listen({ unix: `\0${name}`, socket: { data: () => {} } });
		try {
			const probe = `node -e "require('net').connect('\\\\0${name}').on('connect',()=>{console.log('connected');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(3)})"`;
			const r = await inside(probe, { dir: tempDir() });
			expect(r.out).not.toContain("connected");
			expect(r.code).toBe(3);
		} finally {
			abstract.stop(true);
		}
	});

	test("no capabilities, even as root; its own pid namespace", async () => {
		const r = await inside("grep CapEff /proc/self/status; ls /proc | grep -c '^[0-9]'", { dir: tempDir() });
		expect(r.out).toMatch(/CapEff:\s+0+\n/);
		expect(Number(r.out.trim().split("\n").at(-1))).toBeLessThan(10);
	});
});

describe.skipIf(choice.kind === "none")("tools", () => {
	test("a toolchain under $HOME runs, but only its own folder is shown: ~/.cargo/credentials.toml is not", async () => {
		const home = tempDir("rt-home-");
		write(home, ".cargo/credentials.toml", "CARGO-SECRET");
		write(home, ".cargo/bin/tool", "#!/bin/sh\necho tool ran\n");
		chmodSync(join(home, ".cargo/bin/tool"), 0o755);
		const path = `${join(home, ".cargo/bin")}:/usr/bin:/bin`;
		const tools = toolFolders(["tool"], { path, home, never: [] });
		expect(tools).toEqual([join(home, ".cargo/bin")]);
		const r = await inside(
			`tool; cat ${home}/.cargo/credentials.toml; ls ${home}/.cargo`,
			{
				dir: tempDir(),
				tools,
				home: { inside: homeInside(home) },
			},
			{ PATH: path },
		);
		expect(r.out).toContain("tool ran");
		expect(r.out).not.toContain("CARGO-SECRET");
		expect(r.out).toContain("No such file");
	});

	test("an npm package's bin link shows its package (and its interpreter), never the whole node_modules or the checkout", () => {
		const checkout = tempDir("rt-checkout-");
		write(checkout, "node_modules/@scope/cli/bin/cli.js", "#!/usr/bin/env node\n");
		write(checkout, "node_modules/other/secret.txt", "x");
		mkdirSync(join(checkout, "node_modules/.bin"));
		symlinkSync("../@scope/cli/bin/cli.js", join(checkout, "node_modules/.bin/cli"));
		const tools = toolFolders(["cli"], {
			path: `${join(checkout, "node_modules/.bin")}:/usr/bin:/bin`,
			home: tempDir("rt-home-"),
			never: [],
		});
		expect(tools).toEqual([join(checkout, "node_modules/.bin"), join(checkout, "node_modules/@scope/cli")]);
		expect(packageOf("/a/node_modules/b/node_modules/c/lib/x.js")).toBe("/a/node_modules/b/node_modules/c");
	});

	test("never shown: $HOME, a folder right in it, / or /tmp, a .roundtable/, the project itself", () => {
		const home = tempDir("rt-home-");
		const project = tempDir("rt-project-");
		write(project, "bin/p", "#!/bin/sh\n");
		write(home, ".config/x/bin/y", "#!/bin/sh\n");
		const path = [home, "/tmp", join(project, "bin"), join(project, ".roundtable")].join(":");
		expect(toolFolders([], { path, home, never: [project] })).toEqual([]);
		// A PATH entry right in $HOME is the user's own choice of folder: shown, but not its parent.
		expect(toolFolders([], { path: join(home, ".config"), home, never: [] })).toEqual([
			join(home, ".config"),
		]);
	});

	test("a tool folder that holds a project shows it without its .roundtable/", async () => {
		const tool = tempDir("rt-tool-");
		write(tool, ".roundtable/operator.token", "OPERATOR-TOKEN-SECRET");
		write(tool, "bin/x", "x");
		const r = await inside(
			`cat ${tool}/.roundtable/operator.token; ls ${tool}/.roundtable; cat ${tool}/bin/x; echo`,
			{
				dir: tempDir(),
				tools: [tool],
			},
		);
		expect(r.out).not.toContain("OPERATOR-TOKEN-SECRET");
		expect(r.out).toContain("x");
	});
});

describe.skipIf(choice.kind === "none" || !Bun.which("script") || !Bun.which("perl"))("terminals", () => {
	// TIOCSTI pushes bytes into the terminal's input: typed into the operator's shell after the agent exits.
	const inject = `perl -e 'my $c = "x"; if (ioctl(STDIN, 0x5412, $c)) { print "INJECTED\\n" } else { print "refused: $!\\n" }'`;
	/** Runs `sandboxed.ts` (which spawns a sandbox sharing the terminal) under a pseudo-terminal. */
	async function underPty(command: string) {
		const p = Bun.spawn(["script", "-qec", command, "/dev/null"], {
			cwd: REPO,
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
			env: { ...process.env, TERM: "dumb" },
		});
		p.stdin.end();
		const out = await new Response(p.stdout).text();
		await p.exited;
		return out;
	}

	test("an agent sharing the operator's terminal cannot type into it (TIOCSTI refused); outside, the same ioctl works", async () => {
		const helper = join(tempDir("rt-pty-"), "shared-terminal.ts");
		await Bun.write(
			helper,
			`import { sandboxArgv } from ${JSON.stringify(join(REPO, "src/sandbox/index.ts"))};
const s = sandboxArgv(${JSON.stringify(bwrap)}, { argv: ["/bin/sh", "-c", ${JSON.stringify(inject)}], dir: "/tmp", tools: [], home: { inside: "/home/sandbox" }, network: false, terminal: "shared" });
const p = Bun.spawn(s.argv, { stdio: ["inherit", "inherit", "inherit", ...s.fds] });
s.close();
process.exitCode = await p.exited;
`,
		);
		const sandboxed = await underPty(`${process.execPath} ${helper}`);
		expect(sandboxed).toContain("refused: Operation not permitted");
		expect(sandboxed).not.toContain("INJECTED");
		// Where the kernel still allows TIOCSTI (dev.tty.legacy_tiocsti=1), the probe itself works outside.
		const legacy = existsSync("/proc/sys/dev/tty/legacy_tiocsti")
			? readFileSync("/proc/sys/dev/tty/legacy_tiocsti", "utf8").trim()
			: "1";
		if (legacy === "1") expect(await underPty(inject)).toContain("INJECTED");
	});
});

test("the probe names its reason when bubblewrap is not found", () => {
	const none = probeSandbox("/nonexistent-bin");
	// /usr/bin is always searched as well: on a host with bwrap installed there, it is still found.
	if (existsSync("/usr/bin/bwrap") || existsSync("/bin/bwrap")) expect(none.kind).toBe(choice.kind);
	else expect(none).toEqual({ kind: "none", reason: "bubblewrap (bwrap) is not installed" });
});
