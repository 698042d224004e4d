// Memory back once clients go quiet. A burst of calls leaves its garbage in the heap until
// allocation triggers the next collection, which an idle owner never reaches: it would sit at its
// high-water mark until the next client came. So when no call has been in progress for QUIET_MS,
// the owner collects in full, with nobody waiting on it. Not more than once per MIN_CALLS calls, so
// a client calling now and then does not pay a collection per call; and once after start-up.
//
// It keeps the code the engine compiled. Dropping it too (Bun.shrink) saved ~10 MB, but agents call
// after pauses, so nearly every call then met recompiled code: with 5 agents pausing 0.5–4 s
// between calls, the owner's p99 was 12.2 ms with the drop and 5.5 ms without (the minimal SDK
// server: 3.1 ms), its memory after the run 99 MB against 111 MB (`npm run bench -- paced`).
import type { InFlight } from "../transports/inflight.ts";

export const QUIET_MS = 500;
export const MIN_CALLS = 100;

export interface IdleCollector {
	/** Collects once calls are quiet, however few there were since the last time (start-up). */
	soon(): void;
	stop(): void;
}

/** A full, synchronous collection, once JS is idle. */
function collectAll(): void {
	Bun.gc(true);
}

export function collectWhenIdle(
	inflight: InFlight,
	collect: () => void = collectAll,
	limits = { quietMs: QUIET_MS, minCalls: MIN_CALLS },
): IdleCollector {
	let timer: Timer | undefined;
	let due = false;
	let quietSince = 0;
	const arm = (ms: number) => {
		timer = setTimeout(fire, ms);
		timer.unref(); // never what keeps the process up
	};
	function fire(): void {
		timer = undefined;
		if (inflight.size > 0) return; // a call is running: its end arms again
		const left = quietSince + limits.quietMs - performance.now();
		if (left > 0) {
			arm(left); // calls went on meanwhile
			return;
		}
		due = false;
		inflight.resetCalls();
		collect();
	}
	// Once per end of a call at most a clock read: the timer is set when none is, not on every call.
	const unlisten = inflight.onIdle(() => {
		if (!due && inflight.calls < limits.minCalls) return;
		quietSince = performance.now();
		if (timer === undefined) arm(limits.quietMs);
	});
	return {
		soon() {
			due = true;
			quietSince = performance.now();
			if (timer === undefined) arm(limits.quietMs);
		},
		stop() {
			unlisten();
			clearTimeout(timer);
			timer = undefined;
		},
	};
}
