// Scalar types shared by tool schemas and the config schema. Each carries a description, which
// becomes both the JSON Schema description and the "must be …" part of a validation error.
import { type } from "../vocabulary/arktype.ts";

export const nonBlank = type(/\S/).describe("a non-empty string");

export const callerId = type(/^[A-Za-z0-9._:-]{1,128}$/).describe(
	"an id of 1-128 characters from letters, digits and . _ : -",
);

/** Integers only within the range JSON numbers carry exactly. */
export const safeInt = type("-9007199254740991 <= number.integer <= 9007199254740991").describe("an integer");

export const positiveInt = type("1 <= number.integer <= 9007199254740991").describe("a positive integer");

export const nonNegativeInt = type("0 <= number.integer <= 9007199254740991").describe(
	"an integer of zero or more",
);

/** "must be X (was Y)" for one arktype problem, without the path arktype sometimes prefixes. */
export function problemText(problem: { problem: string; propString: string }): string {
	const text = problem.problem;
	return problem.propString && text.startsWith(`${problem.propString} `)
		? text.slice(problem.propString.length + 1)
		: text;
}
