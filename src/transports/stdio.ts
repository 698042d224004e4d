// The stdio bridge: MCP over newline-delimited JSON-RPC on stdin/stdout, forwarded message by
// message to the owner's Streamable HTTP endpoint, in either era: a 2025-11-25 client's messages in
// the session its initialize opened, a 2026-07-28 client's each on a POST of its own with the
// headers that revision requires. It parses no tool and loads neither the store
// nor the schemas, so it starts fast; progress notifications come back on each request's event
// stream and cancellations go forward like any other message. stdout carries frames only.
// Backpressure both ways: a bounded number of messages and bytes wait for the owner (beyond that,
// stdin is not read until answers drain), and nothing more is read or relayed while the client
// leaves stdout unread.
import { type Modern, modernHeaders, modernOf } from "./envelope.ts";
import { type Frame, isBlank, readLines } from "./lines.ts";

export interface BridgeOptions {
	url: string;
	token: string | undefined;
	maxLineBytes: number;
	input: ReadableStream<Uint8Array>;
	/** Writes one frame (without its newline) to the client; a promise while stdout is full. */
	send: (frame: string) => unknown;
	log: (message: string) => void;
	/** Aborted when the bridge is told to stop (a signal): ends the session like stdin's end. */
	stop?: AbortSignal;
	/** Messages, and their bytes, that may wait for the owner at once (default 64 and 64 MiB). */
	maxWaiting?: { count: number; bytes: number };
}

/**
 * What waits for the owner: a message holds its place from the moment it is read until the owner
 * answered it and the answer was written. Requests and notifications have places of their own
 * (`count` each): a cancellation must get through while every request place is taken, as it may be
 * what frees one. Only the stdin loop waits for room: a request and a notification at most.
 */
class Waiting {
	private readonly count = { request: 0, notification: 0 };
	private bytes = 0;
	private waiters: (() => void)[] = [];

	constructor(private readonly max: { count: number; bytes: number }) {}

	/** Takes a place now if there is one (a lone message always fits: lines are capped below the budget). */
	tryEnter(bytes: number, kind: Kind): boolean {
		const busy = this.count.request + this.count.notification > 0;
		if (this.count[kind] >= this.max.count || (busy && this.bytes + bytes > this.max.bytes)) return false;
		this.count[kind]++;
		this.bytes += bytes;
		return true;
	}

	async enter(bytes: number, kind: Kind): Promise<void> {
		while (!this.tryEnter(bytes, kind)) await new Promise<void>((resolve) => this.waiters.push(resolve));
	}

	leave(bytes: number, kind: Kind): void {
		this.count[kind]--;
		this.bytes -= bytes;
		for (const wake of this.waiters.splice(0)) wake();
	}
}

/** What is kept of a message while it waits: how it is forwarded. */
type Envelope = Pick<Message, "id" | "method"> & { modern?: Modern };

/** A response the client sends (to a server request) counts as a notification: nothing answers it. */
type Kind = "request" | "notification";

type Id = string | number;
export type Message = {
	jsonrpc: "2.0";
	id?: Id;
	method?: string;
	params?: { requestId?: Id; name?: unknown; uri?: unknown; _meta?: Record<string, unknown> };
	result?: unknown;
	error?: unknown;
};

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

const errorFrame = (id: Id | null, code: number, message: string) =>
	JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

/** The frame as a JSON-RPC message, or the error frame to answer it with. */
export function parseFrame(frame: Frame): Message | string {
	if ("oversized" in frame)
		return errorFrame(null, -32700, "Parse error: the line exceeds the frame size limit");
	let text: string;
	try {
		text = STRICT_UTF8.decode(frame.line);
	} catch {
		return errorFrame(null, -32700, "Parse error: the line is not valid UTF-8");
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return errorFrame(null, -32700, "Parse error: the line is not valid JSON");
	}
	const m = value as Message;
	const id = typeof m?.id === "string" || typeof m?.id === "number" ? m.id : null;
	const isRequestOrNotification = typeof m?.method === "string";
	const isResponse = id !== null && ("result" in (m ?? {}) || "error" in (m ?? {}));
	if (typeof value !== "object" || value === null || Array.isArray(value) || m.jsonrpc !== "2.0") {
		return errorFrame(id, -32600, "Invalid Request: expected one JSON-RPC 2.0 message object");
	}
	if (!isRequestOrNotification && !isResponse) return errorFrame(id, -32600, "Invalid Request: no method");
	if ("id" in m && m.id !== undefined && id === null)
		return errorFrame(null, -32600, "Invalid Request: id must be a string or number");
	return m;
}

/** The bytes in a buffer of their own, so that keeping them keeps nothing else alive. */
const owned = (bytes: Uint8Array): Uint8Array =>
	bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);

/** Where a stream can be resumed from: its last event id, and how long the owner asks us to wait. */
interface Cursor {
	lastEventId?: string;
	retryMs?: number;
}

// A request's stream that ends before its answer (the owner closed it for polling, or the connection
// broke) is resumed with Last-Event-ID this many times, waiting as the owner's `retry` says (capped).
const RESUMES = 3;
const MAX_RETRY_MS = 5000;

/** Reads server-sent events and hands each data payload over, noting the cursor. */
export async function readEvents(
	body: ReadableStream<Uint8Array>,
	onData: (data: string) => unknown,
	cursor: Cursor,
): Promise<void> {
	const decoder = new TextDecoder();
	let buffer = "";
	let data: string[] = [];
	for await (const chunk of body) {
		buffer += decoder.decode(chunk, { stream: true });
		let newline = buffer.indexOf("\n");
		while (newline !== -1) {
			const line = buffer.slice(0, newline).replace(/\r$/, "");
			buffer = buffer.slice(newline + 1);
			if (line === "") {
				// An event without data (the priming event that only carries an id and `retry`) is
				// not a message.
				// Awaited: while the client leaves stdout unread, the owner's stream is not read either.
				if (data.length > 0 && data.join("") !== "") await onData(data.join("\n"));
				data = [];
			} else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
			else if (line.startsWith("id:")) cursor.lastEventId = line.slice(3).trim();
			else if (/^retry: ?\d{1,9}$/.test(line)) cursor.retryMs = Number(line.slice(6));
			newline = buffer.indexOf("\n");
		}
	}
}

export async function runBridge(o: BridgeOptions): Promise<number> {
	let sessionId: string | undefined;
	let protocolVersion: string | undefined;
	let initialized: Promise<void> | undefined;
	const pending = new Map<Id, AbortController>();
	const waiting = new Waiting(o.maxWaiting ?? { count: 64, bytes: 64 * 1024 * 1024 });
	const send = async (frame: string) => {
		try {
			await o.send(frame);
		} catch {
			// stdout is gone: so is the client, and stdin's end will follow.
		}
	};

	const headers = (): Record<string, string> => ({
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		...(sessionId && { "mcp-session-id": sessionId }),
		...(protocolVersion && { "mcp-protocol-version": protocolVersion }),
		...(o.token && { authorization: `Bearer ${o.token}` }),
	});

	/** Relays a server message to the client, noting what initialize negotiated. */
	const relay = async (text: string): Promise<Message | undefined> => {
		let m: Message & { result?: { protocolVersion?: string } };
		try {
			m = JSON.parse(text) as typeof m;
		} catch {
			o.log(`dropped a frame from the owner that is not JSON: ${text.slice(0, 80)}`);
			return undefined;
		}
		if (typeof m.result?.protocolVersion === "string" && !protocolVersion)
			protocolVersion = m.result.protocolVersion;
		await send(JSON.stringify(m));
		return m;
	};

	/** Relays a request's event stream until its answer, resuming the stream if it ends first. */
	async function relayStream(body: ReadableStream<Uint8Array>, id: Id | undefined, signal: AbortSignal) {
		const cursor: Cursor = {};
		let answered = false;
		const onData = async (text: string) => {
			const m = await relay(text);
			if (m && m.method === undefined && m.id === id) answered = true;
		};
		await readEvents(body, onData, cursor);
		for (let i = 0; id !== undefined && !answered && cursor.lastEventId !== undefined && i < RESUMES; i++) {
			await Bun.sleep(Math.min(cursor.retryMs ?? 1000, MAX_RETRY_MS));
			const res = await fetch(o.url, {
				method: "GET",
				headers: { ...headers(), accept: "text/event-stream", "last-event-id": cursor.lastEventId },
				signal,
			});
			if (!res.ok || !res.body) {
				await res.body?.cancel();
				break;
			}
			await readEvents(res.body, onData, cursor);
		}
		if (id !== undefined && !answered && !signal.aborted)
			await send(errorFrame(id, -32603, "the owner's event stream ended before the answer"));
	}

	/** A new-era message's own headers: no session, its revision, its method and what it names. */
	const ownHeaders = (m: Envelope, modern: Modern): Record<string, string> => ({
		...modernHeaders(m.method as string, modern),
		...(o.token && { authorization: `Bearer ${o.token}` }),
	});

	/** Posts one message (its bytes as read) and relays what comes back. */
	async function forward(m: Envelope, raw: Uint8Array): Promise<void> {
		const id = m.method !== undefined && m.id !== undefined ? m.id : undefined;
		const abort = new AbortController();
		if (id !== undefined) pending.set(id, abort);
		try {
			const res = await fetch(o.url, {
				method: "POST",
				headers: m.modern ? ownHeaders(m, m.modern) : headers(),
				body: raw,
				signal: abort.signal,
			});
			if (!m.modern) sessionId ??= res.headers.get("mcp-session-id") ?? undefined;
			const type = res.headers.get("content-type") ?? "";
			if (res.status === 202) return;
			if (type.includes("text/event-stream") && res.body) await relayStream(res.body, id, abort.signal);
			else if (type.includes("application/json")) {
				const body = (await res.json()) as Message;
				if (body.error !== undefined && id !== undefined) await send(JSON.stringify({ ...body, id }));
				else await relay(JSON.stringify(body));
			} else if (id !== undefined) {
				await res.body?.cancel();
				await send(errorFrame(id, -32603, `the owner answered HTTP ${res.status}`));
			}
		} catch (err) {
			if (abort.signal.aborted) return; // cancelled by the client: no answer is due
			o.log(`the Roundtable owner at ${o.url} is unreachable: ${(err as Error).message}`);
			if (id !== undefined)
				await send(errorFrame(id, -32603, `the Roundtable owner at ${o.url} is unreachable`));
		} finally {
			if (id !== undefined) pending.delete(id);
		}
	}

	// The session's own event stream (GET): what the owner sends unasked, a subscribed resource's
	// updates, reaches the client too. Opened once the session is initialized; resumed from its last
	// event when it ends; given up when the owner offers none (405) or the bridge stops.
	const listening = new AbortController();
	let listenStarted = false;
	async function listen(): Promise<void> {
		const cursor: Cursor = {};
		while (!listening.signal.aborted && sessionId) {
			const res = await fetch(o.url, {
				method: "GET",
				headers: {
					...headers(),
					accept: "text/event-stream",
					...(cursor.lastEventId && { "last-event-id": cursor.lastEventId }),
				},
				signal: listening.signal,
			}).catch(() => undefined);
			if (!res?.ok || !res.body) {
				await res?.body?.cancel();
				if (res && res.status >= 400 && res.status < 500) return;
			} else await readEvents(res.body, relay, cursor).catch(() => {});
			if (listening.signal.aborted) return;
			await Bun.sleep(Math.min(cursor.retryMs ?? 1000, MAX_RETRY_MS));
		}
	}

	const work = new Set<Promise<void>>();
	/** Forwards a message that has its place, and gives the place back when it is done. */
	const begin = (envelope: Envelope, raw: Uint8Array, kind: Kind, cancels?: Id) => {
		let job: Promise<void>;
		if (envelope.modern && cancels !== undefined) {
			// In the new era a request is cancelled by closing its exchange: nothing goes to the owner.
			pending.get(cancels)?.abort();
			job = Promise.resolve();
		} else if (envelope.modern)
			job = forward(envelope, raw); // stateless: no session to wait for
		else if (envelope.method === "initialize") {
			job = forward(envelope, raw);
			initialized = job;
		} else if (envelope.method === "notifications/initialized") {
			job = (initialized ?? Promise.resolve()).then(() => forward(envelope, raw));
			void job.then(() => {
				if (listenStarted || !sessionId) return;
				listenStarted = true;
				void listen();
			});
		} else {
			// Everything after initialize needs the session id it returns.
			const before = initialized;
			job = (before ?? Promise.resolve()).then(() => forward(envelope, raw));
			if (cancels !== undefined) void job.then(() => pending.get(cancels)?.abort());
		}
		work.add(job);
		void job.finally(() => {
			work.delete(job);
			waiting.leave(raw.byteLength, kind);
		});
	};
	// A request waiting for a place does not stop the reading at once: what follows it is still read
	// up to the next request, so a cancellation (which may free a place) and stdin's end are seen.
	let parked: { id: Id | undefined; cancelled: boolean; admitted: Promise<void> } | undefined;
	const reading = (async () => {
		for await (const frame of readLines(o.input, o.maxLineBytes)) {
			if (isBlank(frame)) continue;
			const m = parseFrame(frame);
			if (typeof m === "string") {
				// Awaited: error answers wait in the pipe, not here, when the client does not read them.
				await send(m);
				continue;
			}
			// Only the bytes and the envelope are kept while the message waits, not the parsed message
			// (a second copy of its content); the bytes are copied only when they share a stdin chunk.
			const raw = "line" in frame ? owned(frame.line) : new Uint8Array();
			const cancels = m.method === "notifications/cancelled" ? m.params?.requestId : undefined;
			const modern = modernOf(m);
			const envelope: Envelope = { id: m.id, method: m.method, ...(modern && { modern }) };
			const kind: Kind = m.method !== undefined && m.id !== undefined ? "request" : "notification";
			if (kind === "notification") {
				if (cancels !== undefined && parked?.id === cancels) parked.cancelled = true;
				await waiting.enter(raw.byteLength, kind);
				begin(envelope, raw, kind, cancels);
				continue;
			}
			if (parked) await parked.admitted;
			// Started at once when there is room, so that messages go to the owner in the order read.
			if (waiting.tryEnter(raw.byteLength, kind)) {
				begin(envelope, raw, kind);
				continue;
			}
			const request = { id: m.id, cancelled: false, admitted: Promise.resolve() };
			request.admitted = waiting.enter(raw.byteLength, kind).then(() => {
				if (parked === request) parked = undefined;
				// Cancelled before it went to the owner: no answer is due, and nothing to forward.
				if (request.cancelled) waiting.leave(raw.byteLength, kind);
				else begin(envelope, raw, kind);
			});
			parked = request;
		}
	})();
	const stopped = new Promise<void>((resolve) => {
		if (o.stop?.aborted) resolve();
		o.stop?.addEventListener("abort", () => resolve(), { once: true });
	});
	await Promise.race([reading, stopped]);
	// stdin ended or a signal came: the client is gone. End the session (which cancels its running
	// calls, a test run's process group with them) and leave without waiting for answers.
	for (const abort of pending.values()) abort.abort();
	listening.abort();
	if (sessionId) {
		await fetch(o.url, { method: "DELETE", headers: headers(), signal: AbortSignal.timeout(1000) }).catch(
			() => {},
		);
	}
	return 0;
}
