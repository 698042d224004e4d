// Connection deadlines met by one periodic sweep instead of a timer per connection: arming and
// clearing a timer for each short connection cost more than the rest of serving its request, and a
// map of deadlines cost nearly as much. Each connection carries its own deadline (a number); the
// sweep walks the connections, meeting each deadline no earlier than it passes and at most a period
// late, and runs only while there are connections to walk.

/** When a connection's current deadline passes, in performance.now() ms; NONE while it has none. */
export const NONE = Number.POSITIVE_INFINITY;

export class Sweep {
	private timer: Timer | undefined;

	/** `check` meets what passed by `now`; it answers whether any connection is left to watch. */
	constructor(
		private readonly periodMs: number,
		private readonly check: (now: number) => boolean,
	) {}

	/** Makes sure the sweep runs: a deadline was set. */
	run(): void {
		this.timer ??= setInterval(() => {
			if (!this.check(performance.now())) this.stop();
		}, this.periodMs);
	}

	stop(): void {
		clearInterval(this.timer);
		this.timer = undefined;
	}
}
