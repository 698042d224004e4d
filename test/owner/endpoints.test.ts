// What clients are told about where the owner is, and how `mcp call` reaches it: through a live
// owner's socket by default, in process with --direct, owner-or-fail with --socket. A port the
// system picked (mcp.http_address :0) is named as bound, never as 0; a port in use says which
// setting to change. Real owners in subprocesses, real sockets and HTTP on 127.0.0.1.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { MAIN, makeProject, readyLine, runCli } from "../_helpers/helpers.ts";

const ANY_PORT = "mcp:\n  http_address: 127.0.0.1:0\n";

const spawned: Subprocess[] = [];
afterAll(async () => {
	for (const proc of spawned) {
		if (proc.exitCode === null) proc.kill("SIGKILL");
		await proc.exited;
	}
});

async function startOwner(root: string, flags: string[] = []) {
	const proc = Bun.spawn([process.execPath, MAIN, "start", "--root", root, ...flags], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	spawned.push(proc);
	const stderr = new Response(proc.stderr).text();
	const { ready } = await readyLine(proc, 20_000, () => stderr);
	const url = /\bhttp=(\S+)/.exec(ready)?.[1] as string;
	return { proc, url, stderr };
}

async function stop(proc: Subprocess) {
	proc.kill("SIGTERM");
	return proc.exited;
}

const read = (root: string, rel: string) => readFileSync(join(root, rel), "utf8");
const call = (root: string, tool: string, args: unknown = {}, flags: string[] = []) =>
	runCli(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args), ...flags]);

describe("mcp call beside a live owner", () => {
	test("goes through the owner, which keeps its running config while config.yaml has a bad edit; --direct opens the project itself", async () => {
		const p = await makeProject({ config: ANY_PORT });
		p.close();
		const owner = await startOwner(p.root);
		// An edit the owner refuses to reload: it keeps serving with the config it runs.
		writeFileSync(join(p.root, ".roundtable", "config.yaml"), `${ANY_PORT}bogus_key: 1\n`);

		const created = await call(p.root, "task.create", { title: "relayed", body_md: "x" });
		expect(created.stderr).toBe("");
		expect(created.code).toBe(0);
		const id = (JSON.parse(created.stdout) as { task: { id: string } }).task.id;

		// In process, the same call must load the project and meets the bad edit.
		const direct = await call(p.root, "task.get", { task_id: id }, ["--direct"]);
		expect(direct.code).toBe(1);
		const err = JSON.parse(direct.stderr) as { error: { code: string; message: string } };
		expect(err.error.code).toBe("failed_precondition");
		expect(err.error.message).toContain("bogus_key");

		const relayed = await call(p.root, "task.get", { task_id: id });
		expect(relayed.code).toBe(0);
		expect((JSON.parse(relayed.stdout) as { task: { title: string } }).task.title).toBe("relayed");
		// A failing tool through the owner is the tool's error, not a fallback to this process.
		const missing = await call(p.root, "task.get", { task_id: "nope" });
		expect(missing.code).toBe(1);
		expect((JSON.parse(missing.stderr) as { error: { code: string } }).error.code).toBe("not_found");
		expect(await stop(owner.proc)).toBe(0);
	}, 60_000);

	test("an owner that died (stale owner.json and socket) is passed over: the call runs in process", async () => {
		const p = await makeProject({ config: ANY_PORT });
		p.close();
		const owner = await startOwner(p.root);
		owner.proc.kill("SIGKILL");
		await owner.proc.exited;
		const r = await call(p.root, "task.create", { title: "after the owner died", body_md: "x" });
		expect(r.stderr).toBe("");
		expect(r.code).toBe(0);
		// --socket insists on an owner.
		const insist = await call(p.root, "task.list", {}, ["--socket"]);
		expect(insist.code).toBe(1);
		expect(insist.stderr).toContain("roundtable start");
	}, 60_000);

	test("--socket with --direct is a usage error", async () => {
		const p = await makeProject();
		p.close();
		const r = await call(p.root, "task.list", {}, ["--socket", "--direct"]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("--socket or --direct");
	});
});

describe("the URL clients are told", () => {
	test("with port 0, start rewrites server.json and the manifest with the port it bound, and init then leaves them as they are", async () => {
		const p = await makeProject({ config: ANY_PORT });
		p.close();
		const before = JSON.parse(read(p.root, ".roundtable/mcp/server.json"));
		expect(before.transports.streamable_http.url).toBe("http://127.0.0.1:0/mcp");
		const owner = await startOwner(p.root);
		expect(owner.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/);
		const after = JSON.parse(read(p.root, ".roundtable/mcp/server.json"));
		expect(after.transports.streamable_http.url).toBe(owner.url);
		expect(read(p.root, ".roundtable/mcp/AGENT_MCP_MANIFEST.md")).toContain(owner.url);
		expect(read(p.root, ".roundtable/mcp/AGENT_MCP_MANIFEST.md")).not.toContain(":0/mcp");
		// Written by Roundtable, so not mistaken for a user's edit.
		const init = await runCli(["init", "--root", p.root]);
		expect(init.code).toBe(0);
		expect(init.stdout).not.toContain("kept .roundtable/mcp/server.json");
		expect(JSON.parse(read(p.root, ".roundtable/mcp/server.json"))).toEqual(after);
		expect(await stop(owner.proc)).toBe(0);
	}, 60_000);

	test("the stdio bridge with no owner and port 0 never names port 0", async () => {
		const p = await makeProject({ config: ANY_PORT });
		p.close();
		const r = await runCli(["mcp", "stdio", "--root", p.root], { stdin: "" });
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain("roundtable start");
		expect(r.stderr).toContain("owner.json");
		expect(r.stderr).not.toContain(":0/");
	}, 30_000);

	test("the stdio bridge never relays to another project's owner listening on its configured address", async () => {
		const a = await makeProject({ config: ANY_PORT });
		a.close();
		const owner = await startOwner(a.root);
		const b = await makeProject({ config: `mcp:\n  http_address: ${new URL(owner.url).host}\n` });
		b.close();
		const r = await runCli(["mcp", "stdio", "--root", b.root], { stdin: "" });
		expect(r.code).toBe(1);
		expect(r.stderr).toContain("no Roundtable owner at");
		expect(await stop(owner.proc)).toBe(0);
	}, 60_000);

	test("start on a port in use names mcp.http_address and the fix", async () => {
		const squatter = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("mine") });
		try {
			const address = `127.0.0.1:${squatter.port}`;
			const p = await makeProject({ config: `mcp:\n  http_address: ${address}\n` });
			p.close();
			const r = await runCli(["start", "--root", p.root]);
			expect(r.code).toBe(1);
			expect(r.stdout).toBe("");
			expect(r.stderr).toContain(`mcp.http_address ${address} is in use`);
			expect(r.stderr).toContain("start with --port N");
			expect(r.stderr).toContain("127.0.0.1:0");
			// It gave up cleanly: no owner is advertised, and the next start can take the project.
			expect(() => read(p.root, ".roundtable/owner.json")).toThrow();
		} finally {
			squatter.stop(true);
		}
	}, 30_000);

	test("start --port and --address pick where HTTP listens for that run; the config is untouched", async () => {
		const squatter = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("mine") });
		try {
			const taken = `127.0.0.1:${squatter.port}`;
			const p = await makeProject({ config: `mcp:\n  http_address: ${taken}\n` });
			p.close();
			const before = read(p.root, ".roundtable/config.yaml");
			const byPort = await startOwner(p.root, ["--port", "0"]);
			expect(new URL(byPort.url).hostname).toBe("127.0.0.1");
			expect(new URL(byPort.url).port).not.toBe(String(squatter.port));
			expect(JSON.parse(read(p.root, ".roundtable/owner.json")).http_url).toBe(byPort.url);
			expect((await fetch(new URL("/healthz", byPort.url))).status).toBe(200);
			expect(await stop(byPort.proc)).toBe(0);
			const byAddress = await startOwner(p.root, ["--address", "127.0.0.1:0"]);
			expect((await fetch(new URL("/healthz", byAddress.url))).status).toBe(200);
			expect(await stop(byAddress.proc)).toBe(0);
			expect(read(p.root, ".roundtable/config.yaml")).toBe(before);
			for (const [flags, says] of [
				[["--port", "0", "--address", "127.0.0.1:0"], "give --address or --port, not both"],
				[["--port", "70000"], "--port must be 0 to 65535 (was 70000)"],
				[["--address", "7117"], "--address must be HOST:PORT, e.g. 127.0.0.1:7117 (was '7117')"],
				[["--port", "x"], "--port must be an integer"],
			] as const) {
				const r = await runCli(["start", "--root", p.root, ...flags]);
				expect({ flags, code: r.code, says: r.stderr.includes(says) }, r.stderr).toEqual({
					flags,
					code: 2,
					says: true,
				});
			}
		} finally {
			squatter.stop(true);
		}
	}, 60_000);
});
