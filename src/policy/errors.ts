// Its own module so the parser and the public index can both use it without an import cycle.

/** A policy file problem, naming the file and line. */
export class PolicyError extends Error {
	constructor(
		readonly file: string,
		readonly line: number,
		detail: string,
	) {
		super(`${file}:${line}: ${detail}`);
		this.name = "PolicyError";
	}
}
