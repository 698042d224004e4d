// The HTTP endpoint against hostile connections, spoken to over raw TCP (node:net) on 127.0.0.1: a
// real Bun.serve on port 0 with a real project behind it. A body that trickles in is cut at the read
// deadline, connections beyond the cap get a readable 503, an idle keep-alive connection is closed,
// a Host with an invalid port is a 403; event streams are not cut by any of it.
import { afterEach, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import type { HttpServer } from "../../src/transports/http.ts";
import { makeProject, until } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function serve(maxConnections = 8): Promise<{ server: HttpServer; port: number }> {
	const p = await makeProject();
	const server = loopbackHttp(p.rt, {
		maxBodyBytes: 64 * 1024,
		maxSessions: 64,
		maxConnections,
		readDeadlineMs: 1000,
	});
	cleanups.push(() => server.close());
	return { server, port: Number(new URL(server.url).port) };
}

/** A raw TCP connection that records what comes back and whether the server closed it. */
interface Raw {
	socket: Socket;
	text: () => string;
	closed: () => boolean;
	/** The status code of the first response, once it came. */
	status: () => number | undefined;
}

async function open(port: number, first?: string): Promise<Raw> {
	const socket = connect(port, "127.0.0.1");
	let text = "";
	let closed = false;
	socket.on("data", (d) => {
		text += d.toString();
	});
	socket.on("close", () => {
		closed = true;
	});
	socket.on("error", () => {});
	await new Promise<void>((resolve, reject) => {
		socket.once("connect", () => resolve());
		socket.once("error", reject);
	});
	cleanups.push(() => socket.destroy());
	if (first !== undefined) socket.write(first);
	return {
		socket,
		text: () => text,
		closed: () => closed,
		status: () => {
			const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
			return m ? Number(m[1]) : undefined;
		},
	};
}

const slowPost = (length = 1000) =>
	`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n\r\n{`;
const health = (host = "127.0.0.1") => `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

/** Sends one byte every 100 ms until the server closes the connection (or 200 bytes went). */
function trickle(c: Raw): void {
	let sent = 0;
	const timer = setInterval(() => {
		if (c.closed() || sent++ > 200) clearInterval(timer);
		else c.socket.write(" ");
	}, 100);
	cleanups.push(() => clearInterval(timer));
}

test("a body that trickles in is answered 408 and its connection closed at the read deadline", async () => {
	const { port } = await serve();
	const c = await open(port, slowPost());
	trickle(c);
	await until(() => c.closed(), 15_000, "the server to close the trickling connection");
	expect(c.status()).toBe(408);
	expect(c.text()).toContain("limits.read_deadline_seconds");
	expect(c.text().toLowerCase()).toContain("connection: close");
});

// Without a declared length the body is read chunk by chunk (src/transports/body.ts): the same deadline.
test("a chunked body that trickles in is answered 408 at the read deadline too", async () => {
	const { port } = await serve();
	const c = await open(
		port,
		"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
	);
	const timer = setInterval(() => {
		if (!c.closed()) c.socket.write("1\r\n \r\n");
	}, 100);
	cleanups.push(() => clearInterval(timer));
	await until(() => c.closed(), 15_000, "the server to close the trickling connection");
	expect(c.status()).toBe(408);
	expect(c.text()).toContain("limits.read_deadline_seconds");
});

test("connections beyond limits.max_http_connections get a 503 and are closed; freed ones admit again", async () => {
	const { port } = await serve(8);
	// Four requests in flight (bodies still coming) and four idle keep-alive connections.
	const slow = await Promise.all([...Array(4)].map(() => open(port, slowPost())));
	const idle = await Promise.all([...Array(4)].map(() => open(port, health())));
	await until(() => idle.every((c) => c.status() === 200), 5000, "the idle connections' first answers");
	const over = await open(port, health());
	await until(() => over.closed(), 5000, "the server to close the connection over the cap");
	expect(over.status()).toBe(503);
	expect(over.text()).toContain("limits.max_http_connections");
	// A connection already counted is still served.
	idle[0]?.socket.write(health());
	await until(() => idle[0]?.text().split("HTTP/1.1 200").length === 3, 5000, "a second answer on it");
	// Once the slow ones are cut at the read deadline there is room again.
	await until(() => slow.every((c) => c.closed()), 15_000, "the slow bodies to be cut");
	const after = await open(port, health());
	await until(() => after.status() !== undefined, 5000, "an answer after the slow ones went");
	expect(after.status()).toBe(200);
}, 30_000);

test("requests with Connection: close, one after another, never count against the cap", async () => {
	const { port } = await serve(8);
	for (let i = 0; i < 20; i++) {
		const c = await open(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
		await until(() => c.closed(), 5000, `the server to close connection ${i}`);
		expect({ i, status: c.status() }).toEqual({ i, status: 200 });
	}
});

test("clients that close their own idle connections free their places at once: 100 paced clients, 1,000 connections, none refused", async () => {
	const { port } = await serve(512);
	// Each client asks 10 times, each time on a new keep-alive connection it closes itself once
	// answered (Bun is not told): 1,000 connections in a few seconds against the default cap of 512,
	// never more than 100 open at once.
	const refused: number[] = [];
	await Promise.all(
		[...Array(100)].map(async (_, client) => {
			for (let i = 0; i < 10; i++) {
				const c = await open(port, health());
				await until(() => c.status() !== undefined, 10_000, `client ${client}'s answer ${i}`);
				if (c.status() !== 200) refused.push(c.status() as number);
				c.socket.destroy();
				await Bun.sleep(5 + Math.random() * 20);
			}
		}),
	);
	expect(refused).toEqual([]);
}, 60_000);

test("600 idle connections one client holds open still meet the cap: the 513th on are refused", async () => {
	const { port } = await serve(512);
	const held = await Promise.all([...Array(600)].map(() => open(port, health())));
	await until(() => held.every((c) => c.status() !== undefined), 10_000, "every answer");
	const statuses = held.map((c) => c.status());
	expect(statuses.filter((s) => s === 200)).toHaveLength(512);
	expect(statuses.filter((s) => s === 503)).toHaveLength(88);
}, 30_000);

test("an idle keep-alive connection is closed by the server", async () => {
	const { port } = await serve();
	const c = await open(port, health());
	await until(() => c.status() === 200, 5000, "the answer");
	await until(() => c.closed(), 20_000, "the server to close the idle connection");
}, 30_000);

test("a Host whose port or syntax is invalid is a 403, never a 500", async () => {
	const { port } = await serve();
	for (const host of ["127.0.0.1:99999", "localhost:0", "[::1]:70000", "127.0.0.1:7x"]) {
		const c = await open(port, health(host));
		await until(() => c.status() !== undefined, 5000, `the answer for Host ${host}`);
		expect({ host, status: c.status() }).toEqual({ host, status: 403 });
	}
});

test("a POST whose answer streams for longer than the keep-alive idle time is not cut", async () => {
	const { server } = await serve();
	const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
	const init = await fetch(server.url, {
		method: "POST",
		headers,
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
		}),
	});
	const sid = init.headers.get("mcp-session-id") as string;
	await init.text();
	const session = { ...headers, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
	const watch = await fetch(server.url, {
		method: "POST",
		headers: session,
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 2,
			method: "tools/call",
			params: { name: "table.watch", arguments: { after_event_id: 1e9, wait_ms: 12_000 } },
		}),
	});
	expect(watch.headers.get("content-type")).toContain("text/event-stream");
	const text = await watch.text();
	expect(text).toContain('"id":2');
	expect(text).toContain('"result"');
}, 30_000);
