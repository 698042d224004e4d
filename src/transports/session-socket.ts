// A launched session's private MCP endpoint: a Unix socket speaking MCP JSON-RPC, one message per
// line (seed 001's framing: lines up to maxFrameBytes, −32700 for bad JSON or UTF-8 and for an
// oversized line, which is drained while the stream goes on, −32600 for a bad envelope). Each
// connection is one MCP session of the SDK's Server, every call made as that session's agent, and
// a line claiming the 2026-07-28 era is answered on its own by the same handler HTTP uses; its
// socket file is 0600 in a 0700 folder, and only the agent's own sandbox can see it.
import { chmodSync, lstatSync, unlinkSync } from "node:fs";
import type { Transport as McpTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Socket, UnixSocketListener } from "bun";
import type { AgentPrincipal, Caller } from "../context.ts";
import { Hub } from "../subscriptions/hub.ts";
import { type Modern, modernHeaders, modernOf } from "./envelope.ts";
import type { InFlight } from "./inflight.ts";
import { type Frame, isBlank, LineSplitter } from "./lines.ts";
import { type ModernEndpoint, modernEndpoint } from "./mcp-modern.ts";
import { createMcpServer } from "./mcp-server.ts";
import { preparePath } from "./socket.ts";
import { type Message, parseFrame, readEvents } from "./stdio.ts";

export interface SessionSocketOptions {
	path: string;
	principal: AgentPrincipal;
	maxFrameBytes: number;
	/** Bytes written but not yet taken by the client, at most; past that the connection is cut. */
	maxPendingBytes?: number;
	maxConnections: number;
	inflight: InFlight;
	/** Subscriptions to resources: the owner's hub; without one, a hub of this socket's own. */
	subscriptions?: Hub;
	/** The client listed its tools (count) on a connection, having introduced itself as `client`. */
	onToolsList?: (tools: number, client: string | undefined) => void;
}

export interface SessionSocket {
	path: string;
	/** Cuts every connection (their calls are cancelled) and removes the socket file. */
	close(): void;
}

/** A new-era message on a connection: answered on its own, its frames written back as they come. */
interface ModernLine {
	(m: Message, modern: Modern, write: (frame: string) => void): void;
	/** The connection ended: what it still runs (a listen's stream) is cancelled. */
	end(): void;
}

/** One connection's line reader and writer, as the SDK's transport. */
class LineTransport implements McpTransport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	private readonly lines: LineSplitter;
	private out: Buffer[] = [];
	private outBytes = 0;
	private closed = false;

	constructor(
		private readonly socket: Socket<unknown>,
		maxFrameBytes: number,
		private readonly maxPendingBytes: number,
		private readonly modernLine: ModernLine,
	) {
		this.lines = new LineSplitter(maxFrameBytes);
	}

	async start(): Promise<void> {}

	/** Bytes from the client: complete lines become messages (or error frames), the rest waits. */
	take(chunk: Uint8Array): void {
		for (const frame of this.lines.push(chunk)) {
			if (this.closed) return;
			if (!isBlank(frame)) this.frame(frame);
		}
	}

	private frame(frame: Frame): void {
		const parsed = parseFrame(frame);
		if (typeof parsed === "string") {
			this.write(parsed);
			return;
		}
		// A message claiming the 2026-07-28 era is served on its own; the rest is this connection's session.
		const modern = modernOf(parsed);
		if (modern) this.modernLine(parsed, modern, (text) => this.write(text));
		else this.onmessage?.(parsed as JSONRPCMessage);
	}

	async send(message: JSONRPCMessage): Promise<void> {
		this.write(JSON.stringify(message));
	}

	private write(text: string): void {
		if (this.closed) return;
		this.out.push(Buffer.from(`${text}\n`));
		this.outBytes += Buffer.byteLength(text) + 1;
		if (this.outBytes > this.maxPendingBytes) {
			// The client does not read what it asked for: it gets no more.
			this.socket.terminate();
			return;
		}
		this.flush();
	}

	/** Writes what the socket takes now; the rest goes on drain. */
	flush(): void {
		while (this.out.length > 0) {
			const head = this.out[0] as Buffer;
			const n = this.socket.write(head);
			if (n <= 0) return;
			this.outBytes -= n;
			if (n < head.length) {
				this.out[0] = head.subarray(n);
				return;
			}
			this.out.shift();
		}
	}

	async close(): Promise<void> {
		this.modernLine.end();
		if (this.closed) return;
		this.closed = true;
		this.socket.end();
		this.onclose?.();
	}

	/** The client went away. */
	gone(): void {
		this.modernLine.end();
		if (this.closed) return;
		this.closed = true;
		this.onclose?.();
	}
}

/**
 * How a connection answers new-era lines: each through the same stateless handler HTTP uses, as the
 * session's agent, with the headers the revision requires made from the line itself (a socket has
 * none); its answer, and what the call sends before it, go back as lines. A cancellation aborts the
 * request it names, as closing an HTTP exchange would.
 */
function modernLines(endpoint: ModernEndpoint, principal: AgentPrincipal): ModernLine {
	const running = new Map<string | number, AbortController>();
	const line = (m: Message, modern: Modern, write: (frame: string) => void) => {
		if (m.method === "notifications/cancelled") {
			const id = m.params?.requestId;
			if (id !== undefined) running.get(id)?.abort();
			return;
		}
		const abort = new AbortController();
		if (m.id !== undefined) running.set(m.id, abort);
		// No body: the handler is given the message parsed, and never reads one (serializing the line
		// again for it cost every call).
		const req = new Request("http://session.socket/mcp", {
			method: "POST",
			headers: modernHeaders(m.method as string, modern),
			signal: abort.signal,
		});
		void endpoint
			.serve(req, m, principal)
			.then(async (res) => {
				if (res.status === 202 || !res.body) return;
				// As it comes: a listen's stream stays open for as long as the client keeps it.
				if ((res.headers.get("content-type") ?? "").includes("text/event-stream"))
					await readEvents(res.body, write, {});
				else write((await res.text()).trim());
			})
			.catch(() => {
				if (m.id !== undefined && !abort.signal.aborted)
					write(
						JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32603, message: "internal error" } }),
					);
			})
			.finally(() => {
				if (m.id !== undefined) running.delete(m.id);
			});
	};
	return Object.assign(line, {
		end() {
			for (const abort of running.values()) abort.abort();
			running.clear();
		},
	});
}

export async function startSessionSocket(
	call: Caller,
	options: SessionSocketOptions,
): Promise<SessionSocket> {
	await preparePath(options.path, true);
	const open = new Set<Socket<LineTransport | undefined>>();
	const own = options.subscriptions ? undefined : new Hub(call);
	const subscriptions = options.subscriptions ?? (own as Hub);
	const modern = modernEndpoint(call, {
		inflight: options.inflight,
		maxBodyBytes: options.maxFrameBytes,
		subscriptions,
		transport: "socket",
		...(options.onToolsList && { onToolsList: options.onToolsList }),
	});
	const previousUmask = process.umask(0o177); // the socket is born 0600
	let listener: UnixSocketListener<LineTransport | undefined>;
	try {
		listener = Bun.listen<LineTransport | undefined>({
			unix: options.path,
			socket: {
				open(s) {
					if (open.size >= options.maxConnections) {
						s.end(
							`${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: `too many connections (limit ${options.maxConnections})` } })}\n`,
						);
						return;
					}
					open.add(s);
					const transport = new LineTransport(
						s as Socket<unknown>,
						options.maxFrameBytes,
						options.maxPendingBytes ?? 64 * 1024 * 1024,
						modernLines(modern, options.principal),
					);
					s.data = transport;
					const server = createMcpServer(call, {
						transport: "socket",
						principal: options.principal,
						inflight: options.inflight,
						subscriptions,
						onToolsList: (tools) =>
							options.onToolsList?.(
								tools,
								((v) => (v ? `${v.name} ${v.version}` : undefined))(server.getClientVersion()),
							),
					});
					void server.connect(transport);
				},
				data(s, chunk) {
					s.data?.take(chunk);
				},
				drain(s) {
					s.data?.flush();
				},
				close(s) {
					open.delete(s);
					s.data?.gone();
				},
				error() {},
			},
		});
	} finally {
		process.umask(previousUmask);
	}
	chmodSync(options.path, 0o600);
	const inode = lstatSync(options.path).ino;
	return {
		path: options.path,
		close() {
			modern.close();
			own?.close();
			for (const s of open) s.terminate();
			listener.stop(true);
			try {
				if (lstatSync(options.path).ino === inode) unlinkSync(options.path);
			} catch {
				// already gone
			}
		},
	};
}
