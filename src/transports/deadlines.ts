// The deadlines of many connections, kept by one timer instead of one per connection: arming and
// clearing a timer for each short connection cost more than the rest of serving its request. A
// deadline is met no earlier than set and at most `granularityMs` late; the timer runs only while
// some deadline is set.

export class Deadlines<T> {
	/** When each item's deadline passes (performance.now() ms). */
	private readonly due = new Map<T, number>();
	private timer: Timer | undefined;

	constructor(
		private readonly granularityMs: number,
		private readonly expired: (item: T) => void,
	) {}

	/** Sets (or moves) the item's deadline to `ms` from now. */
	set(item: T, ms: number): void {
		this.due.set(item, performance.now() + ms);
		this.timer ??= setInterval(() => this.check(), this.granularityMs);
	}

	clear(item: T): void {
		this.due.delete(item);
	}

	/** Stops the timer; deadlines set later start it again. */
	stop(): void {
		this.due.clear();
		clearInterval(this.timer);
		this.timer = undefined;
	}

	private check(): void {
		const now = performance.now();
		for (const [item, at] of this.due) {
			if (at > now) continue;
			this.due.delete(item);
			this.expired(item);
		}
		if (this.due.size === 0) {
			clearInterval(this.timer);
			this.timer = undefined;
		}
	}
}
