// The legacy Unix socket, the seed's protocol: one `{"tool","args"}` line per connection, answered
// by one `{"ok":true,"result"}` or `{"ok":false,"error","code","details"}` line, then close. Plus
// what the old one lacked: a frame cap, read and write deadlines, a connection cap, whole writes of
// large replies, cancellation when the client goes away, 0600 permissions, and a stale-socket check.
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import type { Socket, UnixSocketListener } from "bun";
import { type Caller, operatorContext } from "../context.ts";
import { clip } from "../domain/did-you-mean.ts";
import { asToolError, ToolError } from "../errors.ts";
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
	chunks: Buffer[];
	size: number;
	abort: AbortController;
	timer: Timer | undefined;
	out: Buffer;
	written: number;
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

const encode = (reply: object) => Buffer.from(`${JSON.stringify(reply)}\n`);

function errorReply(err: ToolError): object {
	return {
		ok: false,
		error: err.message,
		code: err.code,
		...(err.details !== undefined && { details: err.details }),
	};
}

/** Parses the seed's envelope. Names are exact; other fields are ignored. */
function parseEnvelope(line: Buffer): { tool: string; args: unknown } {
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

/** ASCII whitespace only, as the seed trims. */
function trimAscii(buf: Buffer): Buffer {
	let start = 0;
	let end = buf.length;
	const ws = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
	while (start < end && ws(buf[start])) start++;
	while (end > start && ws(buf[end - 1])) end--;
	return buf.subarray(start, end);
}

export async function startSocket(call: Caller, options: SocketOptions): Promise<SocketServer> {
	await preparePath(options.path, options.privateDir);
	const open = new Set<Socket<Conn>>();
	const lingering = new Set<Socket<Conn>>(); // refused over the cap, not counted in it

	const setTimer = (s: Socket<Conn>, ms: number, onExpiry: () => void) => {
		clearTimeout(s.data.timer);
		s.data.timer = setTimeout(onExpiry, ms);
	};

	function flush(s: Socket<Conn>): void {
		const c = s.data;
		while (c.written < c.out.length) {
			const n = s.write(c.out.subarray(c.written));
			if (n <= 0) return; // the rest goes out on drain
			c.written += n;
		}
		c.phase = "done";
		clearTimeout(c.timer);
		if (!c.linger) {
			s.end();
			return;
		}
		s.shutdown(); // our side is done; the client's bytes are read and dropped until it ends
		c.timer = setTimeout(() => s.terminate(), LINGER_MS);
	}

	function reply(s: Socket<Conn>, body: object): void {
		const c = s.data;
		if (c.phase === "done" || c.phase === "writing") return;
		c.phase = "writing";
		c.out = encode(body);
		c.written = 0;
		setTimer(s, options.writeDeadlineMs, () => {
			c.phase = "done";
			s.terminate();
		});
		flush(s);
	}

	async function handle(s: Socket<Conn>, line: Buffer): Promise<void> {
		const c = s.data;
		clearTimeout(c.timer);
		const request = trimAscii(line);
		if (request.length === 0) {
			c.phase = "done";
			s.end();
			return;
		}
		c.phase = "calling";
		try {
			const { tool, args } = parseEnvelope(request);
			const ctx = operatorContext("socket", c.abort.signal);
			const result = await options.inflight.track(call(tool, args, ctx));
			reply(s, { ok: true, result });
		} catch (err) {
			reply(s, errorReply(asToolError(err)));
		}
	}

	function take(s: Socket<Conn>, chunk: Buffer): void {
		const c = s.data;
		if (c.phase !== "reading") return; // only the first line counts
		const newline = chunk.indexOf(0x0a);
		const part = newline === -1 ? chunk : chunk.subarray(0, newline);
		c.chunks.push(part);
		c.size += part.length;
		if (c.size > options.maxFrameBytes) {
			c.chunks = [];
			reply(
				s,
				errorReply(
					new ToolError("resource_exhausted", `the request line exceeds ${options.maxFrameBytes} bytes`),
				),
			);
			return;
		}
		if (newline !== -1) void handle(s, Buffer.concat(c.chunks));
	}

	const previousUmask = process.umask(0o177); // the socket is born 0600
	let listener: UnixSocketListener<Conn>;
	try {
		listener = Bun.listen<Conn>({
			unix: options.path,
			allowHalfOpen: true,
			socket: {
				open(s) {
					s.data = {
						phase: "reading",
						chunks: [],
						size: 0,
						abort: new AbortController(),
						timer: undefined,
						out: Buffer.alloc(0),
						written: 0,
						linger: false,
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
					setTimer(s, options.readDeadlineMs, () => {
						if (s.data.phase !== "reading") return;
						reply(
							s,
							errorReply(
								new ToolError(
									"deadline_exceeded",
									`no complete request line within ${options.readDeadlineMs} ms`,
								),
							),
						);
					});
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
						clearTimeout(c.timer);
						s.end();
					} else void handle(s, Buffer.concat(c.chunks));
				},
				drain(s) {
					if (s.data.phase === "writing") flush(s);
				},
				close(s) {
					const c = s.data;
					open.delete(s);
					lingering.delete(s);
					clearTimeout(c.timer);
					if (c.phase === "calling") c.abort.abort(); // the client left: cancel its call
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
			listener.stop(true);
			try {
				if (lstatSync(options.path).ino === inode) unlinkSync(options.path);
			} catch {
				// already gone
			}
		},
	};
}
