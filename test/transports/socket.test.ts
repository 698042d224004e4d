// The legacy Unix socket: the seed's one-line-per-connection protocol plus its limits (frame cap,
// read and write deadlines, connection cap), whole writes of large replies, cancellation on client
// disconnect, file permissions and the stale-socket check. Real sockets in temp dirs, a real
// SQLite project, real child processes; everything is asserted on the wire or on disk.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { callerOf } from "../../src/dispatch.ts";
import { InFlight } from "../../src/transports/inflight.ts";
import { type SocketOptions, type SocketServer, startSocket } from "../../src/transports/socket.ts";
import { makeProject, type Project, REPO, runCli, runProcess, tempDir } from "../_helpers/helpers.ts";

const FIXTURES = join(REPO, "test", "fixtures-scripts");

// ---------------------------------------------------------------------------------------------
// A raw client: writes whatever bytes it is told (handling partial writes), can half-close, and
// collects every byte until the server closes.

interface Received {
	data: Buffer;
	/** ms from connect to close */
	elapsed: number;
}

interface RawConn {
	send(bytes: string | Uint8Array): Promise<void>;
	/** Half-close: no more bytes from us, but we keep reading. */
	shutdown(): Promise<void>;
	/** Full close from our side. */
	close(): void;
	/** Resolves when the connection is closed (by either side) with every byte received. */
	done: Promise<Received>;
	received(): Buffer;
}

async function connectRaw(path: string): Promise<RawConn> {
	const chunks: Buffer[] = [];
	const started = performance.now();
	let queue: Buffer = Buffer.alloc(0);
	let drained: (() => void)[] = [];
	let shutdownPending = false;
	let resolveDone!: (r: Received) => void;
	const done = new Promise<Received>((resolve) => {
		resolveDone = resolve;
	});
	let finished = false;
	const finish = () => {
		if (finished) return;
		finished = true;
		resolveDone({ data: Buffer.concat(chunks), elapsed: performance.now() - started });
	};
	// biome-ignore lint/suspicious/noExplicitAny: Bun's socket type is generic over data we don't use
	let sock: any;
	const pump = () => {
		while (queue.length > 0) {
			const n = sock.write(queue);
			if (n <= 0) return;
			queue = queue.subarray(n);
		}
		if (shutdownPending) {
			shutdownPending = false;
			sock.shutdown();
		}
		for (const wake of drained.splice(0)) wake();
	};
	sock = await Bun.connect({
		unix: path,
		allowHalfOpen: true,
		socket: {
			data(_s, chunk) {
				chunks.push(Buffer.from(chunk));
			},
			drain() {
				pump();
			},
			end(s) {
				s.end();
			},
			close: finish,
			error: finish,
		},
	});
	return {
		send(bytes) {
			queue = Buffer.concat([queue, Buffer.from(bytes)]);
			return new Promise((resolve) => {
				drained.push(resolve);
				pump();
			});
		},
		shutdown() {
			return new Promise((resolve) => {
				shutdownPending = true;
				drained.push(resolve);
				pump();
			});
		},
		close() {
			drained = [];
			sock.end();
		},
		done,
		received: () => Buffer.concat(chunks),
	};
}

/** One connection: send the bytes, optionally half-close, and collect everything until close. */
async function exchange(
	path: string,
	bytes: string | Uint8Array,
	options: { halfClose?: boolean } = {},
): Promise<Received> {
	const conn = await connectRaw(path);
	await conn.send(bytes);
	if (options.halfClose) await conn.shutdown();
	return conn.done;
}

interface Reply {
	ok: boolean;
	result?: Record<string, unknown>;
	error?: string;
	code?: string;
	details?: Record<string, unknown>;
}

/** The bytes must be exactly one newline-terminated JSON line; returns it parsed. */
function oneLine(data: Buffer): Reply {
	const text = data.toString("utf8");
	expect(text.endsWith("\n")).toBe(true);
	expect(text.indexOf("\n")).toBe(text.length - 1);
	return JSON.parse(text) as Reply;
}

async function request(path: string, envelope: unknown): Promise<Reply> {
	return oneLine((await exchange(path, `${JSON.stringify(envelope)}\n`)).data);
}

/** A short fresh socket path (Unix socket paths are limited to ~107 bytes). */
function socketPath(): string {
	const dir = tempDir("rts-");
	return join(dir, "s.sock");
}

const servers: SocketServer[] = [];
afterAll(() => {
	for (const s of servers) s.close();
});

async function serve(
	p: Project,
	overrides: Partial<SocketOptions> = {},
): Promise<{ server: SocketServer; path: string; inflight: InFlight }> {
	const inflight = overrides.inflight ?? new InFlight();
	const options: SocketOptions = {
		path: socketPath(),
		privateDir: false,
		maxFrameBytes: 16 * 1024 * 1024,
		readDeadlineMs: 5000,
		writeDeadlineMs: 5000,
		maxConnections: 64,
		...overrides,
		inflight,
	};
	const server = await startSocket(callerOf(p.rt), options);
	servers.push(server);
	return { server, path: options.path, inflight };
}

async function titles(p: Project): Promise<string[]> {
	const out = (await p.call("task.list", { limit: 1000 })) as { tasks: { title: string }[] };
	return out.tasks.map((t) => t.title);
}

async function lastEventId(p: Project): Promise<number> {
	const state = (await p.call("table.get_state")) as { last_event_id: number };
	return state.last_event_id;
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
	const until = performance.now() + ms;
	while (performance.now() < until) {
		if (cond()) return true;
		await Bun.sleep(10);
	}
	return cond();
}

// makeProject registers its own afterAll, so projects are made at the top level.
const p = await makeProject();
const { path } = await serve(p);
const q = await makeProject();
const lonely = await makeProject();

// ---------------------------------------------------------------------------------------------

describe("the seed's envelope", () => {
	test("one request line → one ok line, then the server closes", async () => {
		await p.call("task.create", { title: "envelope-ok", body_md: "b" });
		const { data } = await exchange(path, `${JSON.stringify({ tool: "task.list", args: {} })}\n`);
		const reply = oneLine(data);
		expect(Object.keys(reply).sort()).toEqual(["ok", "result"]);
		expect(reply.ok).toBe(true);
		const tasks = (reply.result as { tasks: { title: string }[] }).tasks;
		expect(tasks.map((t) => t.title)).toContain("envelope-ok");
	});

	test("a mutation through the socket takes effect", async () => {
		const reply = await request(path, {
			tool: "task.create",
			args: { title: "made-over-socket", body_md: "x" },
		});
		expect(reply.ok).toBe(true);
		const id = (reply.result as { task: { id: string } }).task.id;
		const got = (await p.call("task.get", { task_id: id })) as { task: { title: string } };
		expect(got.task.title).toBe("made-over-socket");
	});

	test("a tool error → ok:false with error, code and details, then close", async () => {
		const reply = await request(path, { tool: "task.get", args: { taskId: "T-1" } });
		expect(reply.ok).toBe(false);
		expect(reply.result).toBeUndefined();
		expect(reply.code).toBe("invalid_argument");
		expect(typeof reply.error).toBe("string");
		expect(reply.error).toContain("taskId");
		expect(reply.details?.did_you_mean).toBe("task_id");
	});

	test("a missing record → not_found", async () => {
		const reply = await request(path, { tool: "task.get", args: { task_id: "T-does-not-exist" } });
		expect(reply).toMatchObject({ ok: false, code: "not_found" });
		expect(typeof reply.error).toBe("string");
	});

	test("EOF after bytes ends the line: a request without a newline is answered after a half-close", async () => {
		const { data } = await exchange(path, JSON.stringify({ tool: "task.list", args: {} }), {
			halfClose: true,
		});
		expect(oneLine(data).ok).toBe(true);
	});

	test("a half-close after a newline-terminated request still gets the answer", async () => {
		const { data } = await exchange(path, `${JSON.stringify({ tool: "task.list" })}\n`, { halfClose: true });
		expect(oneLine(data).ok).toBe(true);
	});

	test("surrounding ASCII whitespace is trimmed", async () => {
		// Leading whitespace may not include a newline: that would be an empty first line.
		const { data } = await exchange(path, ` \t\r${JSON.stringify({ tool: "task.list" })} \t\r\n`);
		expect(oneLine(data).ok).toBe(true);
	});

	test("an empty or blank line closes without a response", async () => {
		for (const line of ["\n", "   \t\r\n"]) {
			const { data } = await exchange(path, line);
			expect(data.length).toBe(0);
		}
	});

	test("an immediate EOF closes without a response", async () => {
		const { data } = await exchange(path, "", { halfClose: true });
		expect(data.length).toBe(0);
	});

	test("blank bytes then EOF close without a response", async () => {
		const { data } = await exchange(path, "  \t ", { halfClose: true });
		expect(data.length).toBe(0);
	});

	test("only the first line is processed", async () => {
		const first = JSON.stringify({ tool: "task.create", args: { title: "first-line-only-1", body_md: "x" } });
		const second = JSON.stringify({
			tool: "task.create",
			args: { title: "first-line-only-2", body_md: "x" },
		});
		const { data } = await exchange(path, `${first}\n${second}\n`);
		const reply = oneLine(data);
		expect(reply.ok).toBe(true);
		expect((reply.result as { task: { title: string } }).task.title).toBe("first-line-only-1");
		const all = await titles(p);
		expect(all).toContain("first-line-only-1");
		expect(all).not.toContain("first-line-only-2");
	});

	test("an empty first line closes without a response even when a request follows", async () => {
		const line = JSON.stringify({
			tool: "task.create",
			args: { title: "after-an-empty-line", body_md: "x" },
		});
		const { data } = await exchange(path, `\n${line}\n`);
		expect(data.length).toBe(0);
		expect(await titles(p)).not.toContain("after-an-empty-line");
	});

	test("a second line sent later on the same connection is ignored too", async () => {
		const conn = await connectRaw(path);
		await conn.send(
			`${JSON.stringify({ tool: "table.watch", args: { after_event_id: await lastEventId(p), wait_ms: 300 } })}\n`,
		);
		await conn.send(
			`${JSON.stringify({ tool: "task.create", args: { title: "late-second-line", body_md: "x" } })}\n`,
		);
		const { data } = await conn.done;
		expect(oneLine(data).ok).toBe(true);
		expect(await titles(p)).not.toContain("late-second-line");
	});

	test("missing and null args are treated as {}", async () => {
		for (const line of ['{"tool":"task.list"}', '{"tool":"task.list","args":null}']) {
			const reply = oneLine((await exchange(path, `${line}\n`)).data);
			expect(reply.ok).toBe(true);
			expect(Array.isArray((reply.result as { tasks: unknown[] }).tasks)).toBe(true);
		}
	});

	test("other envelope fields are ignored", async () => {
		const reply = await request(path, {
			jsonrpc: "2.0",
			id: 7,
			method: "tools/call",
			tool: "task.list",
			args: { limit: 1 },
			extra: { nested: [1, 2] },
		});
		expect(reply.ok).toBe(true);
		expect((reply.result as { tasks: unknown[] }).tasks.length).toBeLessThanOrEqual(1);
	});

	test("envelope names are exact: Tool/Args are not tool/args", async () => {
		const wrongTool = await request(path, { Tool: "task.list", args: {} });
		expect(wrongTool).toMatchObject({ ok: false, code: "invalid_argument" });
		// `Args` is an unknown envelope field, so it is ignored and args is {} (limit 1 not applied).
		for (let i = 0; i < 2; i++) await p.call("task.create", { title: `args-exact-${i}`, body_md: "x" });
		const wrongArgs = await request(path, { tool: "task.list", Args: { limit: 1 } });
		expect(wrongArgs.ok).toBe(true);
		expect((wrongArgs.result as { tasks: unknown[] }).tasks.length).toBeGreaterThan(1);
	});

	test("tool names are not trimmed or case-normalized", async () => {
		for (const tool of ["Task.List", " task.list", "task.list "]) {
			const reply = await request(path, { tool, args: {} });
			expect(reply).toMatchObject({ ok: false, code: "not_found" });
		}
	});

	test("non-object args → invalid_argument, nothing executed", async () => {
		for (const args of [[], ["x"], "title", 5, true]) {
			const reply = await request(path, { tool: "task.create", args });
			expect(reply).toMatchObject({ ok: false, code: "invalid_argument" });
			expect(typeof reply.error).toBe("string");
		}
	});

	test("a non-string tool → invalid_argument", async () => {
		for (const tool of [5, true, ["task.list"], { name: "task.list" }]) {
			const reply = await request(path, { tool, args: {} });
			expect(reply).toMatchObject({ ok: false, code: "invalid_argument" });
		}
	});

	test("a missing, null or empty tool → invalid_argument", async () => {
		for (const line of ['{"args":{}}', '{"tool":null}', '{"tool":""}', "{}", "null"]) {
			const reply = oneLine((await exchange(path, `${line}\n`)).data);
			expect(reply).toMatchObject({ ok: false, code: "invalid_argument" });
		}
	});

	test("a non-object envelope → invalid_argument", async () => {
		for (const line of ["[]", '["task.list",{}]', '"task.list"', "42", "true"]) {
			const reply = oneLine((await exchange(path, `${line}\n`)).data);
			expect(reply).toMatchObject({ ok: false, code: "invalid_argument" });
		}
	});

	test("an unknown tool → not_found with did_you_mean", async () => {
		const reply = await request(path, { tool: "task.lst", args: {} });
		expect(reply).toMatchObject({ ok: false, code: "not_found" });
		expect(reply.error).toContain("task.lst");
		expect(reply.details?.did_you_mean).toBe("task.list");
	});

	test("invalid JSON → invalid_argument", async () => {
		for (const line of ['{"tool":"task.list"', "{tool: task.list}", '{"tool":"task.list"} {}', "garbage"]) {
			const reply = oneLine((await exchange(path, `${line}\n`)).data);
			expect(reply).toMatchObject({ ok: false, code: "invalid_argument" });
		}
	});

	test("invalid UTF-8 → invalid_argument, nothing executed", async () => {
		const head = Buffer.from('{"tool":"task.create","args":{"title":"bad-utf8-');
		const tail = Buffer.from('","body_md":"x"}}\n');
		for (const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80]]) {
			const { data } = await exchange(path, Buffer.concat([head, Buffer.from(bad), tail]));
			const reply = oneLine(data);
			expect(reply).toMatchObject({ ok: false, code: "invalid_argument" });
			expect(reply.error?.toLowerCase()).toContain("utf-8");
		}
		expect((await titles(p)).some((t) => t.startsWith("bad-utf8-"))).toBe(false);
	});

	test("valid multi-byte UTF-8 round-trips, also when split across writes", async () => {
		const title = "héllo wörld — 日本語 🎲";
		const line = Buffer.from(`${JSON.stringify({ tool: "task.create", args: { title, body_md: "x" } })}\n`);
		const conn = await connectRaw(path);
		// Split inside a multi-byte character.
		const cut = line.indexOf(Buffer.from("日")) + 1;
		await conn.send(line.subarray(0, cut));
		await Bun.sleep(50);
		await conn.send(line.subarray(cut));
		const reply = oneLine((await conn.done).data);
		expect(reply.ok).toBe(true);
		expect((reply.result as { task: { title: string } }).task.title).toBe(title);
	});

	test("a request split across writes is reassembled", async () => {
		const line = `${JSON.stringify({ tool: "task.list", args: { limit: 1 } })}\n`;
		const conn = await connectRaw(path);
		for (const part of [line.slice(0, 5), line.slice(5, 12), line.slice(12)]) {
			await conn.send(part);
			await Bun.sleep(30);
		}
		expect(oneLine((await conn.done).data).ok).toBe(true);
	});
});

// ---------------------------------------------------------------------------------------------

describe("limits", () => {
	test("a line over the frame cap → resource_exhausted, nothing executed", async () => {
		const { path: capped } = await serve(p, { maxFrameBytes: 1024 });
		const line = JSON.stringify({
			tool: "task.create",
			args: { title: "over-the-frame-cap", body_md: "y".repeat(2000) },
		});
		const reply = oneLine((await exchange(capped, `${line}\n`)).data);
		expect(reply).toMatchObject({ ok: false, code: "resource_exhausted" });
		expect(reply.error).toContain("1024");
		expect(await titles(p)).not.toContain("over-the-frame-cap");
	});

	test("a line within the frame cap is served by the same capped server", async () => {
		const { path: capped } = await serve(p, { maxFrameBytes: 1024 });
		const base = { tool: "task.create", args: { title: "within-the-frame-cap", body_md: "" } };
		const fill = 1024 - JSON.stringify(base).length;
		base.args.body_md = "z".repeat(fill);
		const line = JSON.stringify(base);
		expect(Buffer.byteLength(line)).toBe(1024);
		const reply = oneLine((await exchange(capped, `${line}\n`)).data);
		expect(reply.ok).toBe(true);
		expect(await titles(p)).toContain("within-the-frame-cap");
	});

	test("the frame cap applies to the first line only: bytes after its newline are ignored", async () => {
		const { path: capped } = await serve(p, { maxFrameBytes: 1024 });
		const first = JSON.stringify({ tool: "task.create", args: { title: "short-first-line", body_md: "x" } });
		const reply = oneLine((await exchange(capped, `${first}\n${"t".repeat(8192)}\n`)).data);
		expect(reply.ok).toBe(true);
		expect(await titles(p)).toContain("short-first-line");
	});

	test("an oversized line without a newline is refused at once, not at the read deadline", async () => {
		const { path: capped } = await serve(p, { maxFrameBytes: 1024, readDeadlineMs: 10_000 });
		const conn = await connectRaw(capped);
		await conn.send(
			`{"tool":"task.create","args":{"title":"streamed-over-cap","body_md":"${"q".repeat(4096)}`,
		);
		const { data, elapsed } = await conn.done;
		expect(oneLine(data)).toMatchObject({ ok: false, code: "resource_exhausted" });
		expect(elapsed).toBeLessThan(5000);
		expect(await titles(p)).not.toContain("streamed-over-cap");
	});

	test("a client that never sends a newline is cut off by the read deadline; others are served meanwhile", async () => {
		const { path: slow } = await serve(p, { readDeadlineMs: 600 });
		const stalled = await connectRaw(slow);
		await stalled.send('{"tool":"task.list","args":');
		// Meanwhile, other clients are served at once.
		const t0 = performance.now();
		for (let i = 0; i < 3; i++) {
			const reply = oneLine((await exchange(slow, `${JSON.stringify({ tool: "task.list" })}\n`)).data);
			expect(reply.ok).toBe(true);
		}
		expect(performance.now() - t0).toBeLessThan(500);
		expect(stalled.received().length).toBe(0);
		const { data, elapsed } = await stalled.done;
		const reply = oneLine(data);
		expect(reply).toMatchObject({ ok: false, code: "deadline_exceeded" });
		expect(elapsed).toBeGreaterThan(450);
		expect(elapsed).toBeLessThan(5000);
	});

	test("an idle client that sends nothing is cut off by the read deadline", async () => {
		const { path: slow } = await serve(p, { readDeadlineMs: 300 });
		const idle = await connectRaw(slow);
		const { data, elapsed } = await idle.done;
		expect(oneLine(data)).toMatchObject({ ok: false, code: "deadline_exceeded" });
		expect(elapsed).toBeGreaterThan(200);
		expect(elapsed).toBeLessThan(5000);
	});

	test("the read deadline does not cut a call that is already running", async () => {
		const { path: slow } = await serve(p, { readDeadlineMs: 200 });
		const after = await lastEventId(p);
		const t0 = performance.now();
		const reply = await request(slow, { tool: "table.watch", args: { after_event_id: after, wait_ms: 700 } });
		expect(reply.ok).toBe(true);
		expect(performance.now() - t0).toBeGreaterThan(600);
	});

	test("connection cap: the connection over the cap gets resource_exhausted at once; a freed slot serves again", async () => {
		const { path: capped } = await serve(p, { maxConnections: 2, readDeadlineMs: 10_000 });
		const a = await connectRaw(capped);
		const b = await connectRaw(capped);
		await Bun.sleep(100); // let the server register both
		const over = await connectRaw(capped);
		const { data, elapsed } = await over.done;
		const reply = oneLine(data);
		expect(reply).toMatchObject({ ok: false, code: "resource_exhausted" });
		expect(reply.error).toContain("2");
		expect(elapsed).toBeLessThan(2000);
		// The two held connections are still served normally.
		await a.send(`${JSON.stringify({ tool: "task.list" })}\n`);
		expect(oneLine((await a.done).data).ok).toBe(true);
		b.close();
		await b.done;
		// With the slots freed, a new client is served.
		let served = false;
		for (let i = 0; i < 50 && !served; i++) {
			const r = oneLine((await exchange(capped, `${JSON.stringify({ tool: "task.list" })}\n`)).data);
			served = r.ok;
			if (!served) await Bun.sleep(20);
		}
		expect(served).toBe(true);
	});

	test("write deadline: a client that stops reading a large reply is cut off", async () => {
		const { path: tight } = await serve(p, { writeDeadlineMs: 300 });
		const created = (await p.call("task.create", {
			title: "write-deadline",
			body_md: "w".repeat(4 * 1024 * 1024),
		})) as { task: { id: string } };
		const line = JSON.stringify({ tool: "task.get", args: { task_id: created.task.id } });
		const run = async (socket: string) => {
			const {
				stdout: out,
				stderr: err,
				code,
			} = await runProcess([process.execPath, join(FIXTURES, "slow-reader.ts"), socket, line, "1500"]);
			expect(err).toBe("");
			expect(code).toBe(0);
			return JSON.parse(out) as { bytes: number; complete: boolean };
		};
		// Control: with a generous write deadline the same slow reader gets the whole reply.
		const whole = await run(path);
		expect(whole.complete).toBe(true);
		expect(whole.bytes).toBeGreaterThan(4 * 1024 * 1024);
		// With a 300 ms write deadline the server gives up while the client is not reading.
		const cut = await run(tight);
		expect(cut.complete).toBe(false);
		expect(cut.bytes).toBeLessThan(whole.bytes);
	});
});

// ---------------------------------------------------------------------------------------------

describe("large replies and cancellation", () => {
	test("a 10 MiB request and a 10 MiB reply are carried whole", async () => {
		const body = `${"0123456789abcdef".repeat(640 * 1024)}end`; // 10 MiB + 3 bytes
		const created = oneLine(
			(
				await exchange(
					path,
					`${JSON.stringify({ tool: "task.create", args: { title: "ten-mib", body_md: body } })}\n`,
				)
			).data,
		);
		expect(created.ok).toBe(true);
		const id = (created.result as { task: { id: string } }).task.id;
		const { data } = await exchange(path, `${JSON.stringify({ tool: "task.get", args: { task_id: id } })}\n`);
		expect(data.length).toBeGreaterThan(10 * 1024 * 1024);
		const reply = oneLine(data);
		expect(reply.ok).toBe(true);
		const task = (reply.result as { task: { id: string; body_md: string } }).task;
		expect(task.id).toBe(id);
		expect(task.body_md.length).toBe(body.length);
		expect(task.body_md === body).toBe(true);
	}, 30_000);

	test("a client that disconnects mid-call aborts the call", async () => {
		const { path: own, inflight } = await serve(p);
		const after = await lastEventId(p);
		const conn = await connectRaw(own);
		await conn.send(
			`${JSON.stringify({ tool: "table.watch", args: { after_event_id: after, wait_ms: 10_000 } })}\n`,
		);
		expect(await waitFor(() => inflight.size === 1, 2000)).toBe(true);
		const t0 = performance.now();
		conn.close();
		await conn.done;
		expect(await waitFor(() => inflight.size === 0, 3000)).toBe(true);
		expect(performance.now() - t0).toBeLessThan(3000);
	}, 15_000);

	test("a waiting call whose client stays is not cut short", async () => {
		const { path: own, inflight } = await serve(p);
		const after = await lastEventId(p);
		const conn = await connectRaw(own);
		const t0 = performance.now();
		await conn.send(
			`${JSON.stringify({ tool: "table.watch", args: { after_event_id: after, wait_ms: 800 } })}\n`,
		);
		expect(await waitFor(() => inflight.size === 1, 2000)).toBe(true);
		const reply = oneLine((await conn.done).data);
		expect(reply.ok).toBe(true);
		expect((reply.result as { events: unknown[] }).events).toEqual([]);
		expect(performance.now() - t0).toBeGreaterThan(700);
		expect(inflight.size).toBe(0);
	});
});

// ---------------------------------------------------------------------------------------------

describe("the socket file", () => {
	test("the socket is 0600 and a directory it creates is 0700", async () => {
		const base = tempDir("rts-");
		const sock = join(base, "a", "b", "s.sock");
		const before = process.umask();
		await serve(p, { path: sock });
		expect(process.umask()).toBe(before);
		expect(lstatSync(sock).isSocket()).toBe(true);
		expect(lstatSync(sock).mode & 0o777).toBe(0o600);
		expect(statSync(join(base, "a", "b")).mode & 0o777).toBe(0o700);
		expect(oneLine((await exchange(sock, `${JSON.stringify({ tool: "task.list" })}\n`)).data).ok).toBe(true);
	});

	test("an existing, looser directory of the project is tightened to 0700", async () => {
		const dir = join(tempDir("rts-"), "d");
		mkdirSync(dir);
		chmodSync(dir, 0o755);
		const sock = join(dir, "s.sock");
		await serve(p, { path: sock, privateDir: true });
		expect(statSync(dir).mode & 0o777).toBe(0o700);
		expect(lstatSync(sock).mode & 0o777).toBe(0o600);
	});

	test("a shared directory someone pointed the socket into keeps its mode", async () => {
		const dir = join(tempDir("rts-"), "shared");
		mkdirSync(dir);
		chmodSync(dir, 0o1777);
		const sock = join(dir, "s.sock");
		await serve(p, { path: sock, privateDir: false });
		expect(statSync(dir).mode & 0o7777).toBe(0o1777);
		expect(lstatSync(sock).mode & 0o777).toBe(0o600);
	});

	test("close removes the socket file", async () => {
		const { server, path: sock } = await serve(p);
		expect(existsSync(sock)).toBe(true);
		server.close();
		expect(existsSync(sock)).toBe(false);
	});

	test("start refuses a path that is not a socket and leaves it alone", async () => {
		const sock = socketPath();
		writeFileSync(sock, "precious data\n");
		const attempt = serve(p, { path: sock });
		await expect(attempt).rejects.toThrow(/not a socket/);
		await expect(attempt).rejects.toThrow(sock);
		expect(readFileSync(sock, "utf8")).toBe("precious data\n");

		const dirPath = join(tempDir("rts-"), "dir.sock");
		mkdirSync(dirPath);
		await expect(serve(p, { path: dirPath })).rejects.toThrow(/not a socket/);
		expect(statSync(dirPath).isDirectory()).toBe(true);
	});

	test("start refuses a live socket and leaves it working", async () => {
		const sock = socketPath();
		const child = Bun.spawn([process.execPath, join(FIXTURES, "unix-listener.ts"), sock], {
			stdout: "pipe",
			stderr: "pipe",
		});
		try {
			await waitForLine(child.stdout, "listening");
			await expect(serve(p, { path: sock })).rejects.toThrow(/live/);
			// The other listener still owns the path.
			const answer = (await exchange(sock, "", { halfClose: true })).data.toString();
			expect(answer).toBe("other-listener\n");
		} finally {
			child.kill("SIGKILL");
			await child.exited;
		}
	});

	test("start refuses a path where another of our servers is live", async () => {
		const { path: sock } = await serve(p);
		await expect(serve(p, { path: sock })).rejects.toThrow(/already live/);
		expect(oneLine((await exchange(sock, `${JSON.stringify({ tool: "task.list" })}\n`)).data).ok).toBe(true);
	});

	test("start replaces a confirmed stale socket left by a killed process", async () => {
		const sock = socketPath();
		const child = Bun.spawn([process.execPath, join(FIXTURES, "unix-listener.ts"), sock], {
			stdout: "pipe",
			stderr: "pipe",
		});
		await waitForLine(child.stdout, "listening");
		child.kill("SIGKILL");
		await child.exited;
		expect(lstatSync(sock).isSocket()).toBe(true); // left behind
		await expect(connectRaw(sock)).rejects.toThrow();
		await serve(p, { path: sock });
		const reply = oneLine((await exchange(sock, `${JSON.stringify({ tool: "task.list" })}\n`)).data);
		expect(reply.ok).toBe(true);
		expect(lstatSync(sock).mode & 0o777).toBe(0o600);
	});
});

/** Reads the stream until a complete line starting with `want` arrives. */
async function waitForLine(stream: ReadableStream<Uint8Array>, want: string, ms = 10_000): Promise<void> {
	const reader = stream.getReader();
	const decoder = new TextDecoder();
	let text = "";
	const deadline = Date.now() + ms;
	try {
		while (!text.split("\n").some((line, i, all) => i < all.length - 1 && line.startsWith(want))) {
			if (Date.now() > deadline) throw new Error(`no "${want}" line within ${ms} ms: ${text}`);
			const { value, done } = await reader.read();
			if (done) throw new Error(`stream ended before "${want}": ${text}`);
			text += decoder.decode(value, { stream: true });
		}
	} finally {
		reader.releaseLock();
	}
}

// ---------------------------------------------------------------------------------------------

describe("roundtable mcp call --socket", () => {
	let owner: ReturnType<typeof Bun.spawn> | undefined;

	beforeAll(async () => {
		owner = Bun.spawn([process.execPath, join(REPO, "src", "main.ts"), "mcp", "serve", "--root", q.root], {
			stdout: "pipe",
			stderr: "pipe",
		});
		await waitForLine(owner.stdout as ReadableStream<Uint8Array>, "roundtable ready: ", 15_000);
	});

	afterAll(async () => {
		if (owner) {
			owner.kill("SIGTERM");
			await owner.exited;
		}
	});

	test("ok → the result JSON on stdout, exit 0", async () => {
		const r = await runCli([
			"mcp",
			"call",
			"--root",
			q.root,
			"--socket",
			"--tool",
			"task.create",
			"--args",
			JSON.stringify({ title: "via-cli-socket", body_md: "x" }),
		]);
		expect(r.stderr).toBe("");
		expect(r.code).toBe(0);
		const out = JSON.parse(r.stdout) as { task: { id: string; title: string } };
		expect(out.task.title).toBe("via-cli-socket");
		const got = (await q.call("task.get", { task_id: out.task.id })) as { task: { title: string } };
		expect(got.task.title).toBe("via-cli-socket");
	});

	test('ok:false → {"error":{code,message,details}} on stderr, exit 1', async () => {
		const r = await runCli(["mcp", "call", "--root", q.root, "--socket", "--tool", "task.lst"]);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		const err = JSON.parse(r.stderr) as {
			error: { code: string; message: string; details?: Record<string, unknown> };
		};
		expect(Object.keys(err)).toEqual(["error"]);
		expect(err.error.code).toBe("not_found");
		expect(err.error.message).toContain("task.lst");
		expect(err.error.details?.did_you_mean).toBe("task.list");
	});

	test("no owner and no socket → exit 1 with a clear message", async () => {
		const r = await runCli(["mcp", "call", "--root", lonely.root, "--socket", "--tool", "task.list"]);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		const err = JSON.parse(r.stderr) as { error: { code: string; message: string } };
		expect(err.error.code).toBe("failed_precondition");
		expect(err.error.message).toContain("roundtable.sock");
		expect(err.error.message).toContain("roundtable start");
	});
});
