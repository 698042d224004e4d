// Waiting that a stop can cut short: the loops that rest between rounds (the owner's session
// endpoints, the run view) end at once when their signal aborts, and leave no listener behind.

/** Resolves after `ms`, or at once when `signal` aborts (or already has). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		if (signal.aborted) return resolve();
		const done = () => {
			clearTimeout(timer);
			signal.removeEventListener("abort", done);
			resolve();
		};
		const timer = setTimeout(done, ms);
		signal.addEventListener("abort", done, { once: true });
	});
}
