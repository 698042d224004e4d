// Unit tests of the HTTP guard: loopback names, Host parsing, the Host/Origin/bearer checks and the
// bearer comparison. Pure functions, no sockets.
import { describe, expect, test } from "bun:test";
import {
	bearerMatches,
	checkRequest,
	credentialOf,
	hostnameOf,
	isLoopbackHostname,
} from "../../src/transports/http-guard.ts";

describe("isLoopbackHostname", () => {
	for (const name of [
		"localhost",
		"LOCALHOST",
		"a.localhost",
		"127.0.0.1",
		"127.9.9.9",
		"127.255.255.254",
		"::1",
		"[::1]",
		"::ffff:127.0.0.1",
		"[::ffff:127.0.0.1]",
	]) {
		test(`${JSON.stringify(name)} is loopback`, () => {
			expect(isLoopbackHostname(name)).toBe(true);
		});
	}
	for (const name of [
		"128.0.0.1",
		"0.0.0.0",
		"10.0.0.1",
		"126.255.255.255",
		"example.com",
		"localhost.example.com",
		"127.0.0.1.evil.com",
		"evil-127.0.0.1",
		"::",
		"::2",
		"::ffff:10.0.0.1",
		"",
	]) {
		test(`${JSON.stringify(name)} is not loopback`, () => {
			expect(isLoopbackHostname(name)).toBe(false);
		});
	}
	// WHATWG URL parsing (Origin headers, and the Host header Bun's fetch sends) writes IPv4-mapped
	// loopback in hex: new URL("http://[::ffff:127.0.0.1]").hostname is "[::ffff:7f00:1]".
	test("IPv4-mapped loopback in hex form (::ffff:7f00:1, as URL parsing writes it) is loopback", () => {
		expect(new URL("http://[::ffff:127.0.0.1]").hostname).toBe("[::ffff:7f00:1]");
		expect(isLoopbackHostname("::ffff:7f00:1")).toBe(true);
		expect(isLoopbackHostname("[::ffff:7f00:1]")).toBe(true);
		expect(isLoopbackHostname("::ffff:7f01:203")).toBe(true); // 127.1.2.3
		expect(isLoopbackHostname("::ffff:a00:1")).toBe(false); // 10.0.0.1
	});
});

describe("hostnameOf", () => {
	test.each([
		["127.0.0.1:7117", "127.0.0.1"],
		["127.0.0.1", "127.0.0.1"],
		["localhost:7117", "localhost"],
		["localhost", "localhost"],
		["[::1]:7117", "::1"],
		["[::1]", "::1"],
		["[::ffff:127.0.0.1]:80", "::ffff:127.0.0.1"],
		["evil.example:8080", "evil.example"],
		["rt.example.com", "rt.example.com"],
	])("%p → %p", (host, want) => {
		expect(hostnameOf(host)).toBe(want);
	});
	// Each of these would make the request's URL unparsable (an HTTP 500 once, for 127.0.0.1:99999).
	test.each([
		"127.0.0.1:99999",
		"127.0.0.1:65536",
		"127.0.0.1:0",
		"127.0.0.1:",
		"127.0.0.1:12x",
		"[::1]:99999",
		"[::1",
		"[zz]:80",
		"local host",
		"127.0.0.1/x",
		"user@127.0.0.1",
		"",
	])("%p is not a valid Host", (host) => {
		expect(hostnameOf(host)).toBeUndefined();
	});
});

const loopback = { loopback: true };
const headers = (h: Record<string, string>) => new Headers(h);

describe("checkRequest on a loopback bind", () => {
	test("a loopback Host without Origin passes", () => {
		for (const host of ["127.0.0.1:7117", "localhost:7117", "[::1]:7117", "localhost", "127.0.0.1"]) {
			expect(checkRequest(headers({ host }), loopback)).toEqual({ ok: true });
		}
	});

	test("a missing Host is 403", () => {
		const r = checkRequest(headers({}), loopback);
		expect(r).toMatchObject({ ok: false, status: 403 });
	});

	test("a non-loopback Host is 403 (DNS rebinding)", () => {
		for (const host of ["evil.example:7117", "evil.example", "127.0.0.1.evil.com:7117", "10.0.0.1:7117"]) {
			const r = checkRequest(headers({ host }), loopback);
			expect(r).toMatchObject({ ok: false, status: 403 });
			if (!r.ok) expect(r.message).toMatch(/host/i);
		}
	});

	test("a loopback Host with an invalid port or syntax is 403 like a foreign one, on any bind", () => {
		for (const host of ["127.0.0.1:99999", "localhost:0", "[::1]:65536", "127.0.0.1:x", "127.0.0.1 :80"]) {
			for (const options of [loopback, { loopback: false }]) {
				const r = checkRequest(headers({ host, authorization: "Bearer t" }), options);
				expect(r).toEqual({ ok: false, status: 403, message: "invalid Host header" });
			}
		}
	});

	test("loopback Origins pass", () => {
		for (const origin of [
			"http://localhost:3000",
			"http://127.0.0.1",
			"http://[::1]:8080",
			"https://app.localhost",
			"http://127.0.0.2:9000",
		]) {
			expect(checkRequest(headers({ host: "127.0.0.1:7117", origin }), loopback)).toEqual({ ok: true });
		}
	});

	test("an IPv4-mapped loopback Origin passes (its URL host is [::ffff:7f00:1])", () => {
		const r = checkRequest(
			headers({ host: "127.0.0.1:7117", origin: "http://[::ffff:127.0.0.1]:8080" }),
			loopback,
		);
		expect(r).toEqual({ ok: true });
	});

	test("a non-loopback Origin is 403", () => {
		for (const origin of [
			"http://evil.example",
			"https://evil.example:7117",
			"http://127.0.0.1.evil.com",
			"http://localhost.evil.com",
		]) {
			const r = checkRequest(headers({ host: "127.0.0.1:7117", origin }), loopback);
			expect(r).toMatchObject({ ok: false, status: 403 });
			if (!r.ok) expect(r.message).toMatch(/origin/i);
		}
	});

	test('an unparsable or "null" Origin is 403', () => {
		for (const origin of ["null", "not a url", "", "localhost:3000x"]) {
			const r = checkRequest(headers({ host: "127.0.0.1:7117", origin }), loopback);
			expect(r).toMatchObject({ ok: false, status: 403 });
		}
	});
});

describe("checkRequest on a non-loopback bind", () => {
	const remote = { loopback: false };
	const auth = { authorization: "Bearer s3cret-token" };

	test("any Host is accepted (TLS and the token protect it), an Origin must name the same host", () => {
		expect(checkRequest(headers({ host: "rt.example.com:7117", ...auth }), remote)).toEqual({ ok: true });
		expect(
			checkRequest(
				headers({ host: "rt.example.com:7117", origin: "https://rt.example.com:7117", ...auth }),
				remote,
			),
		).toEqual({ ok: true });
	});

	test("an Origin for another host or port is 403", () => {
		for (const origin of ["https://evil.example", "https://rt.example.com:7118", "http://localhost:7117"]) {
			const r = checkRequest(headers({ host: "rt.example.com:7117", origin, ...auth }), remote);
			expect(r).toMatchObject({ ok: false, status: 403 });
		}
	});

	test('a "null" Origin is 403', () => {
		const r = checkRequest(headers({ host: "rt.example.com:7117", origin: "null", ...auth }), remote);
		expect(r).toMatchObject({ ok: false, status: 403 });
	});
});

describe("credentialOf: what the Authorization header presents", () => {
	const tokens = ["tok-123", "env-456"];

	test("nothing, when there is no header", () => {
		expect(credentialOf(null, tokens)).toEqual({ kind: "none" });
	});

	test("the operator, for any of the operator's tokens exactly", () => {
		for (const t of tokens) expect(credentialOf(`Bearer ${t}`, tokens)).toEqual({ kind: "operator" });
	});

	test("another bearer (a capability to look up) for any other well-formed token, never the operator", () => {
		for (const t of ["nope", "tok-1234", "tok-12", "TOK-123"])
			expect(credentialOf(`Bearer ${t}`, tokens)).toEqual({ kind: "bearer", token: t });
		expect(credentialOf("Bearer tok-123", [])).toEqual({ kind: "bearer", token: "tok-123" });
	});

	test("malformed for anything that is not `Bearer <token>`", () => {
		for (const header of [
			"",
			"Bearer",
			"Bearer ",
			"Basic tok-123",
			"tok-123",
			"Bearer  tok-123",
			"Bearer tok 123",
		])
			expect(credentialOf(header, tokens)).toEqual({ kind: "malformed" });
	});
});

describe("bearerMatches", () => {
	const token = "abcDEF123-_.~";

	test("exactly `Bearer <token>` matches", () => {
		expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
	});

	test("everything else does not", () => {
		for (const header of [
			null,
			"",
			"Bearer",
			"Bearer ",
			`Basic ${token}`,
			`Token ${token}`,
			token,
			`Bearer ${token}x`,
			`Bearer ${token.slice(0, -1)}`,
			`Bearer ${token.toUpperCase()}`,
			`Bearer  ${token}`,
			`Bearer ${token} `,
			`xBearer ${token}`,
		]) {
			expect(bearerMatches(header, token)).toBe(false);
		}
	});

	test("an empty token never matches", () => {
		expect(bearerMatches("Bearer ", "")).toBe(false);
		expect(bearerMatches("", "")).toBe(false);
		expect(bearerMatches(null, "")).toBe(false);
	});

	test("a token of another length does not match", () => {
		expect(bearerMatches("Bearer short", "a-much-longer-token-value")).toBe(false);
		expect(bearerMatches("Bearer a-much-longer-token-value", "short")).toBe(false);
	});
});
