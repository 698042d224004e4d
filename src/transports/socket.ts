// The legacy Unix socket, the seed's protocol: one `{"tool","args"}` line per connection, answered
// by one `{"ok":true,"result"}` or `{"ok":false,"error","code","details"}` line, then close. Plus
// what the old one lacked: a frame cap, read and write deadlines, a connection cap, whole writes of
// large replies, cancellation when the client goes away, 0600 permissions, and a stale-socket check.
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import type { Socket, UnixSocketListener } from "bun";
import { type Caller, operatorContext } from "../context.ts";
import { clip } from "../domain/text.ts";
import { asToolError, ToolError } from "../errors.ts";
import { NONE, Sweep } from "./deadlines.ts";
import type { InFlight } from "./inflight.ts";

export interface SocketOptions {
	path: string;
	/** The socket's directory belongs to the project (under .roundtable/), so it may be tightened. */
	privateDir: boolean;
	maxFrameBytes: number;
	readDeadlineMs: number;
	writeDeadlineMs: number;
	maxConnections: number;
	inflight: InFlight;
}

export interface SocketServer {
	path: string;
	/** Accepts no new connections; calls in flight go on. */
	stopAccepting(): void;
	/** Cuts the remaining connections and removes the socket file. */
	close(): void;
}

type Phase = "reading" | "calling" | "writing" | "done";

interface Conn {
	phase: Phase;
	/** Refused before reading: after the reply, read and drop what the client sends until it ends. */
	linger: boolean;
	/** The request's first chunk: most requests arrive whole in one, and need no copy. */
	first: Uint8Array | undefined;
	/** Its later chunks, when it came in several. */
	more: Uint8Array[] | undefined;
	/** Bytes of the request line so far (its newline not counted). */
	size: number;
	/** Made when the call starts; aborted when the client goes away during it. */
	abort: AbortController | undefined;
	/** What is left to write of a reply the socket did not take whole. */
	out: Buffer | undefined;
	/** When the deadline of the current phase passes (reading, writing, lingering); NONE: none. */
	deadline: number;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * How long a refused connection stays half-open for the client to finish sending. Closing with its
 * request unread would reset the connection (ECONNRESET, or EPIPE on its write) before it could
 * read why; this bounds what a flood of refused clients can hold.
 */
const LINGER_MS = 1000;

/**
 * Connects to a socket path: true when something answers — also when it accepted and hung up at once
 * (ECONNRESET) or is too busy to accept (EAGAIN: its backlog is full); false on ECONNREFUSED (nobody
 * listens); throws otherwise.
 */
async function isLive(path: string): Promise<boolean> {
	try {
		const probe = await Promise.race([
			Bun.connect({ unix: path, socket: { data() {} } }),
			Bun.sleep(200).then(() => {
				throw new Error("no answer within 200 ms");
			}),
		]);
		probe.end();
		return true;
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		if (code === "ECONNREFUSED") return false;
		if (code === "EAGAIN" || code === "ECONNRESET") return true;
		throw new Error(
			`cannot confirm the socket at ${path} is stale: ${(err as Error).message}${code ? ` (${code})` : ""}`,
		);
	}
}

/** Makes the socket's folder (0700 when it is ours) and clears a confirmed stale socket from `path`. */
export async function preparePath(path: string, privateDir: boolean): Promise<void> {
	const dir = dirname(path);
	const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
	// Tighten our own directory, never a shared one someone pointed socket_path into (like /tmp).
	if (created !== undefined || privateDir) chmodSync(dir, 0o700);
	let stat: ReturnType<typeof lstatSync>;
	try {
		stat = lstatSync(path);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
		throw err;
	}
	if (!stat.isSocket()) throw new Error(`refusing to replace ${path}: it exists and is not a socket`);
	if (await isLive(path)) throw new Error(`a Roundtable socket is already live at ${path}`);
	// Confirmed stale: remove it, unless something replaced it meanwhile.
	if (lstatSync(path).ino === stat.ino) unlinkSync(path);
}

function errorReply(err: ToolError): object {
	return {
		ok: false,
		error: err.message,
		code: err.code,
		...(err.details !== undefined && { details: err.details }),
	};
}

/**
 * Parses the seed's envelope: a JSON object, with the surrounding ASCII whitespace the seed trims
 * (JSON.parse skips exactly space, tab, CR and LF around a value). Names are exact; other fields are
 * ignored.
 */
function parseEnvelope(line: Uint8Array): { tool: string; args: unknown } {
	let text: string;
	try {
		text = STRICT_UTF8.decode(line);
	} catch {
		throw new ToolError("invalid_argument", "the request is not valid UTF-8");
	}
	let envelope: unknown;
	try {
		envelope = JSON.parse(text);
	} catch (err) {
		// The parser's message may quote a token of any length.
		throw new ToolError("invalid_argument", `the request is not valid JSON: ${clip((err as Error).message)}`);
	}
	if (envelope !== null && (typeof envelope !== "object" || Array.isArray(envelope))) {
		throw new ToolError("invalid_argument", 'the request must be a JSON object {"tool": …, "args": {…}}');
	}
	const { tool, args } = (envelope ?? {}) as { tool?: unknown; args?: unknown };
	if (tool === undefined || tool === null || tool === "")
		throw new ToolError("invalid_argument", "tool is required");
	if (typeof tool !== "string") throw new ToolError("invalid_argument", "tool must be a string");
	if (args !== undefined && args !== null && (typeof args !== "object" || Array.isArray(args))) {
		throw new ToolError("invalid_argument", "args must be a JSON object");
	}
	return { tool, args: args ?? {} };
}

/** Nothing but ASCII whitespace (the seed's blank line: no request, no reply). */
function isBlank(buf: Uint8Array): boolean {
	for (const b of buf) if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) return false;
	return true;
}

/** How often connection deadlines are checked: they are met at most this late. */
const granularity = (...deadlinesMs: number[]) => Math.min(1000, Math.max(10, Math.min(...deadlinesMs) / 4));

export async function startSocket(call: Caller, options: SocketOptions): Promise<SocketServer> {
	await preparePath(options.path, options.privateDir);
	const open = new Set<Socket<Conn>>();
	const lingering = new Set<Socket<Conn>>(); // refused over the cap, not counted in it
	// Refused and not lingering, but its reply did not go out whole: it has a write deadline.
	const refusedWriting = new Set<Socket<Conn>>();
	const sweep = new Sweep(granularity(options.readDeadlineMs, options.writeDeadlineMs, LINGER_MS), (now) => {
		for (const group of [open, lingering, refusedWriting])
			for (const s of group) {
				if (s.data.deadline > now) continue;
				s.data.deadline = NONE;
				expired(s);
			}
		return open.size + lingering.size + refusedWriting.size > 0;
	});
	const due = (s: Socket<Conn>, ms: number) => {
		s.data.deadline = performance.now() + ms;
		sweep.run();
	};

	/** The deadline of the socket's phase passed: reading, writing, or lingering after a refusal. */
	function expired(s: Socket<Conn>): void {
		const c = s.data;
		if (c.phase === "reading") {
			reply(
				s,
				errorReply(
					new ToolError("deadline_exceeded", `no complete request line within ${options.readDeadlineMs} ms`),
				),
			);
		} else if (c.phase === "writing" || c.phase === "done") {
			c.phase = "done";
			s.terminate();
		}
	}

	/** The reply is out: close, or for a refused client, stop sending and drop what it sends a while. */
	function finish(s: Socket<Conn>): void {
		const c = s.data;
		c.phase = "done";
		c.out = undefined;
		if (!c.linger) {
			c.deadline = NONE;
			s.end();
			return;
		}
		s.shutdown(); // our side is done; the client's bytes are read and dropped until it ends
		due(s, LINGER_MS);
	}

	/** Writes what is left of a large reply, as the socket drains. */
	function flush(s: Socket<Conn>): void {
		const c = s.data;
		const out = c.out as Buffer;
		const n = s.write(out);
		if (n < 0) return; // closed meanwhile
		if (n < out.length) {
			c.out = out.subarray(n); // the rest goes out on drain
			return;
		}
		finish(s);
	}

	function reply(s: Socket<Conn>, body: object): void {
		const c = s.data;
		if (c.phase === "done" || c.phase === "writing") return;
		c.phase = "writing";
		let text: string;
		try {
			text = `${JSON.stringify(body)}\n`;
		} catch (err) {
			// A result JSON cannot carry (a BigInt, a cycle) is the server's fault: say so, never hang.
			text = `${JSON.stringify(errorReply(asToolError(err)))}\n`;
		}
		// Most replies go out whole in one write, straight from the string.
		const n = s.write(text);
		if (n < 0) return; // closed meanwhile
		if (n >= text.length && n === Buffer.byteLength(text)) {
			finish(s);
			return;
		}
		c.out = Buffer.from(text).subarray(n);
		if (!open.has(s) && !lingering.has(s)) refusedWriting.add(s);
		due(s, options.writeDeadlineMs);
	}

	function handle(s: Socket<Conn>, line: Uint8Array): void {
		const c = s.data;
		c.deadline = NONE;
		if (isBlank(line)) {
			c.phase = "done";
			s.end();
			return;
		}
		c.phase = "calling";
		let request: { tool: string; args: unknown };
		try {
			request = parseEnvelope(line);
		} catch (err) {
			reply(s, errorReply(asToolError(err)));
			return;
		}
		const { inflight } = options;
		inflight.begin();
		let work: Promise<unknown>;
		try {
			c.abort = new AbortController();
			work = call(request.tool, request.args, operatorContext("socket", c.abort.signal));
		} catch (err) {
			inflight.end();
			reply(s, errorReply(asToolError(err)));
			return;
		}
		work.then(
			(result) => {
				inflight.end();
				reply(s, { ok: true, result });
			},
			(err: unknown) => {
				inflight.end();
				reply(s, errorReply(asToolError(err)));
			},
		);
	}

	/** The request line as received: the first chunk itself when it came whole. */
	const lineOf = (c: Conn): Uint8Array =>
		c.more === undefined ? (c.first ?? new Uint8Array(0)) : Buffer.concat([c.first as Uint8Array, ...c.more]);

	function take(s: Socket<Conn>, chunk: Uint8Array): void {
		const c = s.data;
		if (c.phase !== "reading") return; // only the first line counts
		const newline = chunk.indexOf(0x0a);
		const length = newline === -1 ? chunk.length : newline;
		// A newline that ends the chunk stays in it (JSON.parse skips it): no view to make.
		const part = newline === -1 || newline === chunk.length - 1 ? chunk : chunk.subarray(0, newline);
		if (c.first === undefined) c.first = part;
		else if (c.more === undefined) c.more = [part];
		else c.more.push(part);
		c.size += length;
		if (c.size > options.maxFrameBytes) {
			c.first = undefined;
			c.more = undefined;
			reply(
				s,
				errorReply(
					new ToolError("resource_exhausted", `the request line exceeds ${options.maxFrameBytes} bytes`),
				),
			);
			return;
		}
		if (newline !== -1) handle(s, lineOf(c));
	}

	const previousUmask = process.umask(0o177); // the socket is born 0600
	let listener: UnixSocketListener<Conn>;
	try {
		listener = Bun.listen<Conn>({
			unix: options.path,
			allowHalfOpen: true,
			socket: {
				// Plain bytes: what is read needs no Buffer methods, and a Buffer costs more per chunk.
				binaryType: "uint8array",
				open(s) {
					s.data = {
						phase: "reading",
						linger: false,
						first: undefined,
						more: undefined,
						size: 0,
						abort: undefined,
						out: undefined,
						deadline: NONE,
					};
					if (open.size >= options.maxConnections) {
						// At most as many lingering as served connections: beyond that, refused ones close at once.
						if (lingering.size < options.maxConnections) {
							s.data.linger = true;
							lingering.add(s);
						}
						reply(
							s,
							errorReply(
								new ToolError("resource_exhausted", `too many connections (limit ${options.maxConnections})`),
							),
						);
						return;
					}
					open.add(s);
					due(s, options.readDeadlineMs);
				},
				data(s, chunk) {
					take(s, chunk);
				},
				end(s) {
					// EOF after some bytes ends the line; EOF with nothing closes quietly.
					const c = s.data;
					if (c.linger && c.phase === "done") s.end();
					if (c.phase !== "reading") return;
					if (c.size === 0) {
						c.phase = "done";
						c.deadline = NONE;
						s.end();
					} else handle(s, lineOf(c));
				},
				drain(s) {
					if (s.data.phase === "writing" && s.data.out) flush(s);
				},
				close(s) {
					const c = s.data;
					open.delete(s);
					lingering.delete(s);
					refusedWriting.delete(s);
					c.deadline = NONE;
					if (c.phase === "calling") c.abort?.abort(); // the client left: cancel its call
					c.phase = "done";
				},
				error() {},
			},
		});
	} finally {
		process.umask(previousUmask);
	}
	chmodSync(options.path, 0o600);
	if (!lstatSync(options.path).isSocket()) throw new Error(`bound path ${options.path} is not a socket`);
	const inode = lstatSync(options.path).ino;

	return {
		path: options.path,
		stopAccepting() {
			listener.stop(false);
		},
		close() {
			for (const s of [...open, ...lingering]) s.terminate();
			sweep.stop();
			listener.stop(true);
			try {
				if (lstatSync(options.path).ino === inode) unlinkSync(options.path);
			} catch {
				// already gone
			}
		},
	};
}
