// One direction of a relay between two sockets, and the far side's handlers.
import type { Socket, SocketHandler } from "bun";

/** What a socket could not take yet, sent on its drain (Bun's sockets write what fits, no more). */
export class Outbox {
	private queue: Uint8Array[] = [];
	private afterDrain?: () => void;
	constructor(private readonly target: () => { write(b: Uint8Array): number } | undefined) {}
	send(bytes: Uint8Array) {
		if (this.queue.length) this.queue.push(bytes);
		else this.put(bytes);
	}
	drain() {
		const queued = this.queue.splice(0);
		for (let i = 0; i < queued.length; i++) {
			if (!this.put(queued[i] as Uint8Array)) {
				this.queue.push(...queued.slice(i + 1));
				return;
			}
		}
		this.afterDrain?.();
	}
	/** Runs `fn` once everything queued is written (the other side closed: end this one after it). */
	finally(fn: () => void) {
		if (this.queue.length) this.afterDrain = fn;
		else fn();
	}
	/** Writes what fits; queues the rest at the front. False when something is left. */
	private put(bytes: Uint8Array): boolean {
		const to = this.target();
		if (!to) {
			this.queue.unshift(bytes);
			return false;
		}
		const n = Math.max(0, to.write(bytes));
		if (n < bytes.byteLength) {
			this.queue.unshift(bytes.subarray(n));
			return false;
		}
		return true;
	}
}

/**
 * The handlers of a relay's far side (`Bun.connect`'s socket): what it sends goes to `near`, what
 * `toFar` holds goes out once it opens and drains, and `near` ends once `toNear` is written out.
 */
export function farSide(
	near: { end(): void },
	toNear: Outbox,
	toFar: Outbox,
	opened: (far: Socket<undefined>) => void,
): SocketHandler<undefined> {
	return {
		open(far) {
			opened(far);
			toFar.drain();
		},
		data(_far, bytes) {
			toNear.send(bytes);
		},
		drain() {
			toFar.drain();
		},
		close() {
			toNear.finally(() => near.end());
		},
		error() {
			near.end();
		},
	};
}
