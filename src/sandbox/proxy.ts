// A launched agent's only way out of its network namespace: an HTTP CONNECT proxy served on a Unix
// socket that is bound into the sandbox (forward.ts relays the agent's loopback to it). Only the
// hosts its adapter names (adapters.<name>.egress) are reached; every other request is answered 403
// and reported, so a refused host is an event. CONNECT carries the agent's TLS through untouched.
// Plain HTTP goes only to an entry that names it, `http://host:port` (a model server on this
// machine, such as Ollama's): one request per connection, its head rewritten to origin form.
import { lookup } from "node:dns/promises";
import { rmSync } from "node:fs";
import { isIP } from "node:net";
import type { Socket } from "bun";
import { farSide, Outbox } from "./outbox.ts";

/** The longest request head read before the proxy gives up on a connection. */
const MAX_HEAD_BYTES = 8192;
const HEAD_DEADLINE_MS = 10_000;

/** Whether `host:port` is named by the list: `host`, `*.domain`, or either with `:port` (default 443). */
export function egressAllows(list: readonly string[], host: string, port: number): boolean {
	const h = host.toLowerCase().replace(/^\[|\]$/g, "");
	return list.some((entry) => {
		const m = /^(.*?)(?::(\d+))?$/.exec(entry.trim().toLowerCase()) as RegExpExecArray;
		const name = (m[1] as string).replace(/^\[|\]$/g, "");
		if (port !== (m[2] === undefined ? 443 : Number(m[2]))) return false;
		return name.startsWith("*.") ? h.endsWith(name.slice(1)) && h.length > name.length - 1 : h === name;
	});
}

/** Whether the list names `http://host:port` (port 80 when none) for plain HTTP. */
export function plainHttpAllows(list: readonly string[], host: string, port: number): boolean {
	const plain = list.filter((e) => e.trim().toLowerCase().startsWith("http://"));
	return egressAllows(
		plain.map((e) => {
			const hostPort = e.trim().slice("http://".length).replace(/\/+$/, "");
			return /:\d+$/.test(hostPort) ? hostPort : `${hostPort}:80`;
		}),
		host,
		port,
	);
}

/**
 * A plain HTTP request's head in absolute form (`GET http://host:port/path HTTP/1.1`), as the
 * origin gets it: origin form, no hop-by-hop or proxy headers, `connection: close` (so a second
 * request, perhaps for another host, cannot follow on the same connection). Undefined when the
 * target is not an absolute `http://` URL.
 */
export function originRequest(head: string): { host: string; port: number; head: string } | undefined {
	const lines = head.split("\r\n");
	const [method, target, version] = (lines[0] as string).split(" ");
	if (!method || !target || !version || !/^HTTP\/1\.[01]$/.test(version)) return undefined;
	let url: URL;
	try {
		url = new URL(target);
	} catch {
		return undefined;
	}
	if (url.protocol !== "http:" || url.username || url.password) return undefined;
	const hop = /^(connection|keep-alive|proxy-[a-z-]*|te|trailer|upgrade):/i;
	const headers = lines.slice(1).filter((l) => l !== "" && !hop.test(l));
	return {
		host: url.hostname,
		port: Number(url.port || 80),
		head: [`${method} ${url.pathname}${url.search} ${version}`, ...headers, "connection: close", "", ""].join(
			"\r\n",
		),
	};
}

/**
 * Whether an address is this machine or the cloud's metadata service: loopback, unspecified,
 * link-local (169.254.169.254 is there), IPv4-mapped forms included.
 */
export function internalAddress(address: string): boolean {
	const a = address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, "");
	if (isIP(a) === 4) return /^(127|0)\./.test(a) || a.startsWith("169.254.");
	return a === "::1" || a === "::" || /^fe[89ab][0-9a-f]?:/.test(a);
}

/**
 * Where to connect for `host`: its address, resolved here once (so a name cannot answer one address
 * to the check and another to the connect), or why not. A name that resolves to this machine or
 * to link-local is refused; an address literal the list names is taken as meant.
 */
async function destination(host: string): Promise<{ address: string } | { refused: string }> {
	const bare = host.replace(/^\[|\]$/g, "");
	if (isIP(bare)) return { address: bare };
	try {
		const { address } = await lookup(bare);
		if (internalAddress(address))
			return { refused: `${host} resolves to ${address}, this machine or link-local` };
		return { address };
	} catch (err) {
		return { refused: `${host} does not resolve: ${(err as Error).message}` };
	}
}

export interface EgressProxy {
	path: string;
	close(): void;
}

interface Conn {
	head: Buffer | undefined;
	upstream?: Socket<undefined>;
	/** To the agent, and to the host it reached. */
	toAgent: Outbox;
	toHost: Outbox;
	timer?: ReturnType<typeof setTimeout>;
}

export async function serveEgressProxy(o: {
	path: string;
	allowed: readonly string[];
	onRefused: (host: string, port: number, why: string) => void;
}): Promise<EgressProxy> {
	rmSync(o.path, { force: true });
	const refuse = (s: Socket<Conn>, status: string) => {
		s.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
	};
	const server = Bun.listen<Conn>({
		unix: o.path,
		socket: {
			open(s) {
				const c: Conn = {
					head: Buffer.alloc(0),
					toAgent: new Outbox(() => s),
					toHost: new Outbox(() => c.upstream),
				};
				s.data = c;
				s.data.timer = setTimeout(() => s.data.upstream || s.end(), HEAD_DEADLINE_MS);
			},
			data(s, chunk) {
				const c = s.data;
				if (c.head === undefined) {
					c.toHost.send(chunk);
					return;
				}
				c.head = Buffer.concat([c.head, chunk]);
				const end = c.head.indexOf("\r\n\r\n");
				if (end === -1) {
					if (c.head.length > MAX_HEAD_BYTES) refuse(s, "431 Request Header Fields Too Large");
					return;
				}
				const [method, target] = c.head.subarray(0, c.head.indexOf("\r\n")).toString("latin1").split(" ");
				const rest = c.head.subarray(end + 4);
				const plain =
					method === "CONNECT" ? undefined : originRequest(c.head.subarray(0, end + 4).toString("latin1"));
				if (plain) {
					if (!plainHttpAllows(o.allowed, plain.host, plain.port)) {
						o.onRefused(plain.host, plain.port, "plain HTTP to a host no http:// egress entry names");
						refuse(s, "403 Forbidden");
						return;
					}
					c.head = undefined;
					c.toHost.send(Buffer.from(plain.head, "latin1"));
					if (rest.length) c.toHost.send(rest);
					void connectTo(s, c, plain.host, plain.port, false);
					return;
				}
				const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(target ?? "");
				if (method !== "CONNECT" || !m) {
					o.onRefused(
						target ?? "",
						0,
						`${method} ${target ?? ""} is neither CONNECT host:port nor an http:// URL`,
					);
					refuse(s, "405 Method Not Allowed");
					return;
				}
				const host = m[1] as string;
				const port = Number(m[2]);
				if (!egressAllows(o.allowed, host, port)) {
					o.onRefused(host, port, "not in the adapter's egress list");
					refuse(s, "403 Forbidden");
					return;
				}
				// From here on the agent's bytes go to the host (queued until it answers).
				c.head = undefined;
				if (rest.length) c.toHost.send(rest);
				void connectTo(s, c, host, port, true);
			},
			drain(s) {
				s.data.toAgent.drain();
			},
			close(s) {
				clearTimeout(s.data.timer);
				s.data.upstream?.end();
			},
			error(s) {
				s.data.upstream?.end();
			},
		},
	});

	async function connectTo(s: Socket<Conn>, c: Conn, host: string, port: number, tunnel: boolean) {
		const to = await destination(host);
		if ("refused" in to) {
			o.onRefused(host, port, to.refused);
			refuse(s, "403 Forbidden");
			return;
		}
		await Bun.connect({
			hostname: to.address,
			port,
			socket: farSide(s, c.toAgent, c.toHost, (up) => {
				c.upstream = up;
				clearTimeout(c.timer);
				if (tunnel) c.toAgent.send(Buffer.from("HTTP/1.1 200 Connection Established\r\n\r\n"));
			}),
		}).catch(() => refuse(s, "502 Bad Gateway"));
	}

	return {
		path: o.path,
		close() {
			server.stop(true);
			rmSync(o.path, { force: true });
		},
	};
}
