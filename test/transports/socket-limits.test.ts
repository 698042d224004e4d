// The legacy socket under hostile input, over real Unix sockets: a client over the connection cap
// reads why before the close (no ECONNRESET or EPIPE, even when it sent a large request first), and a
// 16 MiB tool name or argument key is answered with a short error without ever being searched.

import { afterAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { join } from "node:path";
import { callerOf } from "../../src/dispatch.ts";
import { ECHO_CHARS, searchWork } from "../../src/domain/text.ts";
import { InFlight } from "../../src/transports/inflight.ts";
import { type SocketOptions, type SocketServer, startSocket } from "../../src/transports/socket.ts";
import { makeProject, tempDir } from "../_helpers/helpers.ts";

const p = await makeProject();
const servers: SocketServer[] = [];
afterAll(() => {
	for (const s of servers) s.close();
});

async function serve(overrides: Partial<SocketOptions> = {}): Promise<string> {
	const path = join(tempDir("rtl-"), "s.sock");
	const server = await startSocket(callerOf(p.rt), {
		path,
		privateDir: false,
		maxFrameBytes: 32 * 1024 * 1024,
		readDeadlineMs: 10_000,
		writeDeadlineMs: 10_000,
		maxConnections: 64,
		inflight: new InFlight(),
		...overrides,
	});
	servers.push(server);
	return path;
}

/**
 * A node:net client, as most clients in other languages behave: it writes its whole request at
 * once, then reads until the server closes. Resolves with what it read, or the socket error.
 */
function netExchange(path: string, request: string): Promise<{ text: string; error?: string }> {
	return new Promise((resolve) => {
		let text = "";
		const c = connect(path, () => c.write(request));
		c.setEncoding("utf8");
		c.on("data", (d) => {
			text += d;
		});
		c.on("error", (err) => resolve({ text, error: (err as NodeJS.ErrnoException).code ?? err.message }));
		c.on("close", () => resolve({ text }));
	});
}

/** One reply line, parsed; anything else (no newline, a second line, a socket error) fails. */
function oneLine(got: { text: string; error?: string }) {
	expect(got.error).toBeUndefined();
	expect(got.text.endsWith("\n")).toBe(true);
	expect(got.text.indexOf("\n")).toBe(got.text.length - 1);
	return JSON.parse(got.text) as { ok: boolean; error?: string; code?: string; details?: unknown };
}

const line = (envelope: unknown) => `${JSON.stringify(envelope)}\n`;

describe("over the connection cap", () => {
	test("a client that sent its request reads resource_exhausted before the close", async () => {
		const path = await serve({ maxConnections: 1 });
		const held = connect(path);
		await new Promise((resolve) => held.once("connect", resolve));
		await Bun.sleep(50); // the server has counted it
		try {
			for (const size of [10, 256 * 1024, 2 * 1024 * 1024]) {
				const request = line({ tool: "task.list", args: { pad: "p".repeat(size) } });
				const reply = oneLine(await netExchange(path, request));
				expect(reply).toEqual({
					ok: false,
					error: "too many connections (limit 1)",
					code: "resource_exhausted",
				});
			}
		} finally {
			held.destroy();
		}
		// The slot is free again: the next client is served.
		let served = false;
		for (let i = 0; i < 50 && !served; i++) {
			served = oneLine(await netExchange(path, line({ tool: "task.list" }))).ok;
			if (!served) await Bun.sleep(20);
		}
		expect(served).toBe(true);
	});

	test("a refused client that never closes is let go after a bounded linger", async () => {
		const path = await serve({ maxConnections: 1 });
		const held = connect(path);
		await new Promise((resolve) => held.once("connect", resolve));
		await Bun.sleep(50);
		try {
			// allowHalfOpen: it reads the reply and the server's FIN, but keeps its own side open.
			const c = connect({ path, allowHalfOpen: true });
			c.setEncoding("utf8");
			let text = "";
			c.on("data", (d) => {
				text += d;
			});
			const failed = new Promise<string>((resolve) =>
				c.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "")),
			);
			await new Promise((resolve) => c.once("end", resolve));
			expect(JSON.parse(text)).toMatchObject({ code: "resource_exhausted" });
			// While it lingers, the server still reads (and drops) what the client sends...
			await new Promise<void>((resolve, reject) => c.write("more", (err) => (err ? reject(err) : resolve())));
			// ...but not for long: a write after the linger finds the server gone.
			await Bun.sleep(1500);
			c.write("late");
			const outcome = await Promise.race([failed, Bun.sleep(2000).then(() => "still open")]);
			expect(outcome).toBeOneOf(["EPIPE", "ECONNRESET", "EBADF"]); // Bun's node:net says EBADF
			c.destroy();
		} finally {
			held.destroy();
		}
	});
});

test("no more refused connections linger than the cap serves: the rest close at once", async () => {
	const path = await serve({ maxConnections: 1 });
	const held = connect(path);
	await new Promise((resolve) => held.once("connect", resolve));
	await Bun.sleep(50);
	/** A refused client that reads its reply, keeps its side open, then writes: did the write fail? */
	const refused = async () => {
		const c = connect({ path, allowHalfOpen: true });
		c.setEncoding("utf8");
		let text = "";
		c.on("data", (d) => {
			text += d;
		});
		const failed = new Promise<boolean>((resolve) => c.on("error", () => resolve(true)));
		const ended = new Promise((resolve) => c.once("end", () => resolve(true)));
		expect(await Promise.race([ended, Bun.sleep(3000).then(() => false)])).toBe(true);
		expect(JSON.parse(text)).toMatchObject({ code: "resource_exhausted" });
		await Bun.sleep(100);
		c.write("more");
		return { c, failed: await Promise.race([failed, Bun.sleep(300).then(() => false)]) };
	};
	try {
		const first = await refused(); // lingers: the server still reads
		const second = await refused(); // one lingers already: this one is closed at once
		expect([first.failed, second.failed]).toEqual([false, true]);
		first.c.destroy();
		second.c.destroy();
	} finally {
		held.destroy();
	}
});

describe("a 16 MiB name", () => {
	const huge = "a".repeat(16 * 1024 * 1024);
	const prefix = `'${"a".repeat(ECHO_CHARS)}…' (${huge.length} characters)`;

	test("as the tool: a short not_found, never searched, while another client is served", async () => {
		const path = await serve();
		const searches = searchWork.searches;
		const slow = netExchange(path, line({ tool: huge, args: {} }));
		const other = netExchange(path, line({ tool: "task.list" }));
		const reply = oneLine(await slow);
		expect(reply).toEqual({
			ok: false,
			error: `unknown tool ${prefix}`,
			code: "not_found",
			details: { tool: `${"a".repeat(ECHO_CHARS)}…` },
		});
		expect(oneLine(await other).ok).toBe(true);
		expect(searchWork.searches).toBe(searches);
	});

	test("as an argument key: a short invalid_argument, never searched", async () => {
		const path = await serve();
		const searches = searchWork.searches;
		const reply = oneLine(await netExchange(path, line({ tool: "task.list", args: { [huge]: 1 } })));
		expect(reply).toEqual({
			ok: false,
			error: `unknown argument ${prefix}`,
			code: "invalid_argument",
			details: { field: `${"a".repeat(ECHO_CHARS)}…` },
		});
		expect(searchWork.searches).toBe(searches);
	});

	test("as a bare JSON token: the parse error quotes a prefix only", async () => {
		const path = await serve();
		const reply = oneLine(await netExchange(path, `{"tool": ${huge}}\n`));
		expect(reply.code).toBe("invalid_argument");
		expect(reply.error).toStartWith("the request is not valid JSON: ");
		expect((reply.error as string).length).toBeLessThan(ECHO_CHARS + 64);
	});
});

describe("per-connection state on a busy server", () => {
	test("a stalled client is cut off at its read deadline while hundreds of others come and go", async () => {
		const path = await serve({ readDeadlineMs: 400 });
		const t0 = performance.now();
		// A request never finished: the deadline sweep must still find it among the churn.
		const stalled = new Promise<{ text: string; elapsed: number }>((resolve) => {
			let text = "";
			const c = connect(path, () => c.write('{"tool":"task.list"'));
			c.setEncoding("utf8");
			c.on("data", (d) => {
				text += d;
			});
			c.on("close", () => resolve({ text, elapsed: performance.now() - t0 }));
		});
		let served = 0;
		while (performance.now() - t0 < 600) {
			const reply = oneLine(await netExchange(path, line({ tool: "task.list", args: { limit: 1 } })));
			if (reply.ok) served++;
		}
		const { text, elapsed } = await stalled;
		expect(served).toBeGreaterThan(20);
		expect(JSON.parse(text)).toMatchObject({ ok: false, code: "deadline_exceeded" });
		expect(elapsed).toBeGreaterThanOrEqual(400);
		expect(elapsed).toBeLessThan(3000);
	});

	test("a result JSON cannot carry is answered with an internal error, and the connection closes", async () => {
		const path = join(tempDir("rtl-"), "s.sock");
		const server = await startSocket(async () => ({ count: 1n }), {
			path,
			privateDir: false,
			maxFrameBytes: 1024,
			readDeadlineMs: 10_000,
			writeDeadlineMs: 10_000,
			maxConnections: 4,
			inflight: new InFlight(),
		});
		servers.push(server);
		const reply = oneLine(await netExchange(path, line({ tool: "anything" })));
		expect(reply).toMatchObject({ ok: false, code: "internal" });
		expect(reply.error).toContain("BigInt");
	});
});
