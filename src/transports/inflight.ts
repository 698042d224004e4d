// Counts calls in progress so a stopping owner can wait for them (bounded) before closing the store.

export class InFlight {
	private count = 0;
	private idle: (() => void)[] = [];

	get size(): number {
		return this.count;
	}

	async track<T>(work: Promise<T>): Promise<T> {
		this.count++;
		try {
			return await work;
		} finally {
			this.count--;
			if (this.count === 0) for (const wake of this.idle.splice(0)) wake();
		}
	}

	/** Resolves true when nothing is in flight, or false when `ms` ran out first. */
	drain(ms: number): Promise<boolean> {
		if (this.count === 0) return Promise.resolve(true);
		return new Promise((resolve) => {
			const timer = setTimeout(() => resolve(false), ms);
			this.idle.push(() => {
				clearTimeout(timer);
				resolve(true);
			});
		});
	}
}
