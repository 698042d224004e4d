// The compiled binary, built by `npm run build`'s own script into a temp folder and run the way a
// user runs a downloaded copy: from other folders, with no bun on PATH and no node_modules near.
// A feature that only works from source (embedded grammars, the owner, the stdio bridge, test
// runs) fails here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_TOOLS } from "../../src/registry/index.ts";
import { VERSION } from "../../src/version.ts";
import { REPO, runProcess } from "../_helpers/helpers.ts";
import {
	cleanUp,
	prepareProject,
	scratch,
	startOwner,
	stdioSession,
	userEnv,
} from "../_helpers/install-helpers.ts";

const out = scratch("rt-binary-");
const binary = join(out, "roundtable");
const home = scratch("rt-binary-home-");
const env = userEnv(home);
const root = scratch("rt-binary-project-");

afterAll(cleanUp);

beforeAll(async () => {
	const started = performance.now();
	const build = await runProcess([process.execPath, join(REPO, "scripts", "build.ts"), binary], {
		cwd: REPO,
	});
	if (build.code !== 0) throw new Error(`the build failed (${build.code}): ${build.stderr}`);
	console.log(
		`binary: built in ${((performance.now() - started) / 1000).toFixed(1)} s, ${statSync(binary).size} bytes`,
	);
}, 180_000);

test("the build writes the binary's SHA-256 beside it, in sha256sum format", async () => {
	const digest = createHash("sha256").update(readFileSync(binary)).digest("hex");
	expect(readFileSync(`${binary}.sha256`, "utf8")).toBe(`${digest}  roundtable\n`);
	if (Bun.which("sha256sum")) {
		const check = await runProcess(["sha256sum", "-c", "roundtable.sha256"], { cwd: out });
		expect(check).toMatchObject({ code: 0, stdout: "roundtable: OK\n" });
	}
});

test("--version, from an unrelated folder with no bun on PATH", async () => {
	const r = await runProcess([binary, "--version"], { cwd: home, env });
	expect(r).toMatchObject({ code: 0, stdout: `roundtable ${VERSION}\n`, stderr: "" });
});

/** The `[mcp_servers.roundtable]` entry that `init --client codex` wrote. */
const codexEntry = () =>
	(
		Bun.TOML.parse(readFileSync(join(root, ".codex", "config.toml"), "utf8")) as {
			mcp_servers: { roundtable: { command: string; args: string[] } };
		}
	).mcp_servers.roundtable;

describe("a project run by the binary alone", () => {
	beforeAll(async () => {
		prepareProject(root, '\ntests:\n  allowed_commands:\n    - "./check.sh"\n');
		writeFileSync(join(root, "check.sh"), '#!/bin/sh\necho "checked $1"\n');
		chmodSync(join(root, "check.sh"), 0o755);
		writeFileSync(join(root, "server.go"), readFileSync(join(REPO, "fixtures", "symbols", "server.go")));
		const init = await runProcess([binary, "init", "--client", "codex"], { cwd: root, env });
		expect(init.stderr).toBe("");
		expect(init.code).toBe(0);
	}, 60_000);

	test("init --client codex writes the binary's own absolute path", () => {
		expect(codexEntry()).toEqual({ command: binary, args: ["mcp", "stdio", "--root", root] });
	});

	test("symbols: the grammars are inside the binary", async () => {
		const r = await runProcess([binary, "symbols", "--path", "server.go", "--root", root], {
			cwd: home,
			env,
		});
		expect(r.stderr).toBe("");
		expect(r.stdout.split("\n")).toContain("method Server.Start server.go 34 37");
	});

	test("start, then the client entry relays a session and a test run goes through the owner", async () => {
		const owner = await startOwner([binary, "start"], root, env);
		expect(owner.ready).toMatch(/^roundtable ready: .* http=http:\/\/127\.0\.0\.1:\d+\/mcp /);

		// The dashboard's files are inside the binary, byte for byte.
		const base = (/http=(\S+)\/mcp /.exec(owner.ready) as RegExpExecArray)[1] as string;
		const web = (file: string) => readFileSync(join(REPO, "src/dashboard/web", file), "utf8");
		const assets = readdirSync(join(REPO, "src/dashboard/web")).filter((f) => f !== "index.html");
		expect(assets).toEqual(expect.arrayContaining(["app.js", "app.css"]));
		for (const file of assets)
			expect({ file, body: await (await fetch(`${base}/assets/${file}`)).text() }).toEqual({
				file,
				body: web(file),
			});
		const token = readFileSync(join(root, ".roundtable", "operator.token"), "utf8").trim();
		const login = await fetch(`${base}/?token=${token}`, { redirect: "manual" });
		expect(login.status).toBe(303);
		const cookie = (login.headers.get("set-cookie") as string).split(";")[0] as string;
		expect(await (await fetch(`${base}/`, { headers: { cookie } })).text()).toBe(web("index.html"));

		// Exactly what Codex would run, from somewhere else.
		const { command, args } = codexEntry();
		const session = await stdioSession([command, ...args], home, env);
		expect(session.initialize.result?.serverInfo).toMatchObject({ name: "roundtable", version: VERSION });
		expect(session.toolNames).toEqual(AGENT_TOOLS.map((t) => t.name).sort());
		const state = session.state.result?.structuredContent as { agents: unknown[] };
		expect(state.agents).toHaveLength(8);
		expect(session.code).toBe(0);

		// `mcp call` goes through the live owner's socket, so the owner (the binary) runs the test.
		const run = await runProcess(
			[binary, "mcp", "call", "--tool", "test.run", "--args", '{"command": "./check.sh one"}'],
			{ cwd: root, env },
		);
		expect(run.code).toBe(0);
		const result = JSON.parse(run.stdout) as { test_run: { status: string }; log: string };
		expect(result.test_run.status).toBe("passed");
		expect(result.log).toBe("checked one\n");

		expect(await owner.stop()).toBe(0);
		expect(existsSync(join(root, ".roundtable", "owner.json"))).toBe(false);
		// The project's bunfig.toml preload never ran inside Roundtable.
		expect(existsSync(join(root, "preloaded"))).toBe(false);
	}, 60_000);
});
