// "Did you mean" for unknown keys, tools, commands and enum values.

/** Edit distance where swapping two neighbouring letters counts as one edit (`modle` → `model`). */
function distance(a: string, b: string): number {
	const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
	for (let j = 0; j <= b.length; j++) (d[0] as number[])[j] = j;
	for (let i = 1; i <= a.length; i++) {
		const row = d[i] as number[];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			const prev = d[i - 1] as number[];
			let best = Math.min(
				(prev[j] as number) + 1,
				(row[j - 1] as number) + 1,
				(prev[j - 1] as number) + cost,
			);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
				best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
			}
			row[j] = best;
		}
	}
	return (d[a.length] as number[])[b.length] as number;
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
