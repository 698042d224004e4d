// `/api/events`: the table's events as Server-Sent Events, following table.watch's cursor with its
// long-poll (`wait_ms`), so a change made anywhere (an agent, the CLI, the Chair, another process)
// arrives without a reload. Each event is `id: <event id>` / `event: table` / `data: <JSON>`; a
// reconnect with Last-Event-ID (or `?after=N`) resumes right after that id, with no gap and no
// repeat; a quiet stream gets a `: keepalive` comment every 15 s. The stream ends when its client
// goes, its session ends, or the owner stops; its client then reconnects.
import type { Result } from "../../registry/index.ts";

/** How long one table.watch waits for an event: also the keep-alive period of a quiet stream. */
export const KEEPALIVE_MS = 15_000;
/** How soon a browser reconnects a stream that ended (the SSE `retry` field). */
const RETRY_MS = 1000;
const PAGE = 200;

const encoder = new TextEncoder();

/** One event as an SSE frame. JSON holds no raw newline, so `data:` is one line. */
export const frame = (e: { id: number }) => `id: ${e.id}\nevent: table\ndata: ${JSON.stringify(e)}\n\n`;

/**
 * Where a stream starts: after the Last-Event-ID header (a reconnect), else after `?after=N`, else
 * undefined (after the newest). A value that is not a non-negative integer is an error message.
 */
export function startCursor(req: Request, params: URLSearchParams): number | undefined | { error: string } {
	const given = req.headers.get("last-event-id") ?? params.get("after");
	if (given === null || given === "") return undefined;
	if (!/^\d{1,15}$/.test(given))
		return { error: `the event cursor '${given.slice(0, 40)}' is not an event id` };
	return Number(given);
}

export interface StreamOptions {
	call: (tool: "table.watch", args: Record<string, unknown>, signal: AbortSignal) => Promise<object>;
	/** The id after which the stream starts. */
	after: number;
	/** Whether the stream may go on (its session is still open). */
	live: () => boolean;
	/** Called once when the stream ends, however it ends. */
	ended: () => void;
	/** Aborting it ends the stream (the owner stopping). */
	signal: AbortSignal;
}

/** The event stream's body. */
export function eventStream(o: StreamOptions): ReadableStream<Uint8Array> {
	const abort = new AbortController();
	const stop = () => abort.abort();
	o.signal.addEventListener("abort", stop, { once: true });
	let cursor = o.after;
	let done = false;
	const finish = () => {
		if (done) return;
		done = true;
		o.signal.removeEventListener("abort", stop);
		abort.abort();
		o.ended();
	};
	const watch = (args: Record<string, unknown>) =>
		o.call("table.watch", args, abort.signal) as Promise<Result<"table.watch">>;
	return new ReadableStream<Uint8Array>({
		start(controller) {
			controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n`));
		},
		async pull(controller) {
			try {
				if (abort.signal.aborted || !o.live()) throw new Error("stream ended");
				const out = await watch({ after_event_id: cursor, limit: PAGE, wait_ms: KEEPALIVE_MS });
				if (abort.signal.aborted || !o.live()) throw new Error("stream ended");
				cursor = out.next_after_event_id;
				controller.enqueue(
					encoder.encode(out.events.length > 0 ? out.events.map(frame).join("") : ": keepalive\n\n"),
				);
			} catch {
				// Cancelled, the session ended, or the store is closing: the browser reconnects.
				finish();
				controller.close();
			}
		},
		cancel() {
			finish();
		},
	});
}
