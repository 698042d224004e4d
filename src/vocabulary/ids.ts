// Ids we mint are a type prefix plus a UUIDv7: time-ordered and unique across processes.

export const ID_PREFIXES = {
	task: "T-",
	claim: "C-",
	proposal: "P-",
	vote: "V-",
	decision: "D-",
	transaction: "TX-",
	approval: "H-",
	securityReview: "SR-",
	testRun: "TR-",
	evidence: "TE-",
	memory: "M-",
	run: "RUN-",
	session: "S-",
	request: "Q-",
	answer: "QA-",
	message: "MSG-",
	promotion: "PR-",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export const mintId = (kind: IdKind): string => ID_PREFIXES[kind] + Bun.randomUUIDv7();

/** Ids a caller may choose. They never reach a file path raw. */
export const CALLER_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

let lastMs = Number.NaN;
let lastIso = "";

/**
 * RFC 3339 UTC with milliseconds, e.g. 2026-11-29T20:01:14.123Z. Sorts as text. Every call takes
 * one (a busy owner makes a dozen a millisecond), so the text of the current millisecond is kept:
 * formatting it cost four times the clock read.
 */
export const nowIso = (): string => {
	const ms = Date.now();
	if (ms !== lastMs) {
		lastMs = ms;
		lastIso = new Date(ms).toISOString();
	}
	return lastIso;
};
