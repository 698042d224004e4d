// Pure checks for the HTTP endpoint: DNS-rebinding (Host and Origin) and what the Authorization
// header presents. Kept free of I/O so every rule can be tested without a socket.
import { timingSafeEqual } from "node:crypto";

/** localhost, 127.0.0.0/8, ::1 and IPv4-mapped loopback, with or without IPv6 brackets. */
export function isLoopbackHostname(hostname: string): boolean {
	const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
	if (h === "localhost" || h.endsWith(".localhost") || h === "::1") return true;
	const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
	// IPv4-mapped 127.0.0.0/8 also comes in hex, as URL parsing writes it: ::ffff:7f00:1.
	return (
		/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) ||
		(h.startsWith("::ffff:") && /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(v4))
	);
}

// A Host header is `host[:port]` (RFC 9110 §7.2): an IPv6 literal in brackets, or a name or IPv4
// address of the characters a URL host may hold. Anything else, or a port outside 1–65535, would
// make the request's URL unparsable, so it is refused here with the other bad Hosts.
const HOST_HEADER = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._~-]+))(?::(\d{1,5}))?$/;

/** The hostname of a Host header value (`127.0.0.1:7117`, `[::1]:7117`, `localhost`); undefined when its syntax or port is invalid. */
export function hostnameOf(host: string): string | undefined {
	const m = HOST_HEADER.exec(host);
	if (!m) return undefined;
	const port = m[3];
	if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return undefined;
	return (m[1] ?? m[2]) as string;
}

export type GuardResult = { ok: true } | { ok: false; status: 403; message: string };

export interface GuardOptions {
	/** The server listens on a loopback address only. */
	loopback: boolean;
}

/** Host and Origin checks for one request. */
export function checkRequest(headers: Headers, options: GuardOptions): GuardResult {
	const host = headers.get("host");
	if (!host) return { ok: false, status: 403, message: "missing Host header" };
	const hostname = hostnameOf(host);
	if (hostname === undefined || (options.loopback && !isLoopbackHostname(hostname))) {
		return { ok: false, status: 403, message: "invalid Host header" };
	}
	const origin = headers.get("origin");
	if (origin !== null) {
		let originHost: string;
		try {
			originHost = new URL(origin).host;
		} catch {
			return { ok: false, status: 403, message: "invalid Origin header" };
		}
		const allowed = options.loopback ? isLoopbackHostname(hostnameOf(originHost) ?? "") : originHost === host;
		if (!allowed) return { ok: false, status: 403, message: "invalid Origin header" };
	}
	return { ok: true };
}

/** What a request presents: no credential, the operator's token, another bearer (a capability to look up), or a malformed header. */
export type Credential =
	| { kind: "none" }
	| { kind: "operator" }
	| { kind: "bearer"; token: string }
	| { kind: "malformed" };

export function credentialOf(header: string | null, operatorTokens: readonly string[]): Credential {
	if (header === null) return { kind: "none" };
	const token = /^Bearer ([\x21-\x7e]+)$/.exec(header)?.[1];
	if (token === undefined) return { kind: "malformed" };
	// Every operator token is compared, whether or not an earlier one matched: no timing tells which.
	let operator = false;
	for (const t of operatorTokens) operator = bearerMatches(header, t) || operator;
	return operator ? { kind: "operator" } : { kind: "bearer", token };
}

/** Constant-time comparison of `Authorization: Bearer <token>` (digests hide the length too). */
export function bearerMatches(header: string | null, token: string): boolean {
	return sameSecret(/^Bearer (.+)$/.exec(header ?? "")?.[1] ?? "", token);
}

/** Constant-time comparison of a presented secret with the expected one; an empty one never matches. */
export function sameSecret(given: string, expected: string): boolean {
	const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest();
	return timingSafeEqual(digest(given), digest(expected)) && given !== "";
}
