// "Did you mean" for unknown keys, tools, commands and enum values.

function distance(a: string, b: string): number {
	if (a === b) return 0;
	let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		const row = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
		}
		prev = row;
	}
	return prev[b.length] ?? 0;
}

// `taskId`, `task-id` and `TASK_ID` should all find `task_id`.
const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9.]/g, "");

/** The closest candidate, or undefined when nothing is close enough to be a likely typo. */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
	const wanted = fold(input);
	let best: string | undefined;
	let bestScore = Number.POSITIVE_INFINITY;
	for (const candidate of candidates) {
		const score = distance(wanted, fold(candidate));
		if (score < bestScore) {
			best = candidate;
			bestScore = score;
		}
	}
	if (best === undefined) return undefined;
	const allowed = Math.max(2, Math.floor(Math.max(wanted.length, fold(best).length) / 3));
	return bestScore <= allowed ? best : undefined;
}

/** " (did you mean 'x'?)" or "" — for appending to a message. */
export const suggestion = (hint: string | undefined) =>
	hint === undefined ? "" : ` (did you mean '${hint}'?)`;
