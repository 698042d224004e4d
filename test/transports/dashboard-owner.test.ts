// The dashboard as `roundtable start` serves it, through the real CLI in a subprocess: the login
// line after the ready line, the link that signs in once, the operator's token from the
// environment, the app page, an event this (other) process commits arriving on the stream, and the
// stream ending when the owner stops.
import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { Browser, EventReader } from "../_helpers/dashboard-helpers.ts";
import { MAIN, makeProject } from "../_helpers/helpers.ts";

const LOOPBACK_ANY_PORT = "mcp:\n  http_address: 127.0.0.1:0\n";
const ENV_TOKEN = "the-operator-token-from-the-environment";

const spawned: Subprocess[] = [];
afterAll(async () => {
	for (const proc of spawned) {
		if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
		await proc.exited;
	}
});

/** The first `n` lines of a child's stdout, failing after `ms`. */
async function lines(proc: Subprocess<"ignore", "pipe", "pipe">, n: number, ms = 20_000): Promise<string[]> {
	const reader = proc.stdout.getReader();
	const decoder = new TextDecoder();
	let text = "";
	const deadline = Date.now() + ms;
	while (text.split("\n").length <= n) {
		const next = await Promise.race([
			reader.read(),
			Bun.sleep(Math.max(0, deadline - Date.now())).then(() => "timeout" as const),
		]);
		if (next === "timeout") throw new Error(`no ${n} lines within ${ms} ms: ${text}`);
		if (next.done)
			throw new Error(`exited before ${n} lines: ${text} ${await new Response(proc.stderr).text()}`);
		text += decoder.decode(next.value, { stream: true });
	}
	reader.releaseLock();
	return text.split("\n").slice(0, n);
}

describe("roundtable start serves the dashboard", () => {
	test("prints a one-time login link after the ready line; it signs in once, the operator's token always", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const proc = Bun.spawn([process.execPath, MAIN, "start", "--root", p.root], {
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
			env: { ...process.env, ROUNDTABLE_MCP_TOKEN: ENV_TOKEN },
		});
		spawned.push(proc);
		const [ready, dashboard] = await lines(proc, 2);
		const http = /http=(http:\/\/127\.0\.0\.1:\d+)\/mcp /.exec(ready as string)?.[1] as string;
		expect(http).toBeDefined();
		const link = /^roundtable dashboard: (\S+)$/.exec(dashboard as string)?.[1] as string;
		expect(link).toMatch(new RegExp(`^${http.replace(/\./g, "\\.")}/\\?token=[A-Za-z0-9_-]{43}$`));

		const browser = new Browser(http);
		const opened = await browser.get(link);
		expect(opened.status).toBe(303);
		expect(opened.headers.get("location")).toBe("/");
		expect((await browser.get("/")).headers.get("content-type")).toBe("text/html; charset=utf-8");
		expect((await new Browser(http).get(link)).status).toBe(401);
		await new Browser(http).login(ENV_TOKEN);

		// This test process is another process to the owner: what it commits reaches the stream.
		const stream = await EventReader.open(browser);
		const { task } = (await p.call("task.create", { title: "from the test", body_md: "b" })) as {
			task: { id: string };
		};
		const seen = await stream.until((e) => e.data.type === "task.created");
		expect(seen.at(-1)?.data).toMatchObject({ task_id: task.id });

		proc.kill("SIGTERM");
		await stream.ended();
		expect(await proc.exited).toBe(0);
	}, 60_000);
});
