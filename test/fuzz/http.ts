// Streamable HTTP under fuzz: JSON-RPC bodies POSTed to /mcp in one session (and sometimes with
// no session, a bogus one or odd headers), and raw HTTP bytes over TCP for what fetch cannot send
// (broken request lines, bad Host ports, stalled bodies, floods). Every answer must be HTTP 2xx,
// 4xx or 503, and a JSON-RPC reply (JSON or SSE) with the request's id, or an error.
import { createConnection } from "node:net";
import { huge, MiB, oneLine, type Rng, utf8 } from "./gen.ts";
import { idKey, MAX_ERROR_CHARS, messageProblem, type Owed, owed, PROTOCOL, rpcFrame } from "./rpc.ts";
import type { Context, Driver } from "./run.ts";
import { pool, sequence, type Tally, timeout } from "./tally.ts";

export const HTTP_CONNECTIONS = 512;
const BODY_CAP = 16 * MiB;
/** Bun's keep-alive idle timeout and timer granularity, with room: a stalled header must end by then. */
const IDLE_BOUND_MS = 15_000;

const allowedStatus = (s: number) => (s >= 200 && s < 300) || (s >= 400 && s < 500) || s === 503;

interface PostCase {
	type: "post";
	label: string;
	method: string;
	path: string;
	body?: Uint8Array;
	headers: Record<string, string>;
	/** No session header (a created session is deleted afterwards). */
	fresh: boolean;
	owe: Owed;
	timeoutMs: number;
}

interface RawCase {
	type: "raw";
	label: string;
	chunks: Uint8Array[];
	gapMs?: number;
	/** Half-close after writing. */
	endWrite: boolean;
	/** The server may close without a status line (the request is broken HTTP). */
	closeOk: boolean;
	/** Statuses the answer must have (any allowed one when undefined). */
	status?: number[];
	timeoutMs: number;
}

export type HttpCase = PostCase | RawCase;

interface Where {
	port: number;
	session: string;
}

function postHeaders(w: Where, extra: Record<string, string> = {}): Record<string, string> {
	return {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		"mcp-session-id": w.session,
		"mcp-protocol-version": PROTOCOL,
		...extra,
	};
}

const HEADER_VARIANTS: ((w: Where, rng: Rng) => Record<string, string>)[] = [
	(w) => ({ ...postHeaders(w), accept: "text/html" }),
	(w) => ({ ...postHeaders(w), "content-type": "text/plain" }),
	(w, rng) => ({
		...postHeaders(w),
		"mcp-protocol-version": rng.pick(["1999-01-01", "", "2025-11-25x", "x".repeat(300)]),
	}),
	(w) => ({ ...postHeaders(w), "mcp-session-id": crypto.randomUUID() }),
	(w) => ({ ...postHeaders(w), "mcp-session-id": "../../etc/passwd" }),
	(w) => ({ ...postHeaders(w), origin: "http://evil.example" }),
	(w) => ({ ...postHeaders(w), origin: "null" }),
	(w) => ({ ...postHeaders(w), authorization: "Bearer nonsense" }),
	(w) => ({ ...postHeaders(w), "last-event-id": "nonsense" }),
];

function rawRequest(w: Where, body: Uint8Array, extra = ""): Uint8Array {
	const head =
		`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${w.port}\r\nContent-Type: application/json\r\n` +
		`Accept: application/json, text/event-stream\r\nMcp-Session-Id: ${w.session}\r\n` +
		`Mcp-Protocol-Version: ${PROTOCOL}\r\n${extra}Content-Length: ${body.length}\r\n\r\n`;
	return Buffer.concat([utf8(head), body]);
}

let seq = 0;

/** One generated case. */
export function httpCase(rng: Rng, w: Where, hangMs: number): HttpCase {
	const r = rng.int(100);
	const id = rng.chance(0.5) ? `h${++seq}` : 1_000_000 + ++seq;
	if (r < 80) {
		const f = rpcFrame(rng, id);
		const fresh = rng.chance(0.04);
		const variant = !fresh && rng.chance(0.08) ? rng.pick(HEADER_VARIANTS)(w, rng) : undefined;
		const headers = fresh ? postHeaders(w) : (variant ?? postHeaders(w));
		if (fresh) delete headers["mcp-session-id"];
		return {
			type: "post",
			label: `${f.label}${fresh ? "+fresh" : variant ? "+headers" : ""}`,
			method: "POST",
			path: "/mcp",
			body: f.bytes,
			headers,
			fresh,
			owe: owed(f.bytes, false),
			timeoutMs: hangMs,
		};
	}
	if (r < 85) {
		const [method, path] = rng.pick([
			["GET", "/healthz"],
			["GET", "/mcp"],
			["DELETE", "/mcp"],
			["PUT", "/mcp"],
			["PATCH", "/mcp"],
			["OPTIONS", "/mcp"],
			["GET", "/"],
			["GET", "/mcp/../healthz"],
			["POST", "/healthz"],
		]) as [string, string];
		// Never GET or DELETE with the run's own session: a stream would stay open, or the session end.
		const headers = postHeaders(w, { "mcp-session-id": crypto.randomUUID() });
		if (rng.chance(0.5)) delete headers["mcp-session-id"];
		return {
			type: "post",
			label: `method:${method}`,
			method,
			path,
			headers,
			fresh: true,
			owe: { kind: "none" },
			timeoutMs: hangMs,
		};
	}
	// Raw bytes: a valid request, mutated in its request line, headers or body, half-closed.
	const valid = rawRequest(w, oneLine(rpcFrame(rng, id).bytes));
	const { kind, bytes } = rawMutate(rng, valid);
	return {
		type: "raw",
		label: `raw:${kind}`,
		chunks: [bytes],
		endWrite: true,
		closeOk: true,
		timeoutMs: hangMs,
	};
}

const RAW_MUTATIONS = [
	"bitflip",
	"insert",
	"delete",
	"truncate",
	"crlf",
	"dup-header",
	"content-length",
	"header-junk",
] as const;

/** A byte-level mutation of a raw request, placed in the request line, the headers or the body. */
function rawMutate(rng: Rng, valid: Uint8Array): { kind: string; bytes: Uint8Array } {
	const kind = rng.pick(RAW_MUTATIONS);
	const text = Buffer.from(valid).toString("latin1");
	const headEnd = text.indexOf("\r\n\r\n");
	const lineEnd = text.indexOf("\r\n");
	const region = rng.int(10);
	const [lo, hi] =
		region === 0 ? [0, lineEnd] : region < 5 ? [lineEnd + 2, headEnd] : [headEnd + 4, text.length];
	const at = rng.range(lo, Math.max(lo, hi));
	const bytes = Buffer.from(valid);
	switch (kind) {
		case "bitflip":
			for (let i = rng.range(1, 4); i > 0; i--) {
				const p = rng.range(lo, Math.max(lo, hi - 1));
				if (p < bytes.length) bytes[p] = (bytes[p] as number) ^ (1 << rng.int(8));
			}
			return { kind, bytes };
		case "insert":
			return {
				kind,
				bytes: Buffer.concat([bytes.subarray(0, at), rng.bytes(rng.range(1, 16)), bytes.subarray(at)]),
			};
		case "delete":
			return { kind, bytes: Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + rng.range(1, 16))]) };
		case "truncate":
			return { kind, bytes: bytes.subarray(0, at) };
		case "crlf":
			return {
				kind,
				bytes: Buffer.concat([
					bytes.subarray(0, at),
					Buffer.from(rng.pick(["\r\n", "\n", "\r", "\r\n\r\n"])),
					bytes.subarray(at),
				]),
			};
		case "dup-header": {
			const lines = text.slice(lineEnd + 2, headEnd).split("\r\n");
			const dup = rng.pick(lines);
			return {
				kind,
				bytes: Buffer.from(`${text.slice(0, headEnd)}\r\n${dup}${text.slice(headEnd)}`, "latin1"),
			};
		}
		case "content-length": {
			const value = rng.pick([
				"0",
				"1",
				"-1",
				"abc",
				"1e3",
				" 5",
				"99999999999999999999",
				String(rng.int(400)),
			]);
			return {
				kind,
				bytes: Buffer.from(text.replace(/Content-Length: \d+/, `Content-Length: ${value}`), "latin1"),
			};
		}
		default: {
			const name = rng.pick([
				"Host",
				"Origin",
				"Mcp-Session-Id",
				"Content-Type",
				"Accept",
				"Transfer-Encoding",
				"Expect",
				"Connection",
				"X-\u00ff",
			]);
			const value = rng.pick([
				"",
				"127.0.0.1:99999",
				"chunked",
				"100-continue",
				"close",
				"\u00e9\u00ff",
				"x".repeat(rng.size(9000)),
				"null",
			]);
			return {
				kind,
				bytes: Buffer.from(
					`${text.slice(0, lineEnd + 2)}${name}: ${value}\r\n${text.slice(lineEnd + 2)}`,
					"latin1",
				),
			};
		}
	}
}

/** The issue's cases over HTTP. */
export function httpIssueCases(w: Where, deadlineMs: number, hangMs: number): HttpCase[] {
	const stall = deadlineMs + hangMs;
	const call = (id: number, name: string, args: object = {}) =>
		utf8(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }));
	const post = (label: string, body: Uint8Array, idText: string): PostCase => ({
		type: "post",
		label,
		method: "POST",
		path: "/mcp",
		body,
		headers: postHeaders(w),
		fresh: false,
		owe: { kind: "request", id: idText },
		timeoutMs: hangMs,
	});
	const raw = (label: string, text: string | Uint8Array, o: Partial<RawCase> = {}): RawCase => ({
		type: "raw",
		label,
		chunks: [typeof text === "string" ? utf8(text) : text],
		endWrite: true,
		closeOk: false,
		timeoutMs: hangMs,
		...o,
	});
	const host = (h: string) => `GET /healthz HTTP/1.1\r\nHost: ${h}\r\nConnection: close\r\n\r\n`;
	const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${w.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${w.session}\r\n`;
	return [
		post("issue:huge-name-100k", call(91, huge(100_000)), "91"),
		post("issue:huge-name-8m", call(92, huge(8 * MiB)), "92"),
		post("issue:huge-name-16m", call(93, huge(BODY_CAP - 128)), "93"),
		post("issue:huge-key-16m", call(94, "task.list", { [huge(BODY_CAP - 128, "k")]: 1 }), "94"),
		post("issue:near-name-8m", call(95, `task.lis${huge(8 * MiB, "t")}`), "95"),
		{ ...post("issue:over-cap-body", utf8(huge(BODY_CAP + 1)), "0"), owe: { kind: "parse-error" } },
		raw("issue:host-port-99999", host("127.0.0.1:99999"), { status: [403] }),
		raw("issue:host-port-empty", host("127.0.0.1:"), { status: [403] }),
		raw("issue:host-port-negative", host("127.0.0.1:-1"), { status: [403] }),
		raw("issue:host-port-junk", host("localhost:7117:1"), { status: [403] }),
		raw("issue:host-ipv6-open", host("[::1"), { status: [403] }),
		raw("issue:host-ipv6-port", host("[::1]:999999"), { status: [403] }),
		raw("issue:host-huge-port", host(`127.0.0.1:${"9".repeat(400)}`), { status: [403] }),
		raw("issue:stalled-body", `${head}Content-Length: 100\r\n\r\n{"jsonrpc"`, {
			endWrite: false,
			status: [408],
			timeoutMs: stall,
		}),
		raw("issue:slow-body", `${head}Content-Length: 100\r\n\r\n`, {
			chunks: [
				utf8(`${head}Content-Length: 100\r\n\r\n`),
				...Array.from({ length: Math.ceil(deadlineMs / 250) + 8 }, () => utf8(" ")),
			],
			gapMs: 250,
			endWrite: false,
			status: [408],
			timeoutMs: stall + deadlineMs,
		}),
		raw("issue:stalled-chunked", `${head}Transfer-Encoding: chunked\r\n\r\n5\r\n{"jso`, {
			endWrite: false,
			status: [408],
			timeoutMs: stall,
		}),
		raw("issue:stalled-headers", `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n`, {
			endWrite: false,
			closeOk: true,
			timeoutMs: IDLE_BOUND_MS + hangMs,
		}),
		raw("issue:idle-connection", new Uint8Array(0), {
			endWrite: false,
			closeOk: true,
			timeoutMs: IDLE_BOUND_MS + hangMs,
		}),
		raw("issue:unknown-method", "FOO /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", {
			endWrite: false,
			closeOk: true,
			timeoutMs: IDLE_BOUND_MS + hangMs,
		}),
		raw("issue:content-length-lie", `${head}Content-Length: 999999\r\n\r\n{}`, {
			endWrite: true,
			closeOk: true,
			timeoutMs: stall,
		}),
		raw("issue:content-length-junk", `${head}Content-Length: 1e3\r\n\r\n{}`, { closeOk: true }),
		raw("issue:content-length-twice", `${head}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, {
			closeOk: true,
		}),
		raw(
			"issue:chunk-size-overflow",
			`${head}Transfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n{}\r\n0\r\n\r\n`,
			{ closeOk: true },
		),
		raw("issue:huge-header", `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${huge(MiB)}\r\n\r\n`, {
			closeOk: true,
		}),
		raw("issue:nul-in-header", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Nul: a\u0000b\r\n\r\n", {
			closeOk: true,
		}),
		raw("issue:garbage", Uint8Array.from([0, 1, 2, 0xff, 0x0d, 0x0a, 0x0d, 0x0a]), { closeOk: true }),
		raw("issue:http2-preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", { closeOk: true }),
		raw("issue:absolute-url", `GET http://evil.example/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, {
			closeOk: true,
		}),
	];
}

export interface HttpAnswer {
	status?: number;
	headers?: Headers;
	text: string;
	error?: string;
	ms: number;
	timedOut: boolean;
}

async function sendPost(w: Where, c: PostCase): Promise<HttpAnswer> {
	const started = performance.now();
	const abort = new AbortController();
	const limit = timeout(c.timeoutMs, "timeout" as const);
	const attempt = async (): Promise<HttpAnswer> => {
		const res = await fetch(`http://127.0.0.1:${w.port}${c.path}`, {
			method: c.method,
			headers: c.headers,
			...(c.body !== undefined && c.method !== "GET" && { body: c.body }),
			signal: abort.signal,
		});
		const text = await res.text();
		return {
			status: res.status,
			headers: res.headers,
			text,
			ms: performance.now() - started,
			timedOut: false,
		};
	};
	try {
		const work = attempt().catch(async (err: Error) => {
			if (abort.signal.aborted) throw err;
			// A keep-alive connection the server closed as it was reused: one retry on a fresh one.
			await Bun.sleep(20);
			return attempt();
		});
		const got = await Promise.race([work, limit.promise]);
		if (got === "timeout") {
			abort.abort();
			return { text: "", ms: performance.now() - started, timedOut: true };
		}
		return got;
	} catch (err) {
		return { text: "", error: (err as Error).message, ms: performance.now() - started, timedOut: false };
	} finally {
		limit.clear();
	}
}

/** The response after any interim 1xx ones (`100 Continue` to `Expect: 100-continue`). */
function finalResponse(text: string): string {
	let rest = text;
	while (/^HTTP\/1\.[01] 1\d\d/.test(rest)) {
		const end = rest.indexOf("\r\n\r\n");
		if (end === -1) return "";
		rest = rest.slice(end + 4);
	}
	return rest;
}

function sendRaw(port: number, c: RawCase): Promise<HttpAnswer> {
	const started = performance.now();
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let settled = false;
		let error: string | undefined;
		const conn = createConnection({ host: "127.0.0.1", port, allowHalfOpen: true });
		const limit = timeout(c.timeoutMs, "timeout");
		const finish = (timedOut: boolean) => {
			if (settled) return;
			settled = true;
			limit.clear();
			conn.destroy();
			const text = finalResponse(Buffer.concat(chunks).toString("latin1"));
			const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
			resolve({
				text,
				ms: performance.now() - started,
				timedOut,
				...(status && { status: Number(status) }),
				...(error && { error }),
			});
		};
		void limit.promise.then(() => finish(true));
		conn.on("data", (d: Buffer) => {
			chunks.push(d);
			// One complete response is enough (a kept-alive connection would not close).
			const text = finalResponse(Buffer.concat(chunks).toString("latin1"));
			const end = text.indexOf("\r\n\r\n");
			const length = /\r\ncontent-length: (\d+)/i.exec(text)?.[1];
			if (end !== -1 && length !== undefined && text.length >= end + 4 + Number(length)) finish(false);
		});
		conn.on("error", (err: NodeJS.ErrnoException) => {
			if (err.code !== "EPIPE") error = err.code ?? err.message;
		});
		conn.on("end", () => finish(false));
		conn.on("close", () => finish(false));
		conn.on("connect", async () => {
			for (const [i, chunk] of c.chunks.entries()) {
				if (settled) return;
				if (i > 0 && c.gapMs) await Bun.sleep(c.gapMs);
				if (chunk.length > 0 && !conn.write(chunk))
					await new Promise<void>((r) => conn.once("drain", () => r()).once("close", () => r()));
			}
			if (c.endWrite && !settled) conn.end();
		});
	});
}

/** The JSON-RPC messages of an answer (one JSON body, or the data of each SSE event). */
function messagesOf(a: HttpAnswer): unknown[] | string {
	const type = a.headers?.get("content-type") ?? "";
	if (type.includes("text/event-stream")) {
		const out: unknown[] = [];
		for (const event of a.text.split(/\r?\n\r?\n/)) {
			const data = event
				.split(/\r?\n/)
				.filter((l) => l.startsWith("data:"))
				.map((l) => l.slice(5).replace(/^ /, ""));
			if (data.length === 0 || data.join("") === "") continue;
			try {
				out.push(JSON.parse(data.join("\n")));
			} catch {
				return `an SSE event that is not JSON: ${data.join("\n").slice(0, 200)}`;
			}
		}
		return out;
	}
	if (type.includes("application/json")) {
		try {
			return [JSON.parse(a.text)];
		} catch {
			return `a JSON body that is not JSON: ${a.text.slice(0, 200)}`;
		}
	}
	return `content-type ${JSON.stringify(type)}: ${a.text.slice(0, 120)}`;
}

/**
 * The request line is `METHOD target HTTP/1.0|1.1` ended by CRLF. Bun answers any other request line
 * (a bad target, a bare LF after the version) with 505 before the application sees it; the suite
 * accepts that 505 and counts it, and fails any other 5xx but 503.
 */
function plainRequestLine(bytes: Uint8Array): boolean {
	const text = Buffer.from(bytes).toString("latin1");
	const end = text.indexOf("\n");
	if (end === -1 || text[end - 1] !== "\r") return false;
	return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [\x21-\x7e]+ HTTP\/1\.[01]$/.test(text.slice(0, end - 1));
}

/** Judges one answer; returns a new session id the server made (to delete), if any. */
export function judgeHttp(t: Tally, c: HttpCase, a: HttpAnswer): string | undefined {
	if (a.timedOut) {
		t.fail("hang", c.label, `no answer within ${c.timeoutMs} ms`);
		return undefined;
	}
	if (a.status === undefined) {
		if (c.type === "raw" && c.closeOk) {
			t.answer("closed");
			return undefined;
		}
		t.fail("malformed", c.label, `no HTTP answer${a.error ? ` (${a.error})` : ""}: ${a.text.slice(0, 120)}`);
		return undefined;
	}
	t.answer(String(a.status));
	if (a.status === 505 && c.type === "raw" && !plainRequestLine(Buffer.concat(c.chunks))) {
		t.answer("of which 505 from Bun to a request line it cannot parse");
		return undefined;
	}
	if (!allowedStatus(a.status)) {
		const line =
			c.type === "raw"
				? ` to ${JSON.stringify(Buffer.concat(c.chunks).toString("latin1").split("\n")[0]?.slice(0, 120))}`
				: "";
		t.fail("malformed", c.label, `HTTP ${a.status}${line}: ${a.text.slice(0, 200)}`);
		return undefined;
	}
	if (c.type === "raw") {
		if (c.status && !c.status.includes(a.status))
			t.fail(
				"malformed",
				c.label,
				`expected HTTP ${c.status.join(" or ")}, got ${a.status}: ${a.text.slice(0, 200)}`,
			);
		return undefined;
	}
	const created = c.fresh ? (a.headers?.get("mcp-session-id") ?? undefined) : undefined;
	if (c.path !== "/mcp" || c.method !== "POST") return created;
	if (a.status === 202) {
		if (c.owe.kind === "request")
			t.fail("malformed", c.label, `a request (id ${c.owe.id}) was answered 202 with no reply`);
		return created;
	}
	// Bun's own 413 for bodies far beyond the cap comes without a JSON-RPC body.
	if (a.status === 413 && !a.headers?.get("content-type")?.includes("json")) return created;
	const messages = messagesOf(a);
	if (typeof messages === "string") {
		t.fail("malformed", c.label, `HTTP ${a.status} with ${messages}`);
		return created;
	}
	const replies = messages.filter((m) => typeof (m as { method?: unknown }).method !== "string");
	for (const m of messages) {
		const problem = messageProblem(m);
		if (problem) {
			t.fail("malformed", c.label, `${problem}: ${JSON.stringify(m).slice(0, 200)}`);
			return created;
		}
	}
	if (replies.length !== 1) {
		t.fail("malformed", c.label, `${replies.length} replies in one answer: ${a.text.slice(0, 200)}`);
		return created;
	}
	const reply = replies[0] as { id: unknown; result?: unknown; error?: { code: number; message: string } };
	const key = idKey(reply.id);
	const want = c.owe.kind === "request" || c.owe.kind === "invalid" ? c.owe.id : null;
	if (reply.error) {
		t.answer(`rpc ${reply.error.code}`);
		if (reply.error.code === -32603)
			t.note(`internal error for ${c.label}: ${reply.error.message.replace(/\s+/g, " ").slice(0, 160)}`);
		if (key !== null && key !== want)
			t.fail("malformed", c.label, `an error for id ${key}, the request's id is ${want}`);
		if (JSON.stringify(reply).length > MAX_ERROR_CHARS)
			t.fail("malformed", c.label, `an error of ${JSON.stringify(reply).length} characters echoes the input`);
	} else {
		if (c.owe.kind !== "request")
			t.fail("malformed", c.label, `a result for a frame that is not a request (${c.owe.kind})`);
		else if (key !== c.owe.id)
			t.fail("malformed", c.label, `a result for id ${key}, the request's id is ${c.owe.id}`);
		const result = reply.result as { isError?: boolean; content?: { text?: string }[] };
		if (result?.isError && JSON.stringify(result).length > MAX_ERROR_CHARS)
			t.fail(
				"malformed",
				c.label,
				`a tool error of ${JSON.stringify(result).length} characters echoes the input`,
			);
	}
	if (a.status >= 400 && !reply.error) t.fail("malformed", c.label, `HTTP ${a.status} with a result`);
	return created;
}

async function initialize(port: number, hangMs: number): Promise<string> {
	const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 0,
			method: "initialize",
			params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
		}),
		signal: AbortSignal.timeout(hangMs),
	});
	await res.text();
	const session = res.headers.get("mcp-session-id");
	if (!res.ok || !session) throw new Error(`initialize answered HTTP ${res.status}`);
	const note = await fetch(`http://127.0.0.1:${port}/mcp`, {
		method: "POST",
		headers: postHeaders({ port, session }),
		body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
	});
	await note.text();
	return session;
}

/** More connections than the cap, each stalled in its body: each must get 408 or 503 (or a close). */
async function httpFlood(
	t: Tally,
	w: Where,
	deadlineMs: number,
	hangMs: number,
	extra: number,
): Promise<void> {
	const n = HTTP_CONNECTIONS + extra;
	const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${w.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${w.session}\r\nContent-Length: 50\r\n\r\n{`;
	const c: RawCase = {
		type: "raw",
		label: `issue:flood-${n}`,
		chunks: [utf8(head)],
		endWrite: false,
		closeOk: true,
		timeoutMs: deadlineMs + hangMs,
	};
	const started = performance.now();
	const answers = await Promise.all(Array.from({ length: n }, () => sendRaw(w.port, c)));
	const statuses = new Map<string, number>();
	for (const a of answers) {
		judgeHttp(t, c, a);
		const s = a.timedOut ? "hang" : String(a.status ?? "closed");
		statuses.set(s, (statuses.get(s) ?? 0) + 1);
		if (a.status !== undefined && a.status !== 408 && a.status !== 503)
			t.fail("malformed", c.label, `a stalled body answered ${a.status}`);
	}
	t.sent(c.label, performance.now() - started);
	t.note(`HTTP flood of ${n} stalled bodies: ${[...statuses].map(([k, v]) => `${k} ${v}`).join(", ")}`);
}

/** The HTTP driver for `run`. */
export async function httpDriver(ctx: Context): Promise<Driver> {
	const { owner, tally, options, deadlineMs } = ctx;
	const port = Number(new URL(owner.url).port);
	const w: Where = { port, session: await initialize(port, options.hangMs) };
	const background: Promise<void>[] = [];
	const del = (session: string) =>
		fetch(`http://127.0.0.1:${port}/mcp`, {
			method: "DELETE",
			headers: { "mcp-session-id": session },
			signal: AbortSignal.timeout(options.hangMs),
		})
			.then((r) => r.text())
			.catch(() => "");
	const one = async (c: HttpCase) => {
		const a = c.type === "post" ? await sendPost(w, c) : await sendRaw(port, c);
		tally.sent(c.label, a.ms);
		const created = judgeHttp(tally, c, a);
		if (created) await del(created);
		return a.timedOut;
	};
	let validId = 0;
	return {
		pids: { owner: owner.proc.pid },
		dead: () => (owner.alive() ? undefined : "owner"),
		async valid() {
			const id = `valid-${++validId}`;
			const c: PostCase = {
				type: "post",
				label: "valid:task.list",
				method: "POST",
				path: "/mcp",
				body: utf8(
					JSON.stringify({
						jsonrpc: "2.0",
						id,
						method: "tools/call",
						params: { name: "task.list", arguments: { limit: 1 } },
					}),
				),
				headers: postHeaders(w),
				fresh: false,
				owe: { kind: "request", id: JSON.stringify(id) },
				timeoutMs: options.hangMs,
			};
			const a = await sendPost(w, c);
			if (a.timedOut) return `no answer within ${options.hangMs} ms`;
			const messages =
				a.status === 200 ? messagesOf(a) : `HTTP ${a.status} ${a.error ?? ""} ${a.text.slice(0, 200)}`;
			if (typeof messages === "string") return messages;
			const reply = messages.find((m) => (m as { id?: unknown }).id === id) as
				| { result?: { isError?: boolean; structuredContent?: { tasks?: unknown } } }
				| undefined;
			if (!reply?.result || reply.result.isError || !Array.isArray(reply.result.structuredContent?.tasks))
				return `answered ${a.text.slice(0, 200)}`;
			return undefined;
		},
		async batch(rng, size) {
			const cases = Array.from({ length: size }, () => httpCase(rng, w, options.hangMs));
			await pool(cases, options.concurrency, async (c) => void (await one(c)));
		},
		async issues() {
			const fixed = httpIssueCases(w, deadlineMs, options.hangMs);
			const slow = fixed.filter((c) => c.timeoutMs > options.hangMs);
			const rest = fixed.filter((c) => c.timeoutMs <= options.hangMs);
			const stalled = Promise.all(slow.filter((c) => c.timeoutMs < IDLE_BOUND_MS).map(one));
			const hung = await sequence(rest, one, tally);
			await stalled;
			if (hung) tally.note("the HTTP flood was skipped: an earlier case hung the owner");
			else await httpFlood(tally, w, deadlineMs, options.hangMs, options.long ? 300 : 40);
			// Cases that wait out the keep-alive idle time (the long run only) go on beside the next batches.
			if (options.long)
				background.push(
					Promise.all(slow.filter((c) => c.timeoutMs >= IDLE_BOUND_MS).map(one)).then(() => {}),
				);
		},
		async close() {
			await Promise.all(background);
			await del(w.session);
		},
	};
}
