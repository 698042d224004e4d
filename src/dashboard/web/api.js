// How the dashboard talks to the owner: JSON reads, the two decisions (POST with the session's
// CSRF token; the browser adds the cookie and the Origin header), test logs as text, and the live
// event stream (EventSource, which reconnects by itself and resumes with Last-Event-ID).

let csrfToken = "";

/** The CSRF token /api/state hands out, bound to this session; every POST carries it. */
export function setCsrf(token) {
	csrfToken = token ?? "";
}

/** An error the owner returned ({error:{code,message,details}}), or a network failure. */
export class ApiError extends Error {
	constructor(status, code, message, details) {
		super(message);
		this.status = status;
		this.code = code;
		this.details = details;
	}
}

async function failure(res) {
	let body = null;
	try {
		body = await res.json();
	} catch {
		// not JSON: the status line says enough
	}
	const e = body?.error ?? {};
	return new ApiError(res.status, e.code ?? `http_${res.status}`, e.message ?? res.statusText, e.details);
}

async function send(path, init) {
	let res;
	try {
		res = await fetch(path, { credentials: "same-origin", ...init });
	} catch (err) {
		throw new ApiError(0, "network", `the owner did not answer (${err.message})`);
	}
	if (!res.ok) throw await failure(res);
	return res;
}

export async function getJson(path) {
	return (await send(path, { headers: { accept: "application/json" } })).json();
}

/** A page of a test run's log from byte `offset`, and where the next page starts (null: the end). */
export async function getLog(id, offset) {
	const path = `/api/test-runs/${encodeURIComponent(id)}/log?offset=${offset}`;
	const res = await send(path, { headers: { accept: "text/plain" } });
	const next = res.headers.get("x-log-next-offset");
	return { text: await res.text(), next: next ? Number(next) : null };
}

/** The last page of a session's transcript: its text, where it starts, the whole size, and whether the session stands. */
export async function getTranscript(id) {
	const res = await send(`/api/sessions/${encodeURIComponent(id)}/transcript`, {
		headers: { accept: "text/plain" },
	});
	return {
		text: await res.text(),
		offset: Number(res.headers.get("x-log-offset") ?? 0),
		bytes: Number(res.headers.get("x-log-bytes") ?? 0),
		live: res.headers.get("x-session-live") === "true",
	};
}

export async function postJson(path, body) {
	const headers = { "content-type": "application/json", "x-csrf-token": csrfToken };
	const res = await send(path, { method: "POST", headers, body: JSON.stringify(body) });
	return res.status === 204 ? null : res.json();
}

/**
 * Follows /api/events from `after` (the snapshot's last event id, so nothing falls between the two;
 * null: from now).
 * `onEvent(event)` for each table event; `onStatus("connecting" | "live" | "reconnecting" |
 * "offline")`. EventSource retries a dropped connection itself; when it gives up (the owner
 * stopped, or refused the stream), this opens a new one after a pause, from the last id seen.
 */
export function follow(after, { onEvent, onStatus }) {
	let lastId = after === null ? null : Number(after) || 0;
	let source = null;
	let retry = 0;
	const open = () => {
		onStatus("connecting");
		source = new EventSource(lastId === null ? "/api/events" : `/api/events?after=${lastId}`);
		source.addEventListener("open", () => {
			retry = 0;
			onStatus("live");
		});
		source.addEventListener("table", (message) => {
			lastId = Number(message.lastEventId) || lastId;
			let event = null;
			try {
				event = JSON.parse(message.data);
			} catch {
				return;
			}
			onEvent(event);
		});
		source.addEventListener("error", () => {
			if (source.readyState === EventSource.CONNECTING) return onStatus("reconnecting");
			source.close();
			onStatus("offline");
			retry = Math.min(retry + 1, 6);
			setTimeout(open, 500 * 2 ** retry);
		});
	};
	open();
	return { lastId: () => lastId };
}
