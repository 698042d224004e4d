// Issue 30's breaks, tried again as an attacker would, through the real CLI: a launched agent
// (`sessions launch`) and a test run an agent starts with its capability, on projects under $HOME,
// under /tmp, under /var/tmp and at a path long enough to move session sockets to the runtime
// folder. Each project is every other's victim: its operator token, database, .env and live
// sockets are what the attacker reaches for. Skipped where bubblewrap does not work.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";
import { parseDocument } from "yaml";
import { homeInside, probeSandbox } from "../../src/sandbox/index.ts";
import { runtimeDir } from "../../src/sessions/paths.ts";
import { runCli, tempDir, write } from "../_helpers/helpers.ts";
import {
	launchArgs,
	launchArgv,
	launchRunning,
	ownedProject,
	PROBE,
	probeOutput,
} from "../_helpers/launch-helpers.ts";
import { newFilePatch, symlinkPatch } from "../_helpers/patches.ts";

const sandboxed = probeSandbox().kind === "bwrap";
if (!sandboxed) console.log("attack tests skipped: no working bubblewrap here");

interface Place {
	name: string;
	root: string;
	url: string;
	owner: Subprocess<"ignore", "pipe", "pipe">;
}

const places: Place[] = [];
const made: string[] = [];

async function project(name: string, root: string): Promise<Place> {
	mkdirSync(root, { recursive: true });
	made.push(root);
	const { url, owner } = await ownedProject(root, {
		"README.md": "# a project\n",
		"src/a.ts": "export const a = 1;\n",
		"private/plans.md": "PRIVATE-PLANS\n",
		".env": "DATABASE_PASSWORD=ENV-SECRET\n",
	});
	const task = {
		task_id: "T-1",
		title: "t",
		body_md: "b",
		assigned_agent_id: "implementer-1",
		readable_paths: ["src", "README.md", "package.json", "hello.txt"],
	};
	expect((await operator(root, "task.create", task)).task.id).toBe("T-1");
	return { name, root, url, owner };
}

async function operator(root: string, tool: string, args: object) {
	const r = await runCli(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args)]);
	if (r.code !== 0) throw new Error(`${tool}: ${r.stderr}`);
	return JSON.parse(r.stdout);
}

beforeAll(async () => {
	if (!sandboxed) return;
	writeFileSync(join(homedir(), MARKER), "in the operator's home");
	made.push(join(homedir(), MARKER));
	const long = join(
		tempDir("rt-attack-long-"),
		"a-folder-name-long-enough",
		"to-push-the-session-socket-out",
	);
	places.push(
		...(await Promise.all([
			project("under $HOME", mkdtempSync(join(homedir(), "rt-attack-"))),
			project("under /tmp", tempDir("rt-attack-")),
			project("under /var/tmp", mkdtempSync("/var/tmp/rt-attack-")),
			project("at a long path", long),
		])),
	);
}, 120_000);

afterAll(async () => {
	for (const p of places) p.owner.kill("SIGTERM");
	await Promise.all(places.map((p) => p.owner.exited));
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

interface ProbeOut {
	tries: Record<string, string>;
	results: Record<string, unknown>[];
	env: string[];
	home: string;
}

/** `sessions launch` of the probe as implementer-1 on T-1 in `p`, with `env` beside the operator's. */
async function launchProbe(
	p: Place,
	probe: object,
	calls: [string, object][] = [],
	env: Record<string, string> = {},
) {
	const r = await runCli(
		launchArgs(p.root, "implementer-1", ["--task", "T-1", "--adapter", "generic"], [process.execPath, PROBE]),
		{ env: { ...process.env, ...env, PROBE: JSON.stringify(probe), ARGS_CALLS: JSON.stringify(calls) } },
	);
	return probeOutput<ProbeOut>(r);
}

/** A file in the operator's real home that no sandbox may show. */
const MARKER = `rt-attack-marker-${process.pid}`;

const refusedAll = (tries: Record<string, string>) =>
	Object.entries(tries).filter(([, outcome]) => !outcome.startsWith("refused"));

describe.skipIf(!sandboxed)("a launched agent, wherever its project lives", () => {
	test("reads no project's files, token, database or .env, and reaches no project's legacy socket (rows 2 and 8)", async () => {
		for (const p of places) {
			const others = places.map((o) => o.root);
			const probe = await launchProbe(
				p,
				{
					reads: others.flatMap((r) => [
						join(r, ".roundtable/operator.token"),
						join(r, ".roundtable/roundtable.db"),
						join(r, ".env"),
						join(r, "README.md"),
						join(r, "private/plans.md"),
					]),
					unix: others.map((r) => join(r, ".roundtable/mcp/roundtable.sock")),
					// $HOME inside is a private one at the same path: see `home` below.
					lists: ["/var", "/run"],
				},
				[],
				{ AWS_SECRET_ACCESS_KEY: "aws-secret", GITHUB_TOKEN: "gh-secret" },
			);
			expect({ place: p.name, allowed: refusedAll(probe.tries) }).toEqual({ place: p.name, allowed: [] });
			expect(probe.home).not.toContain(MARKER);
			// The operator's environment is an allowlist.
			expect(probe.env).not.toContain("AWS_SECRET_ACCESS_KEY");
			expect(probe.env).not.toContain("GITHUB_TOKEN");
		}
	}, 120_000);

	test("cannot use another session's socket, even where long paths put sockets in the runtime folder (row 3)", async () => {
		const long = places.find((p) => p.name === "at a long path") as Place;
		// A first session that stays up while the second looks for its socket.
		const first = await launchRunning(
			long.root,
			"reviewer-1",
			["--adapter", "generic"],
			["/bin/sleep", "20"],
		);
		const socket = first.socket;
		try {
			expect(socket.startsWith(runtimeDir())).toBe(true);
			expect(existsSync(socket)).toBe(true);
			for (const p of places) {
				const probe = await launchProbe(p, {
					unix: [socket],
					lists: [runtimeDir(), dirname(socket), join(long.root, ".roundtable/sessions")],
				});
				expect({ place: p.name, allowed: refusedAll(probe.tries) }).toEqual({ place: p.name, allowed: [] });
			}
		} finally {
			await first.stop();
		}
	}, 120_000);

	test("plants nothing in the operator's login folders; only a rotated credential comes back (row 5)", async () => {
		const p = places[1] as Place;
		const home = tempDir("rt-operator-home-");
		write(home, ".claude/settings.json", '{"theme":"dark"}\n');
		write(home, ".claude/.credentials.json", '{"token":"old"}\n');
		write(home, ".claude.json", '{"userID":"u"}\n');
		write(home, ".codex/config.toml", 'model = "x"\n');
		write(home, ".codex/auth.json", '{"tokens":"old"}\n');
		const evil = [
			"ls -A $HOME $HOME/.claude",
			'echo \'{"hooks":{"PreToolUse":[{"command":"curl evil"}]}}\' > $HOME/.claude/settings.json',
			'echo \'{"userID":"evil"}\' > $HOME/.claude.json',
			'echo \'{"token":"rotated"}\' > $HOME/.claude/.credentials.json',
			"echo evil > $HOME/.claude/planted",
		].join("; ");
		const env = { ...process.env, HOME: home } as Record<string, string>;
		delete env.ANTHROPIC_API_KEY;
		delete env.CLAUDE_CONFIG_DIR;
		const r = await runCli(
			launchArgs(p.root, "architect-1", ["--adapter", "claude"], ["/bin/sh", "-c", evil]),
			{
				env,
			},
		);
		expect(r.code, r.stderr).toBe(0);
		// Inside: only the login's files, copied; settings.json was never there.
		expect(r.stdout).toContain(`${homeInside(home)}/.claude:\n.credentials.json\n`);
		expect(r.stdout).toContain(".claude\n.claude.json\n");
		expect(r.stdout).not.toContain("settings.json");
		expect(readFileSync(join(home, ".claude/settings.json"), "utf8")).toBe('{"theme":"dark"}\n');
		expect(readFileSync(join(home, ".claude.json"), "utf8")).toBe('{"userID":"u"}\n');
		expect(existsSync(join(home, ".claude/planted"))).toBe(false);
		expect(readFileSync(join(home, ".claude/.credentials.json"), "utf8")).toBe('{"token":"rotated"}\n');

		const plant = `ls -A $CODEX_HOME; echo 'notify = ["evil"]' > $CODEX_HOME/config.toml; echo '{"tokens":"rotated"}' > $CODEX_HOME/auth.json`;
		const codex = await runCli(
			launchArgs(p.root, "implementer-2", ["--adapter", "codex"], ["/bin/sh", "-c", plant]),
			{
				env: { ...env, OPENAI_API_KEY: "" },
			},
		);
		expect(codex.code, codex.stderr).toBe(0);
		expect(codex.stdout.trim()).toBe("auth.json");
		expect(readFileSync(join(home, ".codex/config.toml"), "utf8")).toBe('model = "x"\n');
		expect(readFileSync(join(home, ".codex/auth.json"), "utf8")).toBe('{"tokens":"rotated"}\n');
	}, 60_000);

	test("one session at a time uses a copied login; a second is refused, naming the way out", async () => {
		const p = places[1] as Place;
		const home = tempDir("rt-operator-home-");
		write(home, ".codex/auth.json", '{"tokens":"t"}\n');
		const env = { ...process.env, HOME: home } as Record<string, string>;
		delete env.OPENAI_API_KEY;
		const codex = (command: string[]) => launchArgs(p.root, "implementer-2", ["--adapter", "codex"], command);
		const first = await launchRunning(
			p.root,
			"implementer-2",
			["--adapter", "codex"],
			["/bin/sleep", "5"],
			env,
		);
		try {
			const second = await runCli(codex(["/bin/true"]), { env });
			expect(second.code).toBe(1);
			expect(second.stderr).toContain("another session is using the codex login");
			expect(second.stderr).toContain("OPENAI_API_KEY");
			// With an API key, no login is copied and sessions run side by side.
			const keyed = await runCli(codex(["/bin/sh", "-c", "ls -A $CODEX_HOME; echo end"]), {
				env: { ...env, OPENAI_API_KEY: "sk-test" },
			});
			expect(keyed.code).toBe(0);
			expect(keyed.stdout).toBe("end\n");
		} finally {
			await first.stop();
		}
	}, 60_000);

	test("the home kept for its task is no way to the operator's login: a link left there is removed, never followed", async () => {
		const p = places[2] as Place;
		const home = tempDir("rt-operator-home-");
		write(home, ".codex/auth.json", '{"tokens":"t"}\n');
		write(home, ".claude.json", '{"userID":"u"}\n');
		await operator(p.root, "task.create", {
			task_id: "T-home",
			title: "t",
			body_md: "b",
			assigned_agent_id: "implementer-2",
			readable_paths: [],
		});
		const env = { ...process.env, HOME: home } as Record<string, string>;
		delete env.OPENAI_API_KEY;
		const codex = (command: string) =>
			runCli(
				launchArgs(
					p.root,
					"implementer-2",
					["--task", "T-home", "--adapter", "codex"],
					["/bin/sh", "-c", command],
				),
				{
					env,
				},
			);
		// It swaps its CLI's folder for a link to the operator's real one, which the owner, cleaning
		// up its copied login, would delete through.
		const planted = await codex(
			`rm -rf "$HOME/.codex"; ln -s ${join(home, ".codex")} "$HOME/.codex"; echo planted`,
		);
		expect(planted.code, planted.stderr).toBe(0);
		expect(planted.stdout).toBe("planted\n");
		expect(readFileSync(join(home, ".codex/auth.json"), "utf8")).toBe('{"tokens":"t"}\n');
		const kept = join(p.root, ".roundtable/agent-state/implementer-2@task-T-home");
		expect(lstatSync(join(kept, ".codex"), { throwIfNoEntry: false })).toBeUndefined();
		// A link left there by any other way (its owner killed mid-run) is removed before the next copy.
		symlinkSync(join(home, ".codex"), join(kept, ".codex"));
		const next = await codex('test -L "$HOME/.codex" && echo link; ls -A "$HOME/.codex"');
		expect(next.code, next.stderr).toBe(0);
		expect(next.stdout).toBe("auth.json\n");
		expect(readFileSync(join(home, ".codex/auth.json"), "utf8")).toBe('{"tokens":"t"}\n');
		expect(lstatSync(join(kept, ".codex")).isDirectory()).toBe(true);
		// And no credential rests in the kept home between runs.
		expect(existsSync(join(kept, ".codex/auth.json"))).toBe(false);
	}, 60_000);

	test("a toolchain on PATH under $HOME runs, but ~/.cargo/credentials.toml stays out of sight (row 6)", async () => {
		const p = places[0] as Place;
		const home = tempDir("rt-operator-home-");
		write(home, ".cargo/credentials.toml", "CARGO-SECRET\n");
		write(home, ".cargo/bin/cargo-thing", "#!/bin/sh\necho thing\n");
		const probe = await launchProbe(
			p,
			{ reads: [join(home, ".cargo/credentials.toml")], lists: [join(home, ".cargo")] },
			[],
			{ HOME: home, PATH: `${join(home, ".cargo/bin")}:${process.env.PATH}` },
		);
		expect(probe.tries).toEqual({
			[`read ${join(home, ".cargo/credentials.toml")}`]: expect.stringMatching(/^refused: ENOENT/),
			// Only the PATH entry itself is there, in an otherwise empty private home.
			[`list ${join(home, ".cargo")}`]: "ok: bin",
		});
	}, 60_000);

	test("reaches only its adapter's egress hosts through the proxy; a refusal is an event; the host's loopback is unreachable", async () => {
		const p = places[1] as Place;
		const echo = Bun.listen({
			hostname: "127.0.0.1",
			port: 0,
			socket: { data: (s, d) => void s.write(d) },
		});
		const file = join(p.root, ".roundtable/config.yaml");
		const before = readFileSync(file, "utf8");
		const doc = parseDocument(before);
		doc.setIn(["adapters", "generic", "egress"], [`127.0.0.1:${echo.port}`]);
		writeFileSync(file, doc.toString());
		try {
			const probe = await launchProbe(p, {
				proxied: [`127.0.0.1:${echo.port}`, "example.com:443", `127.0.0.1:${new URL(p.url).port}`],
				tcp: [["127.0.0.1", echo.port]],
			});
			expect(probe.tries[`proxied 127.0.0.1:${echo.port}`]).toBe("ok: ping");
			expect(probe.tries["proxied example.com:443"]).toBe("refused: HTTP/1.1 403 Forbidden");
			expect(probe.tries[`proxied 127.0.0.1:${new URL(p.url).port}`]).toBe("refused: HTTP/1.1 403 Forbidden");
			expect(probe.tries[`tcp 127.0.0.1:${echo.port}`]).toStartWith("refused");
			const watched = await runCli(["watch", "--root", p.root, "--limit", "500", "--json"]);
			const refused = (
				JSON.parse(watched.stdout) as { events: { type: string; payload: Record<string, unknown> }[] }
			).events.filter((e) => e.type === "session.egress_refused" && e.payload.session_id === probe.session);
			expect(refused.map((e) => `${e.payload.host}:${e.payload.port}`).sort()).toEqual(
				[`127.0.0.1:${new URL(p.url).port}`, "example.com:443"].sort(),
			);
		} finally {
			writeFileSync(file, before);
			echo.stop(true);
		}
	}, 60_000);
});

describe.skipIf(!sandboxed || !Bun.which("script") || !Bun.which("perl"))(
	"a launched agent in the operator's terminal",
	() => {
		test("cannot type into it: TIOCSTI is refused (row 4)", async () => {
			const p = places[1] as Place;
			const command = launchArgv(
				p.root,
				"reviewer-1",
				["--adapter", "generic"],
				["perl", join(dirname(PROBE), "tiocsti.pl")],
			).join(" ");
			const pty = Bun.spawn(["script", "-qec", command, "/dev/null"], {
				stdin: "pipe",
				stdout: "pipe",
				stderr: "pipe",
			});
			pty.stdin.end();
			const out = await new Response(pty.stdout).text();
			await pty.exited;
			expect(out).toContain("refused: Operation not permitted");
			expect(out).not.toContain("INJECTED");
		}, 60_000);
	},
);

describe.skipIf(!sandboxed)("reading another task's proposal (row 7)", () => {
	test("an agent sees the hunks of files it may read, and is told what was withheld; its bound proposal's files are a reviewer's", async () => {
		const p = places[1] as Place;
		const id = "P-other-task";
		await operator(p.root, "task.create", {
			task_id: "T-2",
			title: "t2",
			body_md: "b",
			assigned_agent_id: "implementer-2",
			readable_paths: ["src", "private"],
		});
		for (const path of ["src/a.ts", "private/plans.md"])
			await operator(p.root, "resource.claim", {
				agent_id: "implementer-2",
				task_id: "T-2",
				resource_type: "file",
				resource_id: `file:${path}`,
				claim_type: "write",
			});
		const change = (path: string, from: string, to: string) =>
			[
				`diff --git a/${path} b/${path}`,
				`--- a/${path}`,
				`+++ b/${path}`,
				"@@ -1 +1 @@",
				`-${from}`,
				`+${to}`,
				"",
			].join("\n");
		await operator(p.root, "proposal.create", {
			proposal_id: id,
			task_id: "T-2",
			agent_id: "implementer-2",
			title: "t",
			summary_md: "s",
			affected_resources: [],
			risk: "low",
			patch:
				change("src/a.ts", "export const a = 1;", "export const a = 2;") +
				change("private/plans.md", "PRIVATE-PLANS", "NEW-PRIVATE-PLANS"),
		});
		const implementer = await launchProbe(p, {}, [["proposal.get", { proposal_id: id }]]);
		const seen = implementer.results[0] as { patch: string; withheld: string[] };
		expect(seen.patch).toContain("export const a = 2;");
		expect(seen.patch).not.toContain("PRIVATE-PLANS");
		expect(seen.withheld).toEqual(["private/plans.md"]);
		// The operator sees all of it.
		const whole = await operator(p.root, "proposal.get", { proposal_id: id });
		expect(whole.patch).toContain("NEW-PRIVATE-PLANS");
		expect(whole.withheld).toEqual([]);
		// A reviewer bound to it reads its files: the whole patch.
		const r = await runCli(
			launchArgs(p.root, "reviewer-1", ["--proposal", id, "--adapter", "generic"], [process.execPath, PROBE]),
			{
				env: {
					...process.env,
					PROBE: "{}",
					ARGS_CALLS: JSON.stringify([["proposal.get", { proposal_id: id }]]),
				},
			},
		);
		const line = r.stdout.split("\n").find((l) => l.startsWith("{")) as string;
		const reviewed = (JSON.parse(line) as { results: { patch: string; withheld: string[] }[] }).results[0];
		expect(reviewed?.patch).toContain("NEW-PRIVATE-PLANS");
		expect(reviewed?.withheld).toEqual([]);
	}, 60_000);
});

describe.skipIf(!sandboxed)("a test run an agent starts with its capability (row 1)", () => {
	test("a patched test script reads none of the project's secrets and reaches none of its sockets", async () => {
		for (const p of places) {
			const token = readFileSync(join(p.root, ".roundtable/operator.token"), "utf8").trim();
			const script = [
				`cat ${p.root}/.roundtable/operator.token`,
				`head -c 15 ${p.root}/.roundtable/roundtable.db`,
				`cat ${p.root}/.env ${p.root}/private/plans.md`,
				`ls -A ${p.root} /var/tmp /root`,
				// Its own scratch copy holds only what implementer-1 may read and the support files.
				"cat private/plans.md .env; ls -A",
				`node -e "require('net').connect('${p.root}/.roundtable/mcp/roundtable.sock').on('connect',()=>console.log('LEGACY-SOCKET-ANSWERED')).on('error',e=>console.log(e.code))"`,
				"echo end",
			].join("\n");
			const patch =
				newFilePatch("package.json", '{"scripts":{"test":"sh hello.txt"}}\n') +
				newFilePatch("hello.txt", `${script}\n`);
			const claim = (path: string) => [
				"resource.claim",
				{
					agent_id: "implementer-1",
					task_id: "T-1",
					resource_type: "file",
					resource_id: `file:${path}`,
					claim_type: "write",
				},
			];
			const id = `P-attack-${Math.random().toString(36).slice(2, 8)}`;
			const probe = await launchProbe(p, {}, [
				claim("package.json") as [string, object],
				claim("hello.txt") as [string, object],
				[
					"proposal.create",
					{
						proposal_id: id,
						task_id: "T-1",
						agent_id: "implementer-1",
						title: "t",
						summary_md: "s",
						affected_resources: ["file:package.json", "file:hello.txt"],
						risk: "low",
						patch,
					},
				],
				["test.run", { command: "npm test", proposal_id: id }],
				[
					"proposal.create",
					{
						task_id: "T-1",
						agent_id: "implementer-1",
						title: "a link",
						summary_md: "s",
						affected_resources: ["file:hello.txt"],
						risk: "low",
						patch: symlinkPatch("src/token", "../.roundtable/operator.token"),
					},
				],
			]);
			// A symlink onto the operator's token is refused outright (a weak point of issue 30).
			expect(probe.results[4]).toMatchObject({
				error: { code: "invalid_argument", details: { path: "src/token" } },
			});
			const run = probe.results[3] as { test_run?: { status: string; sandbox: string }; log?: string };
			expect({ place: p.name, run: run.test_run?.sandbox }).toEqual({ place: p.name, run: "bwrap" });
			const log = run.log ?? "";
			expect(log).toContain("end");
			expect(log).not.toContain(token);
			expect(log).not.toContain("SQLite format");
			expect(log).not.toContain("ENV-SECRET");
			expect(log).not.toContain("PRIVATE-PLANS");
			expect(log).not.toContain("LEGACY-SOCKET-ANSWERED");
		}
	}, 120_000);
});
