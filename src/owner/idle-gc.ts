// Memory back once clients go quiet. A burst of calls leaves its garbage in the heap, and the code
// JavaScriptCore compiled for it (and for the start-up's one-time work), until allocation triggers
// the next collection, which an idle owner never reaches: it would sit at its high-water mark
// (~20 MB above its resting size after 2,000 calls over HTTP) until the next client came. So when
// no call has been in progress for QUIET_MS, the owner collects and lets the engine drop compiled
// code (recompiled on next use) and return free pages, with nobody waiting on it. Not more than
// once per MIN_CALLS calls, so a client calling now and then does not pay a collection per call;
// and once after start-up.
import type { InFlight } from "../transports/inflight.ts";

export const QUIET_MS = 500;
export const MIN_CALLS = 100;

export interface IdleCollector {
	/** Collects once calls are quiet, however few there were since the last time (start-up). */
	soon(): void;
	stop(): void;
}

/** A full collection, then (Bun.shrink) dropped code and free memory given back, once JS is idle. */
function shrink(): void {
	Bun.gc(true);
	// Deprecated in Bun's types but kept (1.4); without it a collection alone returns nothing.
	(Bun as { shrink?: () => void }).shrink?.();
}

export function collectWhenIdle(
	inflight: InFlight,
	collect: () => void = shrink,
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
