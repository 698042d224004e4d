// Counts calls in progress so a stopping owner can wait for them (bounded) before closing the store,
// and so the owner hears when its clients have gone quiet.

export class InFlight {
	private count = 0;
	private started = 0;
	private drained: (() => void)[] = [];
	private readonly idleListeners = new Set<() => void>();

	get size(): number {
		return this.count;
	}

	/** Calls begun since the last resetCalls(). */
	get calls(): number {
		return this.started;
	}

	resetCalls(): void {
		this.started = 0;
	}

	/** `work` itself, counted until it settles: no promise of its own in a call's path. */
	track<T>(work: Promise<T>): Promise<T> {
		this.count++;
		this.started++;
		// Registered before the caller awaits `work`, so the count drops before the caller resumes.
		work.then(this.settle, this.settle);
		return work;
	}

	/** A call begins that its transport ends with end(): counted as track() counts, with no promise. */
	begin(): void {
		this.count++;
		this.started++;
	}

	end(): void {
		this.settle();
	}

	private readonly settle = (): void => {
		this.count--;
		if (this.count > 0) return;
		for (const wake of this.drained.splice(0)) wake();
		for (const listener of this.idleListeners) listener();
	};

	/** Calls `listener` each time the last call in progress ends; returns how to stop. */
	onIdle(listener: () => void): () => void {
		this.idleListeners.add(listener);
		return () => this.idleListeners.delete(listener);
	}

	/** Resolves true when nothing is in flight, or false when `ms` ran out first. */
	drain(ms: number): Promise<boolean> {
		if (this.count === 0) return Promise.resolve(true);
		return new Promise((resolve) => {
			const timer = setTimeout(() => resolve(false), ms);
			this.drained.push(() => {
				clearTimeout(timer);
				resolve(true);
			});
		});
	}
}
