// What one fuzz run found: counts per kind of case, and the failures (crashes, hangs, malformed
// answers, a valid call not answered after a batch), the first few of each kept with their detail.

export type FailureKind =
	| "crash"
	| "hang"
	| "malformed"
	| "valid-call"
	| "corrupt"
	| "outside-write"
	| "harness";

export interface Failure {
	kind: FailureKind;
	label: string;
	detail: string;
}

const KEEP = 12;

export class Tally {
	cases = 0;
	batches = 0;
	validCalls = 0;
	readonly kinds = new Map<string, number>();
	/** Error codes (socket) or JSON-RPC error codes and HTTP statuses seen, for the report. */
	readonly answers = new Map<string, number>();
	readonly counts: Record<FailureKind, number> = {
		crash: 0,
		hang: 0,
		malformed: 0,
		"valid-call": 0,
		corrupt: 0,
		"outside-write": 0,
		harness: 0,
	};
	readonly failures: Failure[] = [];
	/** Wall time of the slowest case per label, in ms. */
	readonly slowest = new Map<string, number>();
	readonly notes: string[] = [];

	/** A note, kept once per distinct text and at most 20 in all. */
	note(text: string): void {
		if (this.notes.length < 20 && !this.notes.includes(text)) this.notes.push(text);
	}

	constructor(readonly transport: string) {}

	sent(label: string, ms?: number): void {
		this.cases++;
		const kind = label.split(":").slice(0, 2).join(":");
		this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
		if (ms !== undefined) this.took(label, ms);
	}

	/** The wall time of a case (or of a whole exchange of lines) under its kind, the slowest kept. */
	took(label: string, ms: number): void {
		const kind = label.split(":").slice(0, 2).join(":");
		this.slowest.set(kind, Math.max(this.slowest.get(kind) ?? 0, ms));
	}

	answer(what: string): void {
		this.answers.set(what, (this.answers.get(what) ?? 0) + 1);
	}

	fail(kind: FailureKind, label: string, detail: string): void {
		this.counts[kind]++;
		if (this.failures.filter((f) => f.kind === kind).length < KEEP)
			this.failures.push({ kind, label, detail: detail.slice(0, 400) });
	}

	get failed(): number {
		return Object.values(this.counts).reduce((a, b) => a + b, 0);
	}

	/** Failed labels, deduplicated by case kind, for a test's expectation. */
	summary(): string[] {
		return this.failures.map((f) => `${f.kind} ${f.label}: ${f.detail}`);
	}
}

/** A promise that settles with `value` after `ms`, unless cleared first. */
export function timeout<T>(ms: number, value: T): { promise: Promise<T>; clear(): void } {
	let timer: Timer | undefined;
	const promise = new Promise<T>((resolve) => {
		timer = setTimeout(() => resolve(value), ms);
	});
	return { promise, clear: () => clearTimeout(timer) };
}

/** Runs `work` over `items` with at most `width` at a time. */
export async function pool<T>(
	items: readonly T[],
	width: number,
	work: (item: T, index: number) => Promise<void>,
) {
	let next = 0;
	const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
		while (next < items.length) {
			const i = next++;
			await work(items[i] as T, i);
		}
	});
	await Promise.all(lanes);
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Runs `work` over `items` one at a time until one hangs (the owner is then stuck: the rest would
 * only wait out their time), noting what was skipped; true when one hung.
 */
export async function sequence<T extends { label: string }>(
	items: readonly T[],
	work: (item: T) => Promise<boolean>,
	t: Tally,
): Promise<boolean> {
	for (const [i, item] of items.entries()) {
		if (await work(item)) {
			const skipped = items.slice(i + 1).map((x) => x.label);
			if (skipped.length > 0) t.note(`after ${item.label} hung, skipped: ${skipped.join(", ")}`);
			return true;
		}
	}
	return false;
}
