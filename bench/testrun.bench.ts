// What test.run adds to running a command, as an agent meets it: test.run through a running owner's
// socket (a row and an event before, the log file and a row and an event after), with the sandbox
// off and in bubblewrap, beside two floors: the same trivial command spawned directly (both pipes
// read, exit awaited) and spawned in bare bubblewrap with the same allowlist. Median of 20 each. Then
// test.suggest's own time on a big repository, and a proposal's scratch copy.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../src/config/defaults.ts";
import { RepoGuard } from "../src/repo/guard.ts";
import { homeInside, probeSandbox, sandboxArgv, toolFolders } from "../src/sandbox/index.ts";
import { suggestTests } from "../src/test-runs/discover.ts";
import { scratchCopy } from "../src/test-runs/workdir.ts";
import { callSocket } from "../src/transports/socket-client.ts";
import { bigRepository, fmt, median, readLine } from "./lib.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const RUNS = 20;
const ARGV = ["printf", "ok\\n"];

async function timed(fn: () => Promise<void>): Promise<number> {
	const times: number[] = [];
	for (let i = 0; i < RUNS + 2; i++) {
		const t = performance.now();
		await fn();
		if (i >= 2) times.push(performance.now() - t); // the first two warm up
	}
	return median(times);
}

async function spawned(argv: string[], cwd: string, fds: number[] = []): Promise<void> {
	const proc = Bun.spawn(argv, { cwd, stdio: ["ignore", "pipe", "pipe", ...fds] }) as Bun.Subprocess<
		"ignore",
		"pipe",
		"pipe"
	>;
	await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
}

/** test.run through the socket of an owner (`roundtable start`) of a project with this tests.sandbox. */
async function throughOwner(sandbox: "off" | "auto"): Promise<{ ms: number; had: string }> {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "rt-bench-testrun-")));
	mkdirSync(join(root, ".roundtable"));
	writeFileSync(
		join(root, ".roundtable/config.yaml"),
		`mcp:\n  http_address: 127.0.0.1:0\ntests:\n  allowed_commands: [printf]\n  sandbox: ${sandbox}\n`,
	);
	Bun.spawnSync([process.execPath, MAIN, "init", "--root", root], { stdout: "ignore" });
	const owner = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
		stdout: "pipe",
		stderr: "ignore",
	});
	const socket = /socket=(\S+)/.exec(await readLine(owner.stdout))?.[1] as string;
	let had = "";
	try {
		const ms = await timed(async () => {
			const reply = await callSocket(socket, "test.run", { command: ARGV.join(" ") });
			const run = (reply.result as { test_run?: { status: string; sandbox: string } } | undefined)?.test_run;
			if (run?.status !== "passed") throw new Error(`bench run: ${JSON.stringify(reply)}`);
			had = run.sandbox;
		});
		return { ms, had };
	} finally {
		owner.kill("SIGTERM");
		await owner.exited;
		rmSync(root, { recursive: true, force: true });
	}
}

export async function run(): Promise<void> {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "rt-bench-spawn-")));
	const row = (label: string, ms: number, floor?: number) =>
		console.log(
			`  ${label.padEnd(38)} ${fmt(ms, 2).padStart(7)} ms${floor === undefined ? "" : `   (+${fmt(ms - floor, 2)} ms)`}`,
		);
	console.log(`test.run overhead, \`${ARGV.join(" ")}\` (median of ${RUNS}):`);
	const direct = await timed(() => spawned(ARGV, dir));
	row("floor: spawned directly", direct);
	const here = probeSandbox();
	let bare: number | undefined;
	if (here.kind === "bwrap") {
		const path = process.env.PATH ?? "";
		const tools = toolFolders([ARGV[0] as string], { path, home: homedir(), never: [] });
		bare = await timed(async () => {
			const sandboxed = sandboxArgv(here.bwrap, {
				argv: ARGV,
				dir,
				tools,
				home: { inside: homeInside() },
				network: false,
				terminal: "new",
			});
			try {
				return await spawned(sandboxed.argv, dir, sandboxed.fds);
			} finally {
				sandboxed.close();
			}
		});
		row("floor: spawned in bare bubblewrap", bare, direct);
	}
	const off = await throughOwner("off");
	row("test.run via the owner, sandbox off", off.ms, direct);
	if (here.kind === "bwrap") {
		const on = await throughOwner("auto");
		if (on.had !== "bwrap") throw new Error(`expected a sandboxed run, had ${on.had}`);
		row("test.run via the owner, in bubblewrap", on.ms, off.ms);
	} else console.log(`  (no sandboxed rows: ${here.reason})`);
	rmSync(dir, { recursive: true, force: true });
	await suggestBench();
	await workdirBench();
}

/** What a proposal's test run pays before its command starts: the scratch copy of a 20,000-file repository. */
async function workdirBench(): Promise<void> {
	const root = bigRepository("rt-bench-workdir-");
	const git = (...args: string[]) =>
		Bun.spawnSync(["git", "-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: root });
	writeFileSync(join(root, "src/p1/f1.ts"), "changed\n");
	const patch = join(root, "..", `${root.split("/").pop()}.patch`);
	writeFileSync(patch, git("diff").stdout);
	git("checkout", "--", ".");
	const copy: number[] = [];
	const remove: number[] = [];
	for (let i = 0; i < 5; i++) {
		let t = performance.now();
		const workdir = await scratchCopy(root, { file: patch, strip: 1 });
		copy.push(performance.now() - t);
		t = performance.now();
		workdir.remove();
		remove.push(performance.now() - t);
	}
	console.log("a proposal's scratch copy, 20,000-file git repository (median of 5):");
	console.log(`  copy and apply        ${fmt(median(copy), 0).padStart(7)} ms`);
	console.log(`  remove                ${fmt(median(remove), 0).padStart(7)} ms`);
	rmSync(root, { recursive: true, force: true });
	rmSync(patch, { force: true });
}

/**
 * test.suggest on a 10,000-file git repository (Go and Python side by side): a Go change reads a
 * few manifests; a Python change also lists every file to find the test files named after it.
 */
async function suggestBench(): Promise<void> {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "rt-bench-suggest-")));
	writeFileSync(join(root, "go.mod"), "module example.com/big\n\ngo 1.22\n");
	writeFileSync(join(root, "pyproject.toml"), "[tool.pytest.ini_options]\n");
	for (let d = 0; d < 100; d++) {
		mkdirSync(join(root, `pkg${d}`));
		mkdirSync(join(root, `py${d}`));
		for (let f = 0; f < 50; f++) {
			writeFileSync(join(root, `pkg${d}`, `f${f}.go`), `package pkg${d}\n`);
			writeFileSync(join(root, `py${d}`, f === 0 ? `test_m${d}.py` : `m${d}_${f}.py`), "x = 1\n");
		}
	}
	for (const args of [
		["init", "-q"],
		["add", "."],
		["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "x"],
	])
		Bun.spawnSync(["git", ...args], { cwd: root });
	const guard = new RepoGuard(root);
	const allowed = defaultConfig().tests.allowed_commands;
	const time = async (touched: string[]) => {
		const times: number[] = [];
		for (let i = 0; i < RUNS; i++) {
			const t = performance.now();
			await suggestTests(guard, { touched, expected: [] }, allowed);
			times.push(performance.now() - t);
		}
		return median(times);
	};
	const go = await time(["pkg3/f1.go", "pkg7/f2.go"]);
	const py = await time(["py3/m3_1.py"]);
	console.log(`test.suggest on a 10,000-file git repository (median of ${RUNS}):`);
	console.log(`  a Go change           ${fmt(go, 2).padStart(7)} ms`);
	console.log(`  a Python change       ${fmt(py, 2).padStart(7)} ms   (lists every file for test_*.py)`);
	rmSync(root, { recursive: true, force: true });
}

if (import.meta.main) await run();
