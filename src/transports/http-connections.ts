// Counts open HTTP connections for the cap (limits.max_http_connections). Bun.serve has no
// connection events, so a connection is known by its client address and port, seen on each request:
// open while a request on it is in flight, then idle until it closes. Bun says nothing when a client
// closes an idle connection itself, so at the cap the kernel's own table says which idle ones are
// still open (src/os/tcp-table.ts). Where that table cannot be read, an idle one counts until the
// latest moment Bun would have closed it: the count errs on the side of too many, never too few.
// (A guess alone refused a stdio bridge's burst: its short-lived connections counted for 9 s each.)

type Key = string | symbol;

interface Connection {
	/** Requests in flight on it (more than one only if a client pipelines). */
	active: number;
	/** When its last request ended (for an idle connection). */
	idleSince: number;
}

export class Connections {
	private readonly open = new Map<Key, Connection>();

	/**
	 * `idleMs`: how long after its last request an idle connection may still be open. `peers`: the
	 * client ports the kernel holds established connections from (undefined: it cannot tell).
	 */
	constructor(
		private readonly max: number,
		private readonly idleMs: number,
		private readonly peers: () => Set<number> | undefined = () => undefined,
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

	/**
	 * Forgets idle connections that are closed: those the kernel no longer holds, or (where it cannot
	 * tell) those Bun has closed by now. Bounded by the cap: it runs only at the cap.
	 */
	private sweep(now: number): void {
		const held = this.peers();
		for (const [key, c] of this.open) {
			if (c.active > 0) continue;
			const closed =
				held !== undefined && typeof key === "string"
					? !held.has(Number(key.slice(key.lastIndexOf(":") + 1)))
					: now - c.idleSince > this.idleMs;
			if (closed) this.open.delete(key);
		}
	}
}
