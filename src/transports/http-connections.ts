// Counts open HTTP connections for the cap (limits.max_http_connections). Bun.serve has no
// connection events, so a connection is known by its client address and port, seen on each request:
// open while a request on it is in flight, then idle until Bun's idle timeout closes it. Bun says
// nothing when a client closes an idle connection itself, so an idle one counts until the latest
// moment Bun would have closed it: the count errs on the side of too many, never too few.

type Key = string | symbol;

interface Connection {
	/** Requests in flight on it (more than one only if a client pipelines). */
	active: number;
	/** When its last request ended (for an idle connection). */
	idleSince: number;
}

export class Connections {
	private readonly open = new Map<Key, Connection>();

	/** `idleMs`: how long after its last request an idle connection may still be open. */
	constructor(
		private readonly max: number,
		private readonly idleMs: number,
	) {}

	get size(): number {
		return this.open.size;
	}

	/**
	 * Notes a request on connection `key` (undefined when Bun no longer knows the client: counted on
	 * its own). Returns the key to release, or undefined when the request would open one connection
	 * more than the cap allows.
	 */
	admit(key: string | undefined, now = Date.now()): Key | undefined {
		const known = key !== undefined ? this.open.get(key) : undefined;
		if (known) {
			known.active++;
			return key;
		}
		if (this.open.size >= this.max) this.sweep(now);
		if (this.open.size >= this.max) return undefined;
		const id: Key = key ?? Symbol("connection");
		this.open.set(id, { active: 1, idleSince: now });
		return id;
	}

	/** A request ended; `closed` when its connection ends with it (Connection: close, a cut stream). */
	release(key: Key, closed = false, now = Date.now()): void {
		const c = this.open.get(key);
		if (!c) return;
		c.active--;
		if (closed || typeof key === "symbol") this.open.delete(key);
		else if (c.active <= 0) c.idleSince = now;
	}

	/** Forgets idle connections Bun has closed by now. Bounded by the cap: it runs only at the cap. */
	private sweep(now: number): void {
		for (const [key, c] of this.open)
			if (c.active <= 0 && now - c.idleSince > this.idleMs) this.open.delete(key);
	}
}
