// Resumable SSE (SEP-1699) for the SDK's HTTP transport: the events a session's streams carry are
// kept for a while, so a client whose stream broke can come back with Last-Event-ID and get what it
// missed. One buffer serves every session of a server, so memory has one bound however many
// sessions are open: the oldest events go first once it is spent. A resume from a cursor that is
// gone, or across an event too large to keep, is refused rather than silently skipping events.
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface EventBufferLimits {
	/** Events kept at most, over all sessions. */
	maxEvents: number;
	/** Characters of serialized events kept at most, over all sessions. */
	maxChars: number;
	/** A larger event is not kept; only a marker that it cannot be replayed. */
	maxEventChars: number;
}

interface Entry {
	session: number;
	stream: string;
	/** The serialized message; undefined when it was too large to keep. */
	text: string | undefined;
}

// The SDK stores a priming event as an empty object; it marks a cursor and is never replayed.
const PRIMING = "{}";

export class EventBuffer {
	/** By event id, oldest first (ids only grow, and a Map keeps insertion order). */
	private readonly entries = new Map<number, Entry>();
	private chars = 0;
	private lastId = 0;
	private lastSession = 0;

	constructor(private readonly limits: EventBufferLimits) {}

	/** What the buffer holds now. */
	get size(): { events: number; chars: number } {
		return { events: this.entries.size, chars: this.chars };
	}

	/** The event store of one new session: event ids from other sessions mean nothing to it. */
	forSession(): { store: EventStore; drop: () => void } {
		const session = ++this.lastSession;
		const store: EventStore = {
			storeEvent: async (stream, message) => this.add(session, stream, message),
			getStreamIdForEventId: async (eventId) => this.lookup(session, eventId)?.stream,
			replayEventsAfter: (eventId, { send }) => this.replay(session, eventId, send),
		};
		return { store, drop: () => this.drop(session) };
	}

	private add(session: number, stream: string, message: JSONRPCMessage): string {
		const id = ++this.lastId;
		const text = JSON.stringify(message);
		const kept = text.length <= this.limits.maxEventChars ? text : undefined;
		this.entries.set(id, { session, stream, text: kept });
		this.chars += kept?.length ?? 0;
		for (const [oldest, entry] of this.entries) {
			if (this.entries.size <= this.limits.maxEvents && this.chars <= this.limits.maxChars) break;
			this.entries.delete(oldest);
			this.chars -= entry.text?.length ?? 0;
		}
		return String(id);
	}

	private lookup(session: number, eventId: string): (Entry & { id: number }) | undefined {
		if (!/^[1-9]\d{0,15}$/.test(eventId)) return undefined;
		const id = Number(eventId);
		const entry = this.entries.get(id);
		return entry?.session === session ? { ...entry, id } : undefined;
	}

	private async replay(
		session: number,
		eventId: string,
		send: (eventId: string, message: JSONRPCMessage) => Promise<void>,
	): Promise<string> {
		const from = this.lookup(session, eventId);
		if (!from) throw new Error(`event ${eventId} is unknown or no longer kept; resend the request`);
		// Everything after the cursor is still here (eviction is oldest first); collect it before
		// sending, since sending awaits and new events may arrive meanwhile.
		const missed: [number, string][] = [];
		for (const [id, entry] of this.entries) {
			if (id <= from.id || entry.session !== session || entry.stream !== from.stream) continue;
			if (entry.text === undefined) throw new Error(`event ${id} was too large to keep for replay`);
			if (entry.text !== PRIMING) missed.push([id, entry.text]);
		}
		for (const [id, text] of missed) await send(String(id), JSON.parse(text) as JSONRPCMessage);
		return from.stream;
	}

	private drop(session: number): void {
		for (const [id, entry] of this.entries) {
			if (entry.session !== session) continue;
			this.entries.delete(id);
			this.chars -= entry.text?.length ?? 0;
		}
	}
}
