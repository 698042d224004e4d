// The dashboard's tests as a browser meets it: a real HTTP server on 127.0.0.1 port 0 over a real
// project, a `Browser` that keeps the session cookie and sends Origin on POSTs as a browser does (or
// leaves it out, or lies, when a test says so), and an SSE reader that parses the event stream.
import { afterAll, expect } from "bun:test";
import type { HttpOptions, HttpServer } from "../../src/transports/http.ts";
import type { Project } from "./helpers.ts";
import { loopbackHttp } from "./loopback-http.ts";

export interface Served {
	server: HttpServer;
	/** scheme://host:port: the dashboard's own origin. */
	base: string;
	/** The one-time login token the server made. */
	loginToken: string;
}

const servers: HttpServer[] = [];
afterAll(async () => {
	for (const s of servers.splice(0)) await s.close().catch(() => {});
});

/** The owner's HTTP listener over `p` (closed when the file's tests end). */
export function serveDashboard(p: Project, options: Partial<HttpOptions> = {}): Served {
	const server = loopbackHttp(p.rt, { maxBodyBytes: 1024 * 1024, loopbackAuth: "token", ...options });
	servers.push(server);
	const url = new URL(server.dashboardUrl);
	return { server, base: url.origin, loginToken: url.searchParams.get("token") as string };
}

export interface PostOptions {
	/** The X-CSRF-Token header; undefined: this browser's own; null: none. */
	csrf?: string | null;
	/** The Origin header; undefined: the dashboard's own; null: none. */
	origin?: string | null;
	headers?: Record<string, string>;
}

/** A browser tab: one cookie jar (the session cookie), fetches with redirects left to the test. */
export class Browser {
	cookie: string | undefined;
	private csrfToken: string | undefined;

	constructor(readonly base: string) {}

	/** Sends a request to `path` (or an absolute URL) with this browser's cookie, keeping any it sets. */
	async fetch(path: string, init: RequestInit = {}): Promise<Response> {
		const headers = new Headers(init.headers);
		if (this.cookie !== undefined && !headers.has("cookie"))
			headers.set("cookie", `rt_session=${this.cookie}`);
		const res = await fetch(path.startsWith("http") ? path : `${this.base}${path}`, {
			...init,
			headers,
			redirect: "manual",
		});
		const set = res.headers.get("set-cookie");
		if (set) {
			const value = /^rt_session=([^;]*)/.exec(set)?.[1];
			this.cookie = value === undefined || value === "" || /Max-Age=0/i.test(set) ? undefined : value;
			this.csrfToken = undefined;
		}
		return res;
	}

	get(path: string, headers: Record<string, string> = {}) {
		return this.fetch(path, { headers });
	}

	/** A JSON POST as the page would make it. */
	async post(path: string, body: unknown = {}, o: PostOptions = {}): Promise<Response> {
		const headers: Record<string, string> = { "content-type": "application/json", ...o.headers };
		const origin = o.origin === undefined ? this.base : o.origin;
		if (origin !== null) headers.origin = origin;
		const csrf = o.csrf === undefined ? await this.csrf() : o.csrf;
		if (csrf !== null && csrf !== undefined) headers["x-csrf-token"] = csrf;
		return this.fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
	}

	/** Opens the login link with `token`; expects the redirect that signs in. */
	async login(token: string): Promise<Response> {
		const res = await this.get(`/?token=${encodeURIComponent(token)}`);
		expect(res.status).toBe(303);
		expect(this.cookie).toBeDefined();
		return res;
	}

	/** This session's CSRF token, from /api/state (undefined when signed out). */
	async csrf(): Promise<string | undefined> {
		if (this.cookie === undefined) return undefined;
		this.csrfToken ??= ((await (await this.get("/api/state")).json()) as { csrf_token: string }).csrf_token;
		return this.csrfToken;
	}

	async state(): Promise<State> {
		const res = await this.get("/api/state");
		expect(res.status).toBe(200);
		return (await res.json()) as State;
	}
}

// biome-ignore lint/suspicious/noExplicitAny: test views are read loosely
export type State = Record<string, any>;

export interface SseEvent {
	id: number;
	event: string;
	data: { id: number; type: string; actor_id: string; payload: Record<string, unknown> };
}

interface Reader {
	read(): Promise<{ done: boolean; value?: Uint8Array }>;
	cancel(): Promise<void>;
}

/** Reads an open event stream frame by frame. */
export class EventReader {
	private buffer = "";
	private pending: ReturnType<Reader["read"]> | undefined;
	private readonly decoder = new TextDecoder();
	/** Comment lines seen (`: keepalive`, `: stream open`) and `retry:` values. */
	readonly comments: string[] = [];

	private constructor(
		readonly response: Response,
		private readonly reader: Reader,
	) {}

	static async open(browser: Browser, path = "/api/events", headers: Record<string, string> = {}) {
		const res = await browser.get(path, { accept: "text/event-stream", ...headers });
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toStartWith("text/event-stream");
		return new EventReader(res, (res.body as ReadableStream<Uint8Array>).getReader());
	}

	/** The next event, failing after `ms`; undefined when the stream ended. */
	async next(ms = 15_000): Promise<SseEvent | undefined> {
		const deadline = Date.now() + ms;
		for (;;) {
			const cut = this.buffer.indexOf("\n\n");
			if (cut !== -1) {
				const block = this.buffer.slice(0, cut);
				this.buffer = this.buffer.slice(cut + 2);
				const event = this.parse(block);
				if (event) return event;
				continue;
			}
			const left = deadline - Date.now();
			if (left <= 0) throw new Error(`no event within ${ms} ms; buffered: ${JSON.stringify(this.buffer)}`);
			// A read the timeout beat stays pending and is awaited next time: no chunk is lost.
			this.pending ??= this.reader.read();
			const next = await Promise.race([this.pending, Bun.sleep(left).then(() => "timeout" as const)]);
			if (next === "timeout") continue;
			this.pending = undefined;
			if (next.done) return undefined;
			this.buffer += this.decoder.decode(next.value, { stream: true });
		}
	}

	/** Events until one satisfies `done` (that one included). */
	async until(done: (e: SseEvent) => boolean, ms = 15_000): Promise<SseEvent[]> {
		const seen: SseEvent[] = [];
		const deadline = Date.now() + ms;
		for (;;) {
			const e = await this.next(Math.max(1, deadline - Date.now()));
			if (!e) throw new Error(`the stream ended after ${seen.length} events`);
			seen.push(e);
			if (done(e)) return seen;
		}
	}

	/** Resolves when the server ends the stream (skipping anything still sent), failing after `ms`. */
	async ended(ms = 15_000): Promise<void> {
		const deadline = Date.now() + ms;
		while ((await this.next(Math.max(1, deadline - Date.now()))) !== undefined) {}
	}

	close() {
		void this.reader.cancel().catch(() => {});
	}

	private parse(block: string): SseEvent | undefined {
		let id: number | undefined;
		let event = "message";
		let data: string | undefined;
		for (const line of block.split("\n")) {
			if (line.startsWith(":") || line.startsWith("retry:")) this.comments.push(line);
			else if (line.startsWith("id: ")) id = Number(line.slice(4));
			else if (line.startsWith("event: ")) event = line.slice(7);
			else if (line.startsWith("data: ")) data = line.slice(6);
		}
		if (data === undefined) return undefined;
		expect(id).toBeDefined();
		return { id: id as number, event, data: JSON.parse(data) as SseEvent["data"] };
	}
}
