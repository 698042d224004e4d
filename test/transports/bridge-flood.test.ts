// The stdio bridge under a flood: a real owner (`roundtable start`), the real bridge subprocess, and
// a client that writes as fast as the bridge's stdin takes it. The bridge must keep a bounded amount
// waiting for the owner and for the client, however much is written; its peak RSS (VmHWM) shows it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { parseDocument } from "yaml";
import { MAIN, REPO, tempDir, until } from "../_helpers/helpers.ts";

const SOURCE = [process.execPath, MAIN];
const spawned: Subprocess[] = [];
afterAll(() => {
	for (const proc of spawned) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
});

let root: string;
beforeAll(async () => {
	root = realpathSync(tempDir("rt-flood-"));
	const init = Bun.spawnSync([...SOURCE, "init", "--root", root], { cwd: REPO });
	expect(init.exitCode).toBe(0);
	const path = join(root, ".roundtable/config.yaml");
	const doc = parseDocument(readFileSync(path, "utf8"));
	doc.setIn(["mcp", "http_address"], "127.0.0.1:0");
	writeFileSync(path, doc.toString());
	const owner = Bun.spawn([...SOURCE, "start", "--root", root], {
		cwd: REPO,
		stdout: "pipe",
		stderr: "pipe",
	});
	spawned.push(owner);
	const reader = owner.stdout.getReader();
	let text = "";
	while (!text.includes("roundtable ready:")) {
		const { value, done } = await reader.read();
		if (done) throw new Error(`the owner exited: ${await new Response(owner.stderr).text()}`);
		text += new TextDecoder().decode(value);
	}
}, 30_000);

function peakKb(pid: number): number {
	return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

/** The bridge, with its stdout split into lines as they come (each must be one JSON object). */
function bridge() {
	const proc = Bun.spawn([...SOURCE, "mcp", "stdio", "--root", root], {
		cwd: REPO,
		stdin: "pipe",
		stdout: "pipe",
		stderr: "pipe",
	});
	spawned.push(proc);
	const frames: { id?: unknown; result?: unknown; error?: { code: number } }[] = [];
	let reading: Promise<void> | undefined;
	const read = () => {
		reading ??= (async () => {
			const decoder = new TextDecoder();
			let rest = "";
			for await (const chunk of proc.stdout) {
				rest += decoder.decode(chunk, { stream: true });
				const lines = rest.split("\n");
				rest = lines.pop() as string;
				for (const line of lines) frames.push(JSON.parse(line));
			}
		})();
		return reading;
	};
	const write = async (data: string | Uint8Array) => {
		proc.stdin.write(data);
		await proc.stdin.flush();
	};
	return { proc, frames, read, write };
}

const initialize = JSON.stringify({
	jsonrpc: "2.0",
	id: "init",
	method: "initialize",
	params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
});

test("600 valid 1 MB calls among malformed and 17 MiB lines: every one answered, memory bounded", async () => {
	const b = bridge();
	void b.read();
	await b.write(`${initialize}\n`);
	await until(() => b.frames.some((f) => f.id === "init"), 15_000, "the initialize answer");
	await b.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);

	const pad = "p".repeat(1024 * 1024);
	const oversized = Buffer.alloc(17 * 1024 * 1024, "o");
	const valid = 600;
	let malformed = 0;
	for (let i = 0; i < valid; i++) {
		// The owner holds each call 1 s, so before answers drain everything written is waiting.
		const params = { name: "table.watch", arguments: { after_event_id: 1e9, wait_ms: 1000 }, _meta: { pad } };
		await b.write(`${JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params })}\n`);
		await b.write("not json\n{\n");
		malformed += 2;
		if (i % 100 === 0) {
			await b.write(oversized);
			await b.write("\n");
			malformed++;
		}
	}
	await b.write(`${JSON.stringify({ jsonrpc: "2.0", id: "last", method: "ping" })}\n`);
	await until(() => b.frames.some((f) => f.id === "last"), 60_000, "the last ping's answer");
	await until(() => b.frames.filter((f) => typeof f.id === "number").length >= valid, 60_000, "every answer");
	const peak = peakKb(b.proc.pid);
	console.log(`bridge peak RSS under the flood: ${Math.round(peak / 1024)} MiB`);

	const answers = b.frames.filter((f) => typeof f.id === "number");
	expect(answers.map((f) => f.id).sort((x, y) => Number(x) - Number(y))).toEqual([...Array(valid).keys()]);
	expect(answers.every((f) => (f.result as { isError?: boolean })?.isError === undefined)).toBe(true);
	const errors = b.frames.filter((f) => f.id === null);
	expect(errors).toHaveLength(malformed);
	expect(errors.every((f) => f.error?.code === -32700)).toBe(true);
	// 600 MiB went in. At most 64 messages (64 MiB) of it wait for the owner at once, each held about
	// 3 times over (its bytes, the request's, garbage not yet collected) on a 45 MB base: about 300
	// MiB here, up to 430 MiB on a loaded machine whose collector lags. Peak memory depends on the
	// collector too much to tell the cap from its absence (the bridge before the cap peaked at 414
	// MiB on this flood), so this is only a ceiling against runaway growth; the next test shows the
	// cap itself.
	expect(peak).toBeLessThan(700 * 1024);
	b.proc.stdin.end();
	expect(await b.proc.exited).toBe(0);
}, 120_000);

test("at 64 calls waiting, the next one waits for a free place; a cancellation still gets through and frees one", async () => {
	const b = bridge();
	void b.read();
	await b.write(`${initialize}\n`);
	await until(() => b.frames.some((f) => f.id === "init"), 15_000, "the initialize answer");
	const watch = { name: "table.watch", arguments: { after_event_id: 1e9, wait_ms: 20_000 } };
	for (let i = 0; i < 64; i++)
		await b.write(
			`${JSON.stringify({ jsonrpc: "2.0", id: `w${i}`, method: "tools/call", params: watch })}\n`,
		);
	await b.write(`${JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" })}\n`);
	await Bun.sleep(1000);
	// Every place is taken by a call the owner holds for 20 s: the ping waits in the bridge.
	expect(b.frames.map((f) => f.id)).toEqual(["init"]);
	const cancel = { requestId: "w0", reason: "the test frees a place" };
	await b.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: cancel })}\n`);
	await until(() => b.frames.some((f) => f.id === "ping"), 15_000, "the ping's answer once a place was free");
	expect(b.frames.find((f) => f.id === "ping")?.result).toEqual({});
	expect(b.frames.some((f) => f.id === "w0")).toBe(false);
	b.proc.stdin.end();
	expect(await b.proc.exited).toBe(0);
}, 60_000);

test("a burst of 10,000 calls through the bridge, a fifth of them cancelled: every other one answered, none refused for too many connections", async () => {
	const b = bridge();
	void b.read();
	await b.write(`${initialize}\n`);
	await until(() => b.frames.some((f) => f.id === "init"), 15_000, "the initialize answer");
	const calls = 10_000;
	// A cancelled call's request is cut by the bridge, and its connection with it: each one a
	// connection the client closed that Bun is not told of.
	const cancelled = (i: number) => i % 5 === 0;
	const lines = [...Array(calls).keys()].map((i) => {
		const params = cancelled(i)
			? { name: "table.watch", arguments: { after_event_id: 1e9, wait_ms: 5000 } }
			: { name: "task.list", arguments: { limit: 1 } };
		const call = `${JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params })}\n`;
		const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: i } };
		return cancelled(i) ? `${call}${JSON.stringify(cancel)}\n` : call;
	});
	for (let i = 0; i < calls; i += 500) await b.write(lines.slice(i, i + 500).join(""));
	const expected = [...Array(calls).keys()].filter((i) => !cancelled(i)).length;
	await until(
		() => b.frames.filter((f) => typeof f.id === "number" && !cancelled(f.id)).length >= expected,
		120_000,
		"every answer",
	);
	const answers = b.frames.filter((f) => typeof f.id === "number");
	const refused = answers.filter((f) => JSON.stringify(f).includes("too many open HTTP connections"));
	expect(refused).toHaveLength(0);
	expect(
		answers.filter(
			(f) =>
				!cancelled(f.id as number) && (f.error !== undefined || (f.result as { isError?: boolean }).isError),
		),
	).toEqual([]);
	b.proc.stdin.end();
	expect(await b.proc.exited).toBe(0);
}, 180_000);
