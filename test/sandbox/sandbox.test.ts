// The sandbox module with real bubblewrap: what a command inside it cannot reach. Skipped, with
// the probe's reason printed, where bubblewrap does not work (CI installs it, so there it runs).
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { bwrapArgv, probeSandbox, type SandboxSpec } from "../../src/sandbox/index.ts";
import { runProcess } from "../../src/test-runs/process.ts";
import { removeTempDirs, tempDir, write } from "../_helpers/helpers.ts";

const choice = probeSandbox();
if (choice.kind === "none") console.log(`sandbox tests skipped: ${choice.reason}`);
const bwrap = choice.kind === "bwrap" ? choice.bwrap : "";

afterAll(removeTempDirs);

async function inside(script: string, spec: Partial<SandboxSpec> & { writable: string }) {
	const r = await runProcess({
		argv: bwrapArgv(bwrap, { network: false, ...spec, argv: ["/bin/sh", "-c", script] }),
		cwd: spec.writable,
		env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: spec.home ?? "/nonexistent" },
		timeoutMs: 20_000,
		maxBytes: 1 << 20,
		signal: new AbortController().signal,
	});
	return { code: r.exit_code, out: new TextDecoder().decode(r.output) };
}

describe.skipIf(choice.kind === "none")("bubblewrap sandbox", () => {
	test("the writable directory is writable; a write anywhere else does not land", async () => {
		const run = tempDir();
		const outside = tempDir();
		const r = await inside(`echo in > inside.txt; echo out > ${outside}/x.txt; echo out > /etc/rt-x; true`, {
			writable: run,
		});
		expect(r.code).toBe(0);
		expect(readFileSync(join(run, "inside.txt"), "utf8")).toBe("in\n");
		expect(existsSync(join(outside, "x.txt"))).toBe(false);
		expect(existsSync("/etc/rt-x")).toBe(false);
		expect(r.out).toContain("Read-only file system");
	});

	test(".git is read-only and .roundtable hidden; a dependency folder is read-only", async () => {
		const run = tempDir();
		write(run, ".git/HEAD", "ref: refs/heads/main\n");
		write(run, ".roundtable/roundtable.db", "secret");
		write(run, "node_modules/dep/index.js", "module.exports = 1;\n");
		const r = await inside(
			"echo evil > .git/HEAD; touch .git/new; touch .roundtable/new; cat .roundtable/roundtable.db; echo x > node_modules/dep/index.js; cat .git/HEAD",
			{
				writable: run,
				readOnly: [join(run, ".git"), join(run, "node_modules")],
				hidden: [join(run, ".roundtable")],
			},
		);
		expect(readFileSync(join(run, ".git/HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
		expect(existsSync(join(run, ".git/new"))).toBe(false);
		expect(existsSync(join(run, ".roundtable/new"))).toBe(false);
		expect(readFileSync(join(run, "node_modules/dep/index.js"), "utf8")).toBe("module.exports = 1;\n");
		expect(r.out).not.toContain("secret");
		expect(r.out).toContain("ref: refs/heads/main"); // .git is still readable
	});

	test("$HOME is empty (no ~/.ssh), /tmp is private, the owner's environment is out of sight", async () => {
		const run = tempDir();
		const home = tempDir("rt-home-");
		const marker = tempDir("rt-host-tmp-");
		write(home, ".ssh/id_ed25519", "PRIVATE KEY");
		process.env.RT_SANDBOX_OWNER_SECRET = "owner-secret-value";
		const r = await inside(
			`cat $HOME/.ssh/id_ed25519; cat ${home}/.ssh/id_ed25519; ls /tmp; cat /proc/${process.pid}/environ; cat /proc/*/environ | tr '\\0' '\\n' | grep -c RT_SANDBOX_OWNER_SECRET; echo done`,
			{ writable: run, home },
		);
		delete process.env.RT_SANDBOX_OWNER_SECRET;
		expect(r.out).toContain("done");
		expect(r.out).not.toContain("PRIVATE KEY");
		expect(r.out).not.toContain("owner-secret-value");
		// The host's /tmp is not there: only the mount points of what is bound in.
		expect(r.out).not.toContain(marker.split("/").at(-1) as string);
	});

	test("no network: a TCP connect to a loopback listener outside fails; with network on it succeeds", async () => {
		const run = tempDir();
		let accepted = 0;
		const server = Bun.listen({
			hostname: "127.0.0.1",
			port: 0,
			socket: { open: () => void accepted++, data: () => {} },
		});
		try {
			const connect = `node -e "require('net').connect(${server.port},'127.0.0.1').on('connect',()=>{console.log('connected');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(3)})"`;
			const off = await inside(connect, { writable: run });
			expect(off.code).toBe(3);
			expect(off.out).not.toContain("connected");
			expect(accepted).toBe(0);
			const on = await inside(connect, { writable: run, network: true });
			expect(on.out).toContain("connected");
			expect(on.code).toBe(0);
		} finally {
			server.stop(true);
		}
	});

	test("no capabilities, even as root", async () => {
		const r = await inside("grep CapEff /proc/self/status", { writable: tempDir() });
		expect(r.out).toMatch(/CapEff:\s+0+\n/);
	});
});

test("the probe names its reason when bubblewrap is not found", () => {
	const none = probeSandbox("/nonexistent-bin");
	// /usr/bin is always searched as well: on a host with bwrap installed there, it is still found.
	if (existsSync("/usr/bin/bwrap") || existsSync("/bin/bwrap")) expect(none.kind).toBe(choice.kind);
	else expect(none).toEqual({ kind: "none", reason: "bubblewrap (bwrap) is not installed" });
});

describe.skipIf(choice.kind !== "bwrap")("toolchains", () => {
	test("a toolchain on PATH under /tmp or $HOME stays runnable, read-only, though both are emptied", async () => {
		// Like a checkout under /tmp whose node_modules/.bin links lead elsewhere in it (CI's clone).
		for (const base of ["tmp", "home"] as const) {
			const home = tempDir("rt-home-");
			const checkout = base === "tmp" ? tempDir("rt-checkout-") : join(home, ".toolchain");
			write(checkout, "lib/tool.sh", "#!/bin/sh\necho tool ran\n");
			chmodSync(join(checkout, "lib/tool.sh"), 0o755);
			mkdirSync(join(checkout, "bin"), { recursive: true });
			symlinkSync("../lib/tool.sh", join(checkout, "bin/tool"));
			const run = tempDir();
			const path = `${join(checkout, "bin")}:${process.env.PATH}`;
			const r = await runProcess({
				argv: bwrapArgv(bwrap, {
					argv: ["/bin/sh", "-c", `tool; echo x > ${checkout}/lib/new; ls /tmp | wc -l`],
					writable: run,
					network: false,
					home,
					path,
				}),
				cwd: run,
				env: { PATH: path, HOME: home },
				timeoutMs: 20_000,
				maxBytes: 1 << 20,
				signal: new AbortController().signal,
			});
			const out = new TextDecoder().decode(r.output);
			expect(out).toContain("tool ran");
			expect(existsSync(join(checkout, "lib/new"))).toBe(false);
			expect(out).toContain("Read-only file system");
		}
	});
});
