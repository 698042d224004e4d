// The official MCP conformance suite (@modelcontextprotocol/conformance) against the real owner:
// `roundtable start` in a subprocess on a port the OS picks, the suite's CLI run once per scenario.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { initProject } from "../src/init/index.ts";
import { MAIN, REPO, readyLine, runProcess, tempDir } from "./helpers.ts";

const CONFORMANCE = join(REPO, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SCENARIOS = [
	"server-initialize",
	"ping",
	"tools-list",
	"server-sse-multiple-streams",
	"dns-rebinding-protection",
];

let root = "";
let owner: Subprocess<"ignore", "pipe", "pipe"> | undefined;
let port = 0;
let ownerStderr: Promise<string> = Promise.resolve("");

beforeAll(async () => {
	root = tempDir("rt-conformance-");
	mkdirSync(join(root, ".roundtable"), { recursive: true });
	writeFileSync(join(root, ".roundtable", "config.yaml"), "mcp:\n  http_address: 127.0.0.1:0\n");
	await initProject(root);
	owner = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
		cwd: REPO,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	ownerStderr = new Response(owner.stderr).text();
	const { ready: line } = await readyLine(owner, 15_000, () => ownerStderr);
	const url = /\bhttp=(http:\/\/127\.0\.0\.1:(\d+)\/mcp)\b/.exec(line);
	if (!url) throw new Error(`unexpected ready line: ${line}`);
	port = Number(url[2]);
	const published = JSON.parse(await Bun.file(join(root, ".roundtable", "owner.json")).text());
	expect(published).toMatchObject({ pid: owner.pid, http_url: url[1] });
}, 30_000);

afterAll(async () => {
	if (owner && owner.exitCode === null) {
		owner.kill("SIGKILL");
		await owner.exited;
	}
});

describe("MCP conformance suite against `roundtable start`", () => {
	for (const scenario of SCENARIOS) {
		test(scenario, async () => {
			expect(port).toBeGreaterThan(0);
			const out = tempDir("rt-conformance-out-");
			const { stdout, stderr, code } = await runProcess(
				[
					process.execPath,
					CONFORMANCE,
					"server",
					"--url",
					// dns-rebinding-protection needs a localhost URL; the owner listens on 127.0.0.1.
					`http://localhost:${port}/mcp`,
					"--scenario",
					scenario,
					"-o",
					out,
				],
				{ cwd: REPO },
			);
			const output = `${stdout}\n${stderr}`;
			if (code !== 0 || !/\b0 failed\b/.test(output)) console.log(output);
			expect(code).toBe(0);
			const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
			expect(summary).not.toBeNull();
			const [, passed, total, failed, warnings] = (summary as RegExpExecArray).map(Number);
			expect({ failed, warnings }).toEqual({ failed: 0, warnings: 0 });
			expect(passed).toBe(total as number);
			expect(total).toBeGreaterThan(0);
		}, 120_000);
	}

	test("SIGTERM stops the owner with exit code 0 and withdraws owner.json", async () => {
		const proc = owner as Subprocess<"ignore", "pipe", "pipe">;
		proc.kill("SIGTERM");
		const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => "still running")]);
		const stderr = await Promise.race([ownerStderr, Bun.sleep(1000).then(() => "")]);
		expect({ code, stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining("SIGTERM") });
		expect(existsSync(join(root, ".roundtable", "owner.json"))).toBe(false);
		const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
			(r) => `answered ${r.status}`,
			() => "refused",
		);
		expect(refused).toBe("refused");
	}, 30_000);
});
