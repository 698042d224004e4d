// "Did you mean" for unknown keys, tools, commands and enum values, and the bounded echo of what a
// caller sent. Both see hostile input (an 8 MiB tool name in one socket frame), so neither may do
// work or build a message that grows with it.

/** The most characters of caller input an error message or a log line repeats. */
export const ECHO_CHARS = 200;

/**
 * Raw input longer than the longest candidate by more than this is never searched. Folding only
 * drops separators (`task-id`, `TASK_ID`), so a real typo is never this much longer.
 */
export const SEARCH_MARGIN = 32;

/** Searches begun and cells of `distance` filled: tests assert the bound on work, not a time. */
export const searchWork = { searches: 0, cells: 0 };

/** At most `max` characters of `input`, never half of a surrogate pair, then "…" when cut. */
export function clip(input: string, max = ECHO_CHARS): string {
	if (input.length <= max) return input;
	const end = /[\uD800-\uDBFF]/.test(input[max - 1] as string) ? max - 1 : max;
	return `${input.slice(0, end)}…`;
}

/** `'name'`, or `'prefix…' (8388608 characters)` for a long one: for quoting input in a message. */
export const quoted = (input: string) =>
	input.length <= ECHO_CHARS ? `'${input}'` : `'${clip(input)}' (${input.length} characters)`;

/** `name` as it is, or `prefix… (8388608 characters)` for a long one: for unquoted echoes. */
export const echo = (input: string) =>
	input.length <= ECHO_CHARS ? input : `${clip(input)} (${input.length} characters)`;

/** Edit distance where swapping two neighbouring letters counts as one edit (`modle` → `model`). */
function distance(a: string, b: string): number {
	searchWork.cells += a.length * b.length;
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

/** The most edits a suggestion may be away: a third of the longer word, at least 2. */
const allowedEdits = (a: number, b: number) => Math.max(2, Math.floor(Math.max(a, b) / 3));

/** The closest candidate, or undefined when nothing is close enough to be a likely typo. */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
	const folded = [...candidates].map((c) => ({ c, f: fold(c) }));
	const longest = Math.max(0, ...folded.map((x) => x.c.length));
	if (input.length > longest + SEARCH_MARGIN) return undefined;
	searchWork.searches++;
	const wanted = fold(input);
	let best: string | undefined;
	let bestScore = Number.POSITIVE_INFINITY;
	for (const { c, f } of folded) {
		// The distance is at least the difference in length: skip what could never be allowed.
		if (Math.abs(wanted.length - f.length) > allowedEdits(wanted.length, f.length)) continue;
		const score = distance(wanted, f);
		if (score < bestScore && score <= allowedEdits(wanted.length, f.length)) {
			best = c;
			bestScore = score;
		}
	}
	return best;
}

/** " (did you mean 'x'?)" or "" — for appending to a message. */
export const suggestion = (hint: string | undefined) =>
	hint === undefined ? "" : ` (did you mean '${hint}'?)`;
