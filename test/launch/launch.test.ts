// `roundtable sessions launch` with a real owner, the real CLI and real bubblewrap: a launched
// agent (test/fixtures-scripts/agent-probe.ts) tries what it must not do and works through its
// session's socket; its exit closes the session; claims follow their resume_policy. Then the session
// socket itself (framing, the stdio bridge to it, a path too long for a socket) in process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Subprocess } from "bun";
import { call, callerOf } from "../../src/dispatch.ts";
import { launch } from "../../src/launch/launch.ts";
import { LaunchError } from "../../src/launch/session.ts";
import { toolsFor } from "../../src/registry/index.ts";
import { homeInside, probeSandbox, toolFolders } from "../../src/sandbox/index.ts";
import { capabilityHash, newCapability, principalOf } from "../../src/sessions/capability.ts";
import { privateDir, runtimeDir } from "../../src/sessions/paths.ts";
import { InFlight } from "../../src/transports/inflight.ts";
import { startSessionSocket } from "../../src/transports/session-socket.ts";
import { workspaceDir } from "../../src/workspaces/create.ts";
import { MAIN, makeProject, REPO, runCli, tempDir, until } from "../_helpers/helpers.ts";
import {
	launchArgs,
	launchArgv,
	ownedProject,
	PROBE,
	probeOutput,
	readUntil,
} from "../_helpers/launch-helpers.ts";
import { MODERN_META } from "../_helpers/raw-mcp.ts";
import { strayPaths } from "../_helpers/sandbox-helpers.ts";

const sandboxed = probeSandbox().kind === "bwrap";

let root = "";
let url = "";
let owner: Subprocess<"ignore", "pipe", "pipe"> | undefined;

beforeAll(async () => {
	const owned = await ownedProject(tempDir("rt-launch-"), {
		"README.md": "# launched\n",
		"src/a.ts": "export const a = 1;\n",
		"private/plans.md": "PRIVATE-PLANS\n",
	});
	({ root, url, owner } = owned);
	const task = {
		task_id: "T-1",
		title: "t",
		body_md: "b",
		assigned_agent_id: "implementer-1",
		readable_paths: ["src", "README.md"],
	};
	expect(
		(await runCli(["mcp", "call", "--root", root, "--tool", "task.create", "--args", JSON.stringify(task)]))
			.code,
	).toBe(0);
}, 60_000);

afterAll(async () => {
	owner?.kill("SIGTERM");
	await owner?.exited;
});

/** Launches the probe as implementer-1 on T-1; `calls` are made through its session's socket. */
async function launchProbe(calls: [string, object][] = [], extra: string[] = [], probe: object = {}) {
	const r = await runCli(
		launchArgs(
			root,
			"implementer-1",
			["--task", "T-1", "--adapter", "generic", ...extra],
			[process.execPath, PROBE],
		),
		{
			env: {
				...process.env,
				ARGS_CALLS: JSON.stringify(calls),
				PROBE: JSON.stringify(probe),
				AWS_SECRET_ACCESS_KEY: "aws-secret-of-the-operator",
			},
		},
	);
	return probeOutput<Probe>(r);
}

interface Probe {
	tries: Record<string, string>;
	tools: string[];
	results: Record<string, unknown>[];
	env: string[];
	cwd: string;
}

/** What a launched agent tries against its own project and the operator's doors. */
const against = () => ({
	reads: [
		join(root, ".roundtable/roundtable.db"),
		join(root, ".roundtable/operator.token"),
		join(root, "README.md"),
	],
	writes: [join(root, "probe-was-here.txt")],
	unix: [join(root, ".roundtable/mcp/roundtable.sock")],
	tcp: [["127.0.0.1", Number(new URL(url).port)]],
});

const operatorCall = async (tool: string, args: object) => {
	const r = await runCli(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args)]);
	if (r.code !== 0) throw new Error(`${tool}: ${r.stderr}`);
	return JSON.parse(r.stdout);
};

describe.skipIf(!sandboxed)("a launched agent, in bubblewrap", () => {
	test("sees nothing of the project, reaches none of the operator's doors; through its socket it works within its role", async () => {
		const probe = await launchProbe(
			[
				["task.get", { task_id: "T-1" }],
				["vote.cast", { proposal_id: "P-1", agent_id: "implementer-1", vote: "approve", reason_md: "x" }],
			],
			[],
			against(),
		);
		expect(probe.code).toBe(0);
		for (const [name, outcome] of Object.entries(probe.tries))
			expect({ name, outcome }).toMatchObject({
				outcome: expect.stringMatching(/^refused/),
			});
		expect(Object.keys(probe.tries)).toHaveLength(6);
		// It works in an empty workspace of its own and reads the project through the tools.
		expect(probe.cwd).toBe("/workspace");
		expect(probe.tools).toEqual(toolsFor("Implementer").map((t) => t.name));
		expect(probe.results[0]).toMatchObject({ task: { id: "T-1" } });
		expect(probe.results[1]).toMatchObject({ error: { code: "permission_denied" } });
		// Of Roundtable's variables, the four and only those; none of the operator's others.
		expect(probe.env.filter((k) => k.startsWith("ROUNDTABLE_"))).toEqual([
			"ROUNDTABLE_CAPABILITY",
			"ROUNDTABLE_ROOT",
			"ROUNDTABLE_SESSION_ID",
			"ROUNDTABLE_SESSION_SOCKET",
		]);
		expect(probe.env).not.toContain("AWS_SECRET_ACCESS_KEY");
		expect(existsSync(join(root, "probe-was-here.txt"))).toBe(false);

		// The session is closed: ended, revoked, its folder and socket gone; the owner saw its tools/list.
		const listed = await runCli(["sessions", "list", "--root", root]);
		expect(listed.stdout).toMatch(
			new RegExp(`^${probe.session} implementer-1 ended .* capability revoked `, "m"),
		);
		expect(existsSync(join(root, ".roundtable/sessions", probe.session))).toBe(false);
		const watched = await runCli(["watch", "--root", root, "--limit", "200", "--json"]);
		const events = (
			JSON.parse(watched.stdout) as { events: { type: string; payload: Record<string, unknown> }[] }
		).events;
		expect(
			events.find((e) => e.type === "session.tools_listed" && e.payload.session_id === probe.session),
		).toMatchObject({
			payload: { tools: toolsFor("Implementer").length },
		});
		expect(
			events.find((e) => e.type === "session.closed" && e.payload.session_id === probe.session),
		).toMatchObject({
			payload: { reason: "exit 0" },
		});
	}, 60_000);

	test("a session bound to a task works in a copy of what the task may read, in a git repository of its own", async () => {
		const script = [
			"ls -A",
			"git log --format=%s",
			"git status --porcelain",
			"git cat-file --batch-all-objects --batch-check | wc -l",
			"git grep -I PRIVATE-PLANS $(git rev-list --all) || echo not-in-history",
			"echo 'export const a = 2;' > src/a.ts",
			"git diff --stat",
		].join("; ");
		const r = await runCli(
			launchArgs(root, "implementer-1", ["--task", "T-1", "--adapter", "generic"], ["/bin/sh", "-c", script]),
		);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout).toBe(
			[
				".git",
				"README.md",
				"src",
				"The project's files this task may read",
				// a commit, two trees (the top and src/) and two blobs: nothing from elsewhere
				"5",
				"not-in-history",
				" src/a.ts | 2 +-",
				" 1 file changed, 1 insertion(+), 1 deletion(-)",
				"",
			].join("\n"),
		);
		// The project is as it was, and the workspace is gone with the session.
		expect(readFileSync(join(root, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
		const session = /session (S-\S+) for/.exec(r.stderr)?.[1] as string;
		const { workspacesRoot } = await import("../../src/workspaces/create.ts");
		expect(readdirSync(workspacesRoot(), { recursive: true }).some((p) => String(p).includes(session))).toBe(
			false,
		);
	}, 60_000);

	test("it edits with its own tools and proposes what it changed: the proposal is that change, and applies", async () => {
		const edit = `echo 'export const a = 42;' > src/a.ts && exec ${process.execPath} ${PROBE}`;
		const calls: [string, object][] = [
			[
				"resource.claim",
				{ resource_type: "file", resource_id: "file:src/a.ts", claim_type: "write", task_id: "T-1" },
			],
			[
				"workspace.propose",
				{ proposal_id: "P-from-workspace", title: "42", summary_md: "The answer.", risk: "low" },
			],
		];
		const r = await runCli(
			launchArgs(root, "implementer-1", ["--task", "T-1", "--adapter", "generic"], ["/bin/sh", "-c", edit]),
			{ env: { ...process.env, ARGS_CALLS: JSON.stringify(calls), PROBE: "{}" } },
		);
		const probe = probeOutput<Probe>(r);
		expect(probe.results[1]).toMatchObject({
			proposal: { id: "P-from-workspace", agent_id: "implementer-1" },
		});
		const { patch } = await operatorCall("proposal.get", { proposal_id: "P-from-workspace" });
		expect(patch).toContain("-export const a = 1;\n+export const a = 42;");
		await operatorCall("proposal.request_review", { proposal_id: "P-from-workspace" });
		for (const agent of ["architect-1", "reviewer-1"])
			await operatorCall("vote.cast", {
				proposal_id: "P-from-workspace",
				agent_id: agent,
				vote: "approve",
				reason_md: "ok",
			});
		// Everything it changed was proposed: nothing is kept as a draft.
		expect((await runCli(["sessions", "list", "--root", root])).stdout).toMatch(
			new RegExp(`^${probe.session} implementer-1 ended .*capability revoked \\S+$`, "m"),
		);
		await operatorCall("patch.apply", { proposal_id: "P-from-workspace" });
		expect(readFileSync(join(root, "src/a.ts"), "utf8")).toBe("export const a = 42;\n");
		const rollback = (await operatorCall("table.get_state", {})) as { transactions: { id: string }[] };
		// Leave the project as the other tests expect it.
		await operatorCall("patch.rollback", {
			transaction_id: rollback.transactions.at(-1)?.id,
			reason_md: "test",
		});
	}, 60_000);

	test("changes it never proposed are kept as a draft when the session closes, for the operator to read", async () => {
		const edit = "echo 'export const a = 7;' > src/a.ts && echo '# kept' >> README.md";
		const r = await runCli(
			launchArgs(root, "implementer-1", ["--task", "T-1", "--adapter", "generic"], ["/bin/sh", "-c", edit]),
		);
		expect(r.code, r.stderr).toBe(0);
		const session = /session (S-\S+) for/.exec(r.stderr)?.[1] as string;
		expect(r.stderr).toContain(`session ${session} left unproposed changes to 2 file(s), kept as a draft`);
		expect((await runCli(["sessions", "list", "--root", root])).stdout).toMatch(
			new RegExp(`^${session} implementer-1 ended .* draft [0-9a-f]{12} \\(2 files\\)$`, "m"),
		);
		const draft = await operatorCall("workspace.diff", { session_id: session });
		expect(draft.files).toEqual([
			{ path: "README.md", change: "modified" },
			{ path: "src/a.ts", change: "modified" },
		]);
		expect(draft.patch).toContain("+export const a = 7;");
		// The project itself never changed.
		expect(readFileSync(join(root, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
	}, 60_000);

	test("changes too big for a draft keep the workspace folder itself, and say where", async () => {
		const big = "head -c 3000000 /dev/urandom > src/big.bin";
		const r = await runCli(
			launchArgs(root, "implementer-1", ["--task", "T-1", "--adapter", "generic"], ["/bin/sh", "-c", big]),
		);
		expect(r.code, r.stderr).toBe(0);
		const session = /session (S-\S+) for/.exec(r.stderr)?.[1] as string;
		expect(r.stderr).toContain(`could not keep session ${session}'s workspace changes as a draft`);
		expect(r.stderr).toContain("limits.max_patch_bytes");
		const kept = new RegExp(`session ${session}'s workspace is kept at (\\S+)`).exec(r.stderr)?.[1] as string;
		expect(statSync(join(kept, "src/big.bin")).size).toBe(3_000_000);
		rmSync(dirname(kept), { recursive: true, force: true });
	}, 60_000);

	test("find / sees the system, its tools, this program, /workspace, /session and its own $HOME — nothing else", async () => {
		const home = tempDir("rt-agent-home-");
		const list =
			"find / -maxdepth 3 -not -path '/proc/*' -not -path '/usr/*' -not -path '/dev/*' 2>/dev/null | sort";
		const r = await runCli(
			launchArgs(root, "reviewer-1", ["--adapter", "generic"], ["/bin/sh", "-c", list]),
			{
				env: { ...process.env, HOME: home },
			},
		);
		expect(r.code, r.stderr).toBe(0);
		const seen = r.stdout.split("\n").filter((l) => l.startsWith("/"));
		const tools = [
			...toolFolders(["/bin/sh"], { path: process.env.PATH ?? "", home, never: [root] }),
			...["bin", "src", "node_modules", "package.json"].map((f) => join(REPO, f)),
			dirname(realpathSync(process.execPath)),
			dirname(PROBE),
		];
		const stray = strayPaths(seen, {
			under: [homeInside(home), ...tools],
			wayTo: [homeInside(home), ...tools],
			exact: ["/workspace", "/session", "/session/mcp.sock", "/session/proxy.sock"],
		});
		expect(stray).toEqual([]);
		// /root appears only as the way to a tool under it (a ~/.cargo/bin on PATH), never with its files.
		const rootShown = tools.some((t) => t.startsWith("/root/"));
		for (const gone of [root, "/var", "/run", join(root, ".roundtable"), ...(rootShown ? [] : ["/root"])])
			expect(seen).not.toContain(gone);
		expect(seen).toContain("/session/mcp.sock");
	}, 60_000);

	test("claims follow their resume_policy when the session ends: hold stays, release is released, suspend is suspended", async () => {
		const claim = (id: string, resume_policy: string) =>
			[
				"resource.claim",
				{
					claim_id: id,
					agent_id: "implementer-1",
					task_id: "T-1",
					resource_type: "endpoint",
					resource_id: `endpoint:${id}`,
					claim_type: "write",
					resume_policy,
				},
			] as [string, object];
		const probe = await launchProbe([
			claim("C-hold", "hold"),
			claim("C-release", "release"),
			claim("C-suspend", "suspend"),
		]);
		expect(probe.results.map((r) => (r as { claim?: { status: string } }).claim?.status)).toEqual([
			"active",
			"active",
			"active",
		]);
		const status = async (id: string) =>
			(
				(await operatorCall("resource.claim_status", { resource_id: `endpoint:${id}` })) as {
					claims: { status: string; status_reason: string | null }[];
				}
			).claims[0];
		expect(await status("C-hold")).toMatchObject({ status: "active" });
		expect(await status("C-release")).toMatchObject({
			status: "released",
			status_reason: `session ${probe.session} ended: exit 0`,
		});
		expect(await status("C-suspend")).toMatchObject({ status: "suspended" });
	}, 60_000);
});

const TRAPS_TERM = "trap 'echo agent got TERM; exit 7' TERM; echo ready; sleep 30 & wait";

test("a stop signal reaches the agent itself, which may finish; its status is the launch's", async () => {
	const launched = Bun.spawn(
		launchArgv(root, "reviewer-1", ["--adapter", "generic"], ["/bin/sh", "-c", TRAPS_TERM]),
		{ stdin: "ignore", stdout: "pipe", stderr: "pipe" },
	);
	const reader = launched.stdout.getReader();
	await readUntil(reader, "ready");
	launched.kill("SIGTERM");
	const out = await readUntil(reader);
	expect(await launched.exited).toBe(7);
	expect(out).toContain("agent got TERM");
}, 60_000);

test.skipIf(!sandboxed)(
	"a stop while the session is set up: the agent never starts, the session closes, its workspace goes",
	async () => {
		// A task whose workspace takes a while to copy, so the stop comes while it is made.
		const files = Object.fromEntries(
			Array.from({ length: 3000 }, (_, i) => [`src/f${i}.ts`, `export const f = ${i};\n`]),
		);
		const owned = await ownedProject(tempDir("rt-launch-stop-"), files);
		try {
			const task = {
				task_id: "T-big",
				title: "t",
				body_md: "b",
				assigned_agent_id: "implementer-1",
				readable_paths: ["src"],
			};
			await runCli([
				"mcp",
				"call",
				"--root",
				owned.root,
				"--tool",
				"task.create",
				"--args",
				JSON.stringify(task),
			]);
			const launched = Bun.spawn(
				launchArgv(
					owned.root,
					"implementer-1",
					["--task", "T-big", "--adapter", "generic"],
					["/bin/sh", "-c", "echo agent started"],
				),
				{ stdin: "ignore", stdout: "pipe", stderr: "pipe" },
			);
			const sessions = join(owned.root, ".roundtable/sessions");
			const deadline = Date.now() + 20_000;
			while (
				Date.now() < deadline &&
				!(existsSync(sessions) && readdirSync(sessions).some((d) => d.startsWith("S-")))
			)
				await Bun.sleep(2);
			launched.kill("SIGTERM");
			expect(await launched.exited).toBe(143);
			expect(await new Response(launched.stdout).text()).not.toContain("agent started");
			const listed = await runCli(["sessions", "list", "--root", owned.root]);
			const session = /^(S-\S+) implementer-1 ended/m.exec(listed.stdout)?.[1] as string;
			const watched = await runCli(["watch", "--root", owned.root, "--limit", "200", "--json"]);
			const closed = (
				JSON.parse(watched.stdout) as { events: { type: string; payload: Record<string, unknown> }[] }
			).events.find((e) => e.type === "session.closed");
			expect(closed?.payload).toMatchObject({
				session_id: session,
				reason: "stopped by SIGTERM before the agent started",
			});
			expect(existsSync(workspaceDir(owned.root, session))).toBe(false);
		} finally {
			owned.owner.kill("SIGTERM");
			await owned.owner.exited;
		}
	},
	60_000,
);

test("without a terminal what the agent writes is kept as its transcript, its capability redacted; sessions log prints it", async () => {
	const token = readFileSync(join(root, ".roundtable/operator.token"), "utf8").trim();
	// The agent prints its own capability, and tries the operator's token (which it cannot read).
	const script = `echo "out: $ROUNDTABLE_CAPABILITY"; echo "err: $ROUNDTABLE_CAPABILITY ${token}" >&2; echo done`;
	const r = await runCli(launchArgs(root, "reviewer-1", ["--adapter", "generic"], ["/bin/sh", "-c", script]));
	expect(r.code, r.stderr).toBe(0);
	const session = /session (S-\S+) for/.exec(r.stderr)?.[1] as string;
	// What the caller sees passes through as written.
	expect(r.stdout).toMatch(/^out: [\w-]{30,}$/m);
	const kept = readFileSync(join(root, ".roundtable/transcripts", `${session}.log`), "utf8");
	expect(kept).toContain("out: [redacted]\n");
	expect(kept).toContain("err: [redacted] [redacted]\n");
	expect(kept).toContain("done\n");
	expect(kept).not.toContain(token);
	expect(statSync(join(root, ".roundtable/transcripts", `${session}.log`)).mode & 0o777).toBe(0o600);
	const printed = await runCli(["sessions", "log", session, "--root", root]);
	expect(printed.stdout).toBe(kept);
	const followed = await runCli(["sessions", "log", session, "--follow", "--root", root]);
	expect(followed.stdout).toBe(kept);
	const none = await runCli(["sessions", "log", "S-nobody", "--root", root]);
	expect(none.code).toBe(2);
	expect(none.stderr).toContain("no session 'S-nobody'");
}, 60_000);

test("without a terminal a session ends at sessions.max_wall_seconds: SIGTERM to the agent, which may finish; SIGKILL 10 s later if it does not", async () => {
	const owned = await ownedProject(tempDir("rt-launch-wall-"), { "README.md": "# r\n" }, (doc) =>
		doc.setIn(["sessions", "max_wall_seconds"], 1),
	);
	try {
		const run = async (script: string) => {
			const started = performance.now();
			const r = await runCli(
				launchArgs(owned.root, "reviewer-1", ["--adapter", "generic"], ["/bin/sh", "-c", script]),
			);
			return { ...r, seconds: (performance.now() - started) / 1000 };
		};
		const finishes = await run("trap 'echo finishing; exit 3' TERM; sleep 30 & wait");
		expect({ code: finishes.code, out: finishes.stdout }).toEqual({ code: 124, out: "finishing\n" });
		expect(finishes.stderr).toContain("reached sessions.max_wall_seconds (1 s): stopping it");
		expect(finishes.seconds).toBeLessThan(8);
		const stubborn = await run("trap '' TERM; sleep 30 & wait; sleep 30");
		expect(stubborn.code).toBe(124);
		expect(stubborn.seconds).toBeGreaterThan(10);
		expect(stubborn.seconds).toBeLessThan(20);
		const watched = await runCli(["watch", "--root", owned.root, "--limit", "200", "--json"]);
		const reasons = (
			JSON.parse(watched.stdout) as { events: { type: string; payload: { reason?: string } }[] }
		).events
			.filter((e) => e.type === "session.closed")
			.map((e) => e.payload.reason);
		expect(reasons).toEqual([
			"stopped at sessions.max_wall_seconds (1 s)",
			"stopped at sessions.max_wall_seconds (1 s)",
		]);
	} finally {
		owned.owner.kill("SIGTERM");
		await owned.owner.exited;
	}
}, 60_000);

test("the exit status is the agent's, and a session that could not start is closed", async () => {
	const r = await runCli([
		"sessions",
		"launch",
		"--root",
		root,
		"--agent",
		"reviewer-1",
		"--",
		"/bin/sh",
		"-c",
		"exit 3",
	]);
	expect(r.code).toBe(3);
	const session = /session (S-\S+) for reviewer-1/.exec(r.stderr)?.[1] as string;
	expect((await runCli(["sessions", "list", "--root", root])).stdout).toMatch(
		new RegExp(`^${session} reviewer-1 ended .* capability revoked `, "m"),
	);
	const refused = await runCli([
		"sessions",
		"launch",
		"--root",
		root,
		"--agent",
		"implementer-2",
		"--task",
		"T-1",
		"--",
		"/bin/true",
	]);
	expect(refused.code).toBe(1);
	expect(refused.stderr).toContain("task T-1 is assigned to implementer-1, not implementer-2");
	expect((await runCli(["sessions", "launch", "--root", root, "--agent", "reviewer-1", "--"])).code).toBe(2);
}, 60_000);

test("sessions.sandbox required where bubblewrap is unusable: refused before anything is minted", async () => {
	const fakeBin = tempDir("rt-fake-bwrap-");
	writeFileSync(
		join(fakeBin, "bwrap"),
		"#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
		{
			mode: 0o755,
		},
	);
	const config = join(root, ".roundtable/config.yaml");
	const before = readFileSync(config, "utf8");
	writeFileSync(config, before.replace(/(sessions:\n(?:.*\n)*? {2}sandbox: )auto/, "$1required"));
	try {
		const sessions = (await runCli(["sessions", "list", "--root", root])).stdout;
		const r = await runCli(
			["sessions", "launch", "--root", root, "--agent", "reviewer-1", "--", "/bin/true"],
			{
				env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}` },
			},
		);
		expect(r.code).toBe(1);
		expect(r.stderr).toContain(
			"sessions.sandbox is required, but there is no sandbox here: bubblewrap is unusable here: bwrap: No permissions to create new namespace",
		);
		expect((await runCli(["sessions", "list", "--root", root])).stdout).toBe(sessions);
	} finally {
		writeFileSync(config, before);
	}
}, 60_000);

test("sessions.sandbox off: the session still works, and says loudly that the agent can reach the operator's files", async () => {
	const config = join(root, ".roundtable/config.yaml");
	const before = readFileSync(config, "utf8");
	writeFileSync(
		config,
		before.replace(/sessions:\n {2}capability_ttl_seconds: 28800\n( {2}#.*\n)* {2}sandbox: auto/, (m) =>
			m.replace("sandbox: auto", "sandbox: off"),
		),
	);
	try {
		const probe = await launchProbe([["task.get", { task_id: "T-1" }]], [], against());
		expect(probe.stderr).toContain("WARNING: no sandbox (sessions.sandbox is off): the agent runs as you");
		// What the sandbox refuses above, unsandboxed: the checks there can fail.
		expect(probe.tries[`read ${join(root, ".roundtable/operator.token")}`]).toStartWith("ok");
		expect(probe.tries[`unix ${join(root, ".roundtable/mcp/roundtable.sock")}`]).toBe("ok");
		rmSync(join(root, "probe-was-here.txt"), { force: true });
		// The environment is an allowlist even so.
		expect(probe.env).not.toContain("AWS_SECRET_ACCESS_KEY");
		expect(probe.results[0]).toMatchObject({ task: { id: "T-1" } });
	} finally {
		writeFileSync(config, before);
	}
}, 60_000);

describe("the session socket, in process", async () => {
	const p = await makeProject({
		config: "limits:\n  max_frame_bytes: 65536\n",
	});
	await call(
		p.rt,
		"task.create",
		{ task_id: "T-s", title: "t", body_md: "b", assigned_agent_id: "implementer-1" },
		p.ctx,
	);
	const { session } = await call(
		p.rt,
		"session.mint",
		{
			agent_id: "implementer-1",
			capability_sha256: capabilityHash(newCapability()),
			task_id: "T-s",
			endpoint: true,
		},
		p.ctx,
	);
	const socket = await startSessionSocket(callerOf(p.rt), {
		path: session.mcp_socket as string,
		principal: principalOf(session),
		maxFrameBytes: 65536,
		maxConnections: 4,
		inflight: new InFlight(),
	});
	afterAll(() => socket.close());

	/** A raw connection: what each line sent is answered with. */
	async function exchange(lines: (string | Uint8Array)[], answers: number) {
		const got: Record<string, unknown>[] = [];
		let buffer = "";
		let done!: () => void;
		const finished = new Promise<void>((resolve) => {
			done = resolve;
		});
		const s = await Bun.connect({
			unix: socket.path,
			socket: {
				data(_s, chunk) {
					buffer += new TextDecoder().decode(chunk);
					for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
						got.push(JSON.parse(buffer.slice(0, nl)));
						buffer = buffer.slice(nl + 1);
					}
					if (got.length >= answers) done();
				},
			},
		});
		for (const line of lines) s.write(typeof line === "string" ? `${line}\n` : line);
		await Promise.race([finished, Bun.sleep(5000)]);
		s.end();
		return got;
	}

	test("framing as seed 001 says: −32700 for bad JSON, bad UTF-8 and an oversized line (drained, the stream goes on), −32600 for a bad envelope", async () => {
		const initialize = JSON.stringify({
			jsonrpc: "2.0",
			id: 7,
			method: "initialize",
			params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
		});
		const got = await exchange(
			[
				"{not json",
				new Uint8Array([0xff, 0xfe, 0x0a]),
				`${"x".repeat(70_000)}`,
				'{"jsonrpc":"2.0","id":1}',
				"[1,2]",
				initialize,
			],
			6,
		);
		expect(got.map((m) => (m.error as { code: number } | undefined)?.code ?? "ok")).toEqual([
			-32700,
			-32700,
			-32700,
			-32600,
			-32600,
			"ok",
		]);
		expect(got[5]).toMatchObject({ id: 7, result: { serverInfo: { name: "roundtable" } } });
	});

	/** `roundtable mcp stdio` with ROUNDTABLE_SESSION_SOCKET set: how a launched agent's client starts it. */
	const bridgeToSocket = () => ({
		command: process.execPath,
		args: [MAIN, "mcp", "stdio"],
		env: { ...(process.env as Record<string, string>), ROUNDTABLE_SESSION_SOCKET: socket.path },
	});

	test("`roundtable mcp stdio` with ROUNDTABLE_SESSION_SOCKET set bridges to it: the role's tools, calls as the agent", async () => {
		const client = new Client({ name: "bridged", version: "1" });
		await client.connect(new StdioClientTransport(bridgeToSocket()));
		try {
			const { tools } = await client.listTools();
			expect(tools.map((t) => t.name)).toEqual(toolsFor("Implementer").map((t) => t.name));
			const got = await client.callTool({ name: "task.get", arguments: { task_id: "T-s" } });
			expect(got.structuredContent).toMatchObject({ task: { id: "T-s" } });
			const refused = await client.callTool({ name: "resource.claim_status", arguments: { agent_id: "x" } });
			expect(refused.isError).toBeFalsy();
		} finally {
			await client.close();
		}
	});

	test("a 2026-07-28 client through the same bridge: each line answered on its own, as the session's agent, its role's tools only", async () => {
		const { Client: ModernClient } = await import("@modelcontextprotocol/client");
		const { StdioClientTransport: ModernStdio } = await import("@modelcontextprotocol/client/stdio");
		const client = new ModernClient(
			{ name: "bridged-modern", version: "1" },
			{ versionNegotiation: { mode: { pin: "2026-07-28" } } },
		);
		await client.connect(new ModernStdio(bridgeToSocket()));
		try {
			expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
			const { tools } = await client.listTools();
			expect(tools.map((t) => t.name)).toEqual(toolsFor("Implementer").map((t) => t.name));
			const got = await client.callTool({ name: "task.get", arguments: { task_id: "T-s" } });
			expect(got.structuredContent).toMatchObject({ task: { id: "T-s" } });
			// Outside its role: refused in call(), as in the other era.
			const refused = await client.callTool({
				name: "vote.cast",
				arguments: { proposal_id: "P-x", vote: "approve" },
			});
			expect(refused.isError).toBe(true);
			expect(JSON.stringify(refused.content)).toContain("permission_denied");
		} finally {
			await client.close();
		}
	});

	/** A new-era listen on the session's socket for `uris`, and every line it has answered so far. */
	async function listenOnSocket(id: string, uris: string[]) {
		const got: { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown }[] = [];
		let buffer = "";
		const s = await Bun.connect({
			unix: socket.path,
			socket: {
				data(_s, chunk) {
					buffer += new TextDecoder().decode(chunk);
					for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
						got.push(JSON.parse(buffer.slice(0, nl)));
						buffer = buffer.slice(nl + 1);
					}
				},
			},
		});
		s.write(
			`${JSON.stringify({
				jsonrpc: "2.0",
				id,
				method: "subscriptions/listen",
				params: {
					_meta: MODERN_META,
					notifications: { resourceSubscriptions: uris },
				},
			})}\n`,
		);
		await until(() => got.length >= 1, 10_000, "the acknowledgement");
		return { got, end: () => s.end() };
	}

	const ask = (from: string, to: string) =>
		call(p.rt, "peer.ask", { agent_id: from, assignee_agent_id: to, question_md: "?" }, p.ctx);

	test("a listen on the session's socket, as its agent: only what the agent may read is acknowledged and heard", async () => {
		const own = (await ask("implementer-1", "implementer-2")).request.id;
		const others = (await ask("reviewer-1", "implementer-2")).request.id;
		const uris = [own, others].map((id) => `roundtable://requests/${id}`);
		const { got, end } = await listenOnSocket("L1", uris);
		try {
			expect(got[0]).toMatchObject({
				method: "notifications/subscriptions/acknowledged",
				params: { notifications: { resourceSubscriptions: [uris[0]] } },
			});
			for (const id of [others, own])
				await call(p.rt, "peer.answer", { agent_id: "implementer-2", request_id: id, answer_md: "a" }, p.ctx);
			await until(() => got.length >= 2, 10_000, "the update");
			await Bun.sleep(300);
			expect(got.slice(1).map((m) => m.params?.uri)).toEqual([uris[0]]);
		} finally {
			end();
		}
	});

	// The last of this session's tests: it ends the session.
	test("on the session's socket too, a listen ends when its session does, and hears nothing after", async () => {
		const own = (await ask("implementer-1", "implementer-2")).request.id;
		const { got, end } = await listenOnSocket("L2", [`roundtable://requests/${own}`]);
		try {
			await call(p.rt, "session.close", { session_id: session.id, reason: "the agent exited" }, p.ctx);
			await until(() => got.some((m) => m.id === "L2"), 10_000, "the listen's answer");
			await call(
				p.rt,
				"peer.answer",
				{ agent_id: "implementer-2", request_id: own, answer_md: "late" },
				p.ctx,
			);
			await Bun.sleep(300);
			expect(got.map((m) => m.method ?? m.result)).toEqual([
				"notifications/subscriptions/acknowledged",
				{ resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": "L2" } },
			]);
		} finally {
			end();
		}
	});

	test("a socket path too long for the kernel moves to a private folder of its own in the runtime folder", async () => {
		const deep = join(tempDir("rt-long-"), "a-rather-long-folder-name-for-a-project", "and-deeper-still");
		mkdirSync(deep, { recursive: true });
		const q = await makeProject({ root: deep });
		const minted = await call(
			q.rt,
			"session.mint",
			{ agent_id: "reviewer-1", capability_sha256: capabilityHash(newCapability()), endpoint: true },
			q.ctx,
		);
		const path = minted.session.mcp_socket as string;
		expect(dirname(dirname(path))).toBe(runtimeDir());
		privateDir(dirname(path));
		// Room beside it for the session's proxy socket too.
		expect(Buffer.byteLength(join(dirname(path), "proxy.sock"))).toBeLessThanOrEqual(107);
		const s = await startSessionSocket(callerOf(q.rt), {
			path,
			principal: principalOf(minted.session),
			maxFrameBytes: 65536,
			maxConnections: 1,
			inflight: new InFlight(),
		});
		expect(existsSync(path)).toBe(true);
		// The socket 0600, in a folder of this session's alone that only its owner may enter.
		expect(statSync(path).mode & 0o777).toBe(0o600);
		expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
		expect(statSync(runtimeDir()).mode & 0o777).toBe(0o700);
		s.close();
		expect(existsSync(path)).toBe(false);
	});

	test("launching refuses where loopback HTTP needs no credential (the agent could be the operator there)", async () => {
		const q = await makeProject({ config: "mcp:\n  loopback_auth: none\n" });
		await expect(
			launch(q.rt, { agent: "reviewer-1", command: ["/bin/true"], log: () => {} }),
		).rejects.toBeInstanceOf(LaunchError);
	});
});
