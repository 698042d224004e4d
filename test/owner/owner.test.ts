// The owner process lifecycle, through the real CLI in subprocesses: the ready line, owner.json,
// /healthz, the lock (a second owner fails; the kernel frees it after SIGKILL), clean shutdown on
// SIGTERM/SIGINT with a drain of calls in flight, `mcp serve`, and the non-loopback refusal.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { callSocket } from "../../src/transports/socket-client.ts";
import { VERSION } from "../../src/version.ts";
import {
	MAIN,
	makeProject,
	type Project,
	RFC3339_MS_UTC,
	readyLine,
	runCli,
	tempDir,
	write,
} from "../_helpers/helpers.ts";

const LOOPBACK_ANY_PORT = "mcp:\n  http_address: 127.0.0.1:0\n";

interface Owner {
	proc: Subprocess<"ignore", "pipe", "pipe">;
	ready: string;
	/** Everything on stdout (the ready line included), once the process has exited. */
	stdout: Promise<string>;
	stderr: Promise<string>;
}

const spawned: Subprocess[] = [];
afterAll(async () => {
	for (const proc of spawned) {
		if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
		await proc.exited;
	}
});

/** Starts `start` (or another owner command) and waits for its ready line. */
async function startOwner(
	root: string,
	command: string[] = ["start"],
	extra: string[] = [],
	env?: Record<string, string | undefined>,
): Promise<Owner> {
	const proc = Bun.spawn([process.execPath, MAIN, ...command, "--root", root, ...extra], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
		env: env ?? process.env,
	});
	spawned.push(proc);
	const stderr = new Response(proc.stderr).text();
	const { ready, stdout } = await readyLine(proc, 20_000, () => stderr);
	return { proc, ready, stdout, stderr };
}

interface OwnerJson {
	pid: number;
	http_url: string | null;
	socket_path: string | null;
	started_at: string;
	version: string;
	wake_port: number;
}

const ownerFile = (root: string) => join(root, ".roundtable", "owner.json");
const defaultSocket = (root: string) => join(root, ".roundtable", "mcp", "roundtable.sock");
const readOwnerJson = (root: string) => JSON.parse(readFileSync(ownerFile(root), "utf8")) as OwnerJson;

const READY =
	/^roundtable ready: project=(\S+) http=(http:\/\/127\.0\.0\.1:(\d+)\/mcp|-) socket=(\S+) interval=(\S+)$/;

function parseReady(line: string) {
	const m = READY.exec(line);
	if (!m) throw new Error(`not a ready line: ${JSON.stringify(line)}`);
	return {
		project: m[1] as string,
		http: m[2] as string,
		port: m[3] === undefined ? undefined : Number(m[3]),
		socket: m[4] as string,
		interval: m[5] as string,
	};
}

/** An owner's whole stdout: its ready line, then the dashboard's one-time login link. */
function expectReadyAndDashboard(stdout: string, ready: string, port: number) {
	const [first, dashboard, ...rest] = stdout.split("\n");
	expect(first).toBe(ready);
	expect(dashboard).toMatch(
		new RegExp(`^roundtable dashboard: http://127\\.0\\.0\\.1:${port}/\\?token=[A-Za-z0-9_-]{43}$`),
	);
	expect(rest).toEqual([""]);
}

/** One call over the legacy socket; resolves with the parsed reply line. */
const socketCall = (path: string, tool: string, args: unknown = {}) =>
	callSocket(path, tool, args) as unknown as Promise<Record<string, unknown>>;

async function stop(owner: Owner, signal: "SIGTERM" | "SIGINT") {
	owner.proc.kill(signal);
	const code = await owner.proc.exited;
	return { code, stdout: await owner.stdout, stderr: await owner.stderr };
}

async function lastEventId(p: Project): Promise<number> {
	return ((await p.call("table.get_state")) as { last_event_id: number }).last_event_id;
}

function expectCleanedUp(root: string) {
	expect(existsSync(ownerFile(root))).toBe(false);
	expect(existsSync(defaultSocket(root))).toBe(false);
}

// Projects are made at the top level: makeProject registers its own afterAll.
const main = await makeProject({ config: LOOPBACK_ANY_PORT });
const lifecycle = await makeProject({ config: LOOPBACK_ANY_PORT });
const intervals = await makeProject({ config: LOOPBACK_ANY_PORT });
const contested = await makeProject({ config: LOOPBACK_ANY_PORT });
const killed = await makeProject({ config: LOOPBACK_ANY_PORT });
const draining = await makeProject({ config: LOOPBACK_ANY_PORT });
const served = await makeProject({ config: LOOPBACK_ANY_PORT });
const exposed = await makeProject({ config: "mcp:\n  http_address: 0.0.0.0:0\n" });

// ---------------------------------------------------------------------------------------------

describe("roundtable start", () => {
	test("prints one ready line, publishes owner.json (0600), serves /healthz and the socket", async () => {
		const root = main.root;
		const owner = await startOwner(root);
		const ready = parseReady(owner.ready);
		expect(ready.project).toBe(root);
		expect(ready.port).toBeGreaterThan(0);
		expect(ready.http).toBe(`http://127.0.0.1:${ready.port}/mcp`);
		expect(ready.socket).toBe(defaultSocket(root));
		expect(ready.interval).toBe("1s");

		const info = readOwnerJson(root);
		expect(Object.keys(info).sort()).toEqual([
			"chair_interval_ms",
			"http_url",
			"pid",
			"socket_path",
			"started_at",
			"version",
			"wake_port",
		]);
		expect(info.pid).toBe(owner.proc.pid);
		expect(info.wake_port).toBeGreaterThan(0);
		expect(info.http_url).toBe(ready.http);
		expect(info.socket_path).toBe(ready.socket);
		expect(info.started_at).toMatch(RFC3339_MS_UTC);
		expect(Math.abs(Date.parse(info.started_at) - Date.now())).toBeLessThan(60_000);
		expect(info.version).toBe(VERSION);
		expect(statSync(ownerFile(root)).mode & 0o777).toBe(0o600);

		const origin = new URL(ready.http).origin;
		const health = await fetch(`${origin}/healthz`);
		expect(health.status).toBe(200);
		expect(await health.json()).toEqual({ status: "healthy-idle" });

		expect(lstatSync(ready.socket).isSocket()).toBe(true);
		expect(lstatSync(ready.socket).mode & 0o777).toBe(0o600);
		const reply = await socketCall(ready.socket, "task.create", { title: "through-the-owner", body_md: "x" });
		expect(reply.ok).toBe(true);
		const id = (reply.result as { task: { id: string } }).task.id;
		expect(((await main.call("task.get", { task_id: id })) as { task: { title: string } }).task.title).toBe(
			"through-the-owner",
		);

		// The operator's view names the live owner.
		const watching = await runCli(["watch", "--root", root]);
		expect(watching.stdout).toContain(
			`OWNER pid=${owner.proc.pid} http=${ready.http} socket=${ready.socket}\n`,
		);

		const end = await stop(owner, "SIGTERM");
		expect(end.code).toBe(0);
		// stdout is data only: the ready line, the dashboard's login link, and nothing else.
		expectReadyAndDashboard(end.stdout, owner.ready, ready.port as number);
		expectCleanedUp(root);
	}, 30_000);

	test("SIGTERM and SIGINT each exit 0 and clean up; start works again afterwards", async () => {
		const root = lifecycle.root;
		for (const signal of ["SIGTERM", "SIGINT", "SIGTERM"] as const) {
			const owner = await startOwner(root);
			const ready = parseReady(owner.ready);
			expect(readOwnerJson(root).pid).toBe(owner.proc.pid);
			expect(lstatSync(ready.socket).isSocket()).toBe(true);
			const end = await stop(owner, signal);
			expect(end.code).toBe(0);
			expect(end.stderr).toContain(signal);
			expectCleanedUp(root);
		}
	}, 60_000);

	test("--interval 250ms shows interval=250ms; 0s and abc exit 2", async () => {
		const root = intervals.root;
		const owner = await startOwner(root, ["start"], ["--interval", "250ms"]);
		expect(parseReady(owner.ready).interval).toBe("250ms");
		expect((await stop(owner, "SIGTERM")).code).toBe(0);

		for (const bad of ["0s", "abc"]) {
			const r = await runCli(["start", "--root", root, "--interval", bad]);
			expect(r.code).toBe(2);
			expect(r.stdout).toBe("");
			expect(r.stderr).toContain("--interval");
			expect(r.stderr).toContain(bad);
			expect(existsSync(ownerFile(root))).toBe(false);
		}
	}, 30_000);

	test("a second start exits 1 at once, naming the other owner's pid; the first keeps serving", async () => {
		const root = contested.root;
		const first = await startOwner(root);
		const ready = parseReady(first.ready);
		const t0 = performance.now();
		const second = await runCli(["start", "--root", root]);
		expect(performance.now() - t0).toBeLessThan(10_000);
		expect(second.code).toBe(1);
		expect(second.stdout).toBe("");
		expect(second.stderr).toContain(`pid ${first.proc.pid}`);
		expect(second.stderr).toContain("already owned");
		// The first owner is untouched: its files, its socket and its HTTP endpoint.
		expect(readOwnerJson(root).pid).toBe(first.proc.pid);
		expect((await socketCall(ready.socket, "task.list")).ok).toBe(true);
		const health = await fetch(`${new URL(ready.http).origin}/healthz`);
		expect(health.status).toBe(200);
		expect((await stop(first, "SIGTERM")).code).toBe(0);
		expectCleanedUp(root);
	}, 30_000);

	test("after SIGKILL the lock is free, the stale owner.json is ignored and then replaced", async () => {
		const root = killed.root;
		const first = await startOwner(root);
		const deadPid = first.proc.pid;
		first.proc.kill("SIGKILL");
		await first.proc.exited;
		// A killed owner leaves its files behind.
		expect(readOwnerJson(root).pid).toBe(deadPid);
		expect(lstatSync(defaultSocket(root)).isSocket()).toBe(true);

		// Clients ignore the stale file: no owner answers.
		const orphan = await runCli(["mcp", "call", "--root", root, "--socket", "--tool", "task.list"]);
		expect(orphan.code).toBe(1);
		expect(orphan.stderr).toContain("roundtable start");

		const second = await startOwner(root);
		const ready = parseReady(second.ready);
		const info = readOwnerJson(root);
		expect(info.pid).toBe(second.proc.pid);
		expect(info.pid).not.toBe(deadPid);
		expect(info.http_url).toBe(ready.http);
		const via = await runCli(["mcp", "call", "--root", root, "--socket", "--tool", "task.list"]);
		expect(via.code).toBe(0);
		expect(Array.isArray((JSON.parse(via.stdout) as { tasks: unknown[] }).tasks)).toBe(true);
		const health = await fetch(`${new URL(ready.http).origin}/healthz`);
		expect(await health.json()).toEqual({ status: "healthy-idle" });
		expect((await stop(second, "SIGTERM")).code).toBe(0);
		expectCleanedUp(root);
	}, 30_000);

	test("drain: a waiting read in flight when SIGTERM arrives is answered at once with what it sees, before the exit", async () => {
		const root = draining.root;
		const owner = await startOwner(root);
		const ready = parseReady(owner.ready);
		const after = await lastEventId(draining);
		const t0 = performance.now();
		let answeredAt = 0;
		const answer = socketCall(ready.socket, "table.watch", { after_event_id: after, wait_ms: 20_000 }).then(
			(r) => {
				answeredAt = performance.now();
				return r;
			},
		);
		await Bun.sleep(300); // the call is waiting now
		owner.proc.kill("SIGTERM");
		const code = await owner.proc.exited;
		const exitedAt = performance.now();
		const reply = await answer;
		expect(reply.ok).toBe(true);
		expect((reply.result as { events: unknown[] }).events).toEqual([]);
		expect(answeredAt).toBeGreaterThan(0);
		expect(answeredAt).toBeLessThanOrEqual(exitedAt);
		// Not held for its 20 s wait, nor for the drain's 5 s bound: the wait ended when the owner stopped.
		expect(exitedAt - t0).toBeLessThan(5000);
		expect(code).toBe(0);
		expect(await owner.stderr).toContain("draining");
		expect(await owner.stderr).not.toContain("cut off");
		expectCleanedUp(root);
	}, 30_000);

	test("non-loopback bind without TLS and a token: exit 1, no owner.json, lock released", async () => {
		const root = exposed.root;
		const env = { ...process.env };
		delete env.ROUNDTABLE_MCP_TOKEN;
		for (const extraEnv of [{}, { ROUNDTABLE_MCP_TOKEN: "a-token-but-no-tls" }]) {
			const { stdout, stderr, code } = await runCli(["start", "--root", root], {
				env: { ...env, ...extraEnv },
			});
			expect(code).toBe(1);
			expect(stdout).toBe("");
			expect(stderr).toContain("TLS");
			expect(stderr).toContain("ROUNDTABLE_MCP_TOKEN");
			expect(stderr).not.toContain("a-token-but-no-tls");
			expectCleanedUp(root);
		}
		// The lock was released: another owner (the socket-only one binds no HTTP) starts.
		const serve = await startOwner(root, ["mcp", "serve"], [], env);
		expect(readOwnerJson(root).pid).toBe(serve.proc.pid);
		expect((await stop(serve, "SIGTERM")).code).toBe(0);
		expectCleanedUp(root);
	}, 30_000);
});

describe("the sandbox an owner gives test runs", () => {
	const sandboxLines = (stderr: string) => stderr.split("\n").filter((l) => l.includes("test runs "));

	test("start says once which sandbox test runs get, and why", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const owner = await startOwner(p.root);
		const lines = sandboxLines((await stop(owner, "SIGTERM")).stderr);
		const here = probeSandbox();
		expect(lines).toEqual([
			here.kind === "bwrap"
				? `roundtable: test runs are sandboxed with bubblewrap (${here.reason}; network off)`
				: `roundtable: test runs are not sandboxed: ${here.reason}`,
		]);
	}, 30_000);

	test("with tests.sandbox required and an unusable bwrap, it says runs will be refused", async () => {
		const p = await makeProject({ config: `${LOOPBACK_ANY_PORT}tests:\n  sandbox: required\n` });
		const fakeBin = tempDir("rt-fake-bwrap-");
		write(fakeBin, "bwrap", "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
		chmodSync(join(fakeBin, "bwrap"), 0o755);
		const owner = await startOwner(p.root, ["start"], [], {
			...process.env,
			PATH: `${fakeBin}:${process.env.PATH}`,
		});
		expect(sandboxLines((await stop(owner, "SIGTERM")).stderr)).toEqual([
			"roundtable: test runs will be refused: tests.sandbox is required, but bubblewrap is unusable here: bwrap: setting up uid map: Permission denied",
		]);
	}, 30_000);
});

describe("roundtable mcp serve", () => {
	test("serves the socket only (http=-, http_url null) and takes the same lock", async () => {
		const root = served.root;
		const owner = await startOwner(root, ["mcp", "serve"]);
		const ready = parseReady(owner.ready);
		expect(owner.ready).toBe(
			`roundtable ready: project=${root} http=- socket=${defaultSocket(root)} interval=1s`,
		);
		const info = readOwnerJson(root);
		expect(info.pid).toBe(owner.proc.pid);
		expect(info.http_url).toBeNull();
		expect(info.socket_path).toBe(ready.socket);
		expect(statSync(ownerFile(root)).mode & 0o777).toBe(0o600);
		expect((await socketCall(ready.socket, "task.list")).ok).toBe(true);

		const rival = await runCli(["start", "--root", root]);
		expect(rival.code).toBe(1);
		expect(rival.stderr).toContain(`pid ${owner.proc.pid}`);
		const rivalServe = await runCli(["mcp", "serve", "--root", root]);
		expect(rivalServe.code).toBe(1);
		expect(rivalServe.stderr).toContain(`pid ${owner.proc.pid}`);
		expect(readOwnerJson(root).pid).toBe(owner.proc.pid);

		const end = await stop(owner, "SIGTERM");
		expect(end.code).toBe(0);
		// No HTTP, so no dashboard: the ready line alone.
		expect(end.stdout).toBe(`${owner.ready}\n`);
		expectCleanedUp(root);

		// And start takes the project afterwards.
		const next = await startOwner(root);
		expect(parseReady(next.ready).port).toBeGreaterThan(0);
		expect((await stop(next, "SIGINT")).code).toBe(0);
		expectCleanedUp(root);
	}, 30_000);
});
