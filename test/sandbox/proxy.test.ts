// The egress proxy a launched agent's sandbox reaches the network through, on its real Unix socket:
// what it lets through (only the egress list's hosts, bytes intact in both directions, however many),
// what it refuses and says so (other hosts, names that resolve to this machine, plain HTTP to a host
// no http:// entry names, anything but CONNECT or an http:// URL, an endless request head).
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { egressAllows, internalAddress, plainHttpAllows, serveEgressProxy } from "../../src/sandbox/proxy.ts";
import { removeTempDirs, tempDir } from "../_helpers/helpers.ts";

afterAll(removeTempDirs);

/** Sends `request` over the proxy socket, then `payload` once a tunnel is up; everything read back. */
async function through(path: string, request: string, payload = new Uint8Array(), expect = 0) {
	const chunks: Uint8Array[] = [];
	let got = 0;
	let headDone = false;
	return new Promise<{ head: string; body: Buffer }>((resolve, reject) => {
		const finish = () => {
			const all = Buffer.concat(chunks);
			const end = all.indexOf("\r\n\r\n");
			resolve({ head: all.subarray(0, end).toString(), body: all.subarray(end + 4) });
		};
		const timer = setTimeout(() => reject(new Error(`timed out after ${got} bytes`)), 20_000);
		let pending = payload;
		Bun.connect({
			unix: path,
			socket: {
				open(s) {
					s.write(request);
				},
				data(s, chunk) {
					chunks.push(chunk);
					got += chunk.byteLength;
					if (!headDone && Buffer.concat(chunks).includes("\r\n\r\n")) {
						headDone = true;
						if (!Buffer.concat(chunks).toString().startsWith("HTTP/1.1 200")) return;
						const n = s.write(pending);
						pending = pending.subarray(Math.max(0, n));
					}
					const head = Buffer.concat(chunks).indexOf("\r\n\r\n") + 4;
					if (expect > 0 && got - head >= expect) {
						clearTimeout(timer);
						s.end();
						finish();
					}
				},
				drain(s) {
					const n = s.write(pending);
					pending = pending.subarray(Math.max(0, n));
				},
				close() {
					clearTimeout(timer);
					finish();
				},
			},
		}).catch(reject);
	});
}

describe("the egress proxy", async () => {
	const echo = Bun.listen({
		hostname: "127.0.0.1",
		port: 0,
		socket: {
			data(s, d) {
				s.write(d);
			},
		},
	});
	/** A plain HTTP origin (a model server on this machine): it answers with the head it was sent. */
	const web = Bun.listen({
		hostname: "127.0.0.1",
		port: 0,
		socket: {
			data(s, d) {
				const head = d.toString().split("\r\n\r\n")[0] as string;
				s.end(`HTTP/1.1 200 OK\r\ncontent-length: ${head.length}\r\nconnection: close\r\n\r\n${head}`);
			},
		},
	});
	const refused: string[] = [];
	const proxy = await serveEgressProxy({
		path: join(tempDir("rt-proxy-"), "proxy.sock"),
		allowed: [`127.0.0.1:${echo.port}`, "localhost:443", "*.example.test", `http://127.0.0.1:${web.port}`],
		onRefused: (host, port, why) => refused.push(`${host}:${port} ${why}`),
	});
	afterAll(() => {
		proxy.close();
		echo.stop(true);
		web.stop(true);
	});

	test("a listed host is reached, and 8 MiB go there and back intact", async () => {
		const payload = new Uint8Array(8 * 1024 * 1024).map((_, i) => (i * 31) % 251);
		const r = await through(
			proxy.path,
			`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nhost: x\r\n\r\n`,
			payload,
			payload.byteLength,
		);
		expect(r.head).toBe("HTTP/1.1 200 Connection Established");
		expect(r.body.equals(Buffer.from(payload))).toBe(true);
	});

	test("an unlisted host, the metadata address, a listed name that resolves here: 403, each reported", async () => {
		refused.length = 0;
		for (const target of [
			"example.com:443",
			"169.254.169.254:80",
			"localhost:443",
			`127.0.0.1:${echo.port + 1}`,
		]) {
			const r = await through(proxy.path, `CONNECT ${target} HTTP/1.1\r\n\r\n`);
			expect({ target, head: r.head.split("\r\n")[0] }).toEqual({ target, head: "HTTP/1.1 403 Forbidden" });
		}
		expect(refused).toEqual([
			"example.com:443 not in the adapter's egress list",
			"169.254.169.254:80 not in the adapter's egress list",
			expect.stringMatching(
				/^localhost:443 localhost resolves to (127\.0\.0\.1|::1), this machine or link-local$/,
			),
			`127.0.0.1:${echo.port + 1} not in the adapter's egress list`,
		]);
	});

	test("plain HTTP reaches only an http:// entry, in origin form, one request per connection", async () => {
		const r = await through(
			proxy.path,
			`POST http://127.0.0.1:${web.port}/v1/responses?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\nProxy-Authorization: Basic eDp5\r\nConnection: keep-alive\r\ncontent-length: 2\r\n\r\n{}`,
		);
		expect(r.head.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
		expect(r.body.toString().split("\r\n")).toEqual([
			"POST /v1/responses?x=1 HTTP/1.1",
			`Host: 127.0.0.1:${web.port}`,
			"content-length: 2",
			"connection: close",
		]);
		refused.length = 0;
		// The CONNECT entry for the echo server does not let plain HTTP through to it, nor the reverse.
		const plain = await through(proxy.path, `GET http://127.0.0.1:${echo.port}/ HTTP/1.1\r\n\r\n`);
		expect(plain.head.split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
		const tunnel = await through(proxy.path, `CONNECT 127.0.0.1:${web.port} HTTP/1.1\r\n\r\n`);
		expect(tunnel.head.split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
		expect(refused).toEqual([
			`127.0.0.1:${echo.port} plain HTTP to a host no http:// egress entry names`,
			`127.0.0.1:${web.port} not in the adapter's egress list`,
		]);
	});

	test("neither CONNECT nor an http:// URL is 405; a request head without end is cut off at 8 KiB", async () => {
		for (const line of ["GET / HTTP/1.1", `GET https://127.0.0.1:${web.port}/ HTTP/1.1`, "BREW coffee"]) {
			const r = await through(proxy.path, `${line}\r\n\r\n`);
			expect({ line, head: r.head.split("\r\n")[0] }).toEqual({
				line,
				head: "HTTP/1.1 405 Method Not Allowed",
			});
		}
		const long = await through(proxy.path, `CONNECT a:1 HTTP/1.1\r\nx: ${"y".repeat(10_000)}`);
		expect(long.head.split("\r\n")[0]).toBe("HTTP/1.1 431 Request Header Fields Too Large");
	});

	test("the list: names, *.domain, host:port (443 unless named), http://host[:port] (80); internal addresses", () => {
		const http = ["http://127.0.0.1:11434", "http://models.lan/"];
		expect(plainHttpAllows(http, "127.0.0.1", 11434)).toBe(true);
		expect(plainHttpAllows(http, "127.0.0.1", 80)).toBe(false);
		expect(plainHttpAllows(http, "models.lan", 80)).toBe(true);
		expect(plainHttpAllows(["127.0.0.1:11434"], "127.0.0.1", 11434)).toBe(false);
		expect(egressAllows(http, "127.0.0.1", 11434)).toBe(false);
		const list = ["api.example.com", "*.models.test", "10.0.0.5:8443"];
		expect(egressAllows(list, "api.example.com", 443)).toBe(true);
		expect(egressAllows(list, "API.example.com", 443)).toBe(true);
		expect(egressAllows(list, "api.example.com", 80)).toBe(false);
		expect(egressAllows(list, "eu.models.test", 443)).toBe(true);
		expect(egressAllows(list, "models.test", 443)).toBe(false);
		expect(egressAllows(list, "evilmodels.test", 443)).toBe(false);
		expect(egressAllows(list, "10.0.0.5", 8443)).toBe(true);
		for (const a of [
			"127.0.0.1",
			"127.8.9.1",
			"0.0.0.0",
			"169.254.169.254",
			"::1",
			"::",
			"fe80::1",
			"::ffff:127.0.0.1",
		])
			expect({ a, internal: internalAddress(a) }).toEqual({ a, internal: true });
		for (const a of ["10.0.0.5", "93.184.216.34", "2606:4700::1"])
			expect({ a, internal: internalAddress(a) }).toEqual({ a, internal: false });
	});
});
