// Argument validation for every transport: an object, no unknown keys (with a did-you-mean), then the
// tool's schema. Every failure is `invalid_argument` naming the field.

import { problemText } from "../domain/scalars.ts";
import { clip, didYouMean, ECHO_CHARS, quoted, suggestion } from "../domain/text.ts";
import { invalidArgument } from "../errors.ts";
import { type ArkError, type } from "../vocabulary/arktype.ts";
import { argNames, jsonSchemas, type Tool } from "./index.ts";

const dotted = (path: readonly PropertyKey[]) =>
	path.reduce<string>(
		(s, seg) => (typeof seg === "number" ? `${s}[${seg}]` : s ? `${s}.${String(seg)}` : String(seg)),
		"",
	);

/**
 * No tool takes arguments nested more than a few levels, and describing a deeply nested value that
 * fails its schema costs arktype time and memory quadratic in the depth (10^4 levels: seconds and a
 * gigabyte, stalling every other caller). So depth is checked first, in one pass that stops early.
 */
export const MAX_ARG_DEPTH = 32;

/** The first argument nested deeper than MAX_ARG_DEPTH, or undefined. */
function tooDeep(args: Record<string, unknown>): string | undefined {
	for (const key in args) {
		const value = args[key];
		// A scalar, the usual argument, needs no walk.
		if (typeof value !== "object" || value === null || !Object.hasOwn(args, key)) continue;
		const stack: [unknown, number][] = [[value, 1]];
		while (stack.length > 0) {
			const [v, depth] = stack.pop() as [unknown, number];
			if (typeof v !== "object" || v === null) continue;
			if (depth > MAX_ARG_DEPTH) return key;
			for (const child of Object.values(v)) stack.push([child, depth + 1]);
		}
	}
	return undefined;
}

/** arktype quotes a refused string whole (`was "…"`): a long one is cut like every other echo. */
function echoBounded(problem: ArkError): string {
	const text = problemText(problem);
	const value = problem.data as unknown;
	if (typeof value !== "string" || problem.actual.length <= ECHO_CHARS + 2) return text;
	return text.replaceAll(problem.actual, `"${clip(value)}" (${value.length} characters)`);
}

const knownNames = new WeakMap<Tool, { list: readonly string[]; set: ReadonlySet<string> }>();

/** A tool's argument names, worked out once per tool (argNames builds a new array each time). */
function namesOf(tool: Tool): { list: readonly string[]; set: ReadonlySet<string> } {
	let names = knownNames.get(tool);
	if (!names) {
		const list = argNames(tool);
		names = { list, set: new Set(list) };
		knownNames.set(tool, names);
	}
	return names;
}

export function validateArgs(tool: Tool, raw: unknown): Record<string, unknown> {
	const args = raw ?? {};
	if (typeof args !== "object" || Array.isArray(args)) {
		throw invalidArgument(`arguments to ${tool.name} must be a JSON object`);
	}
	const known = namesOf(tool);
	for (const key in args) {
		if (!known.set.has(key) && Object.hasOwn(args, key)) {
			const near = didYouMean(key, known.list);
			throw invalidArgument(`unknown argument ${quoted(key)}${suggestion(near)}`, {
				field: clip(key),
				...(near && { did_you_mean: near }),
			});
		}
	}
	const deep = tooDeep(args as Record<string, unknown>);
	if (deep !== undefined) {
		const field = clip(deep);
		throw invalidArgument(`argument '${field}' is nested more than ${MAX_ARG_DEPTH} levels deep`, { field });
	}
	const out = tool.input(args);
	if (!(out instanceof type.errors)) return out as Record<string, unknown>;

	const problem = out[0];
	if (!problem) throw invalidArgument(`invalid arguments to ${tool.name}`);
	// A path may hold a caller's key (inside a map): cut like every other echo.
	const field = clip(dotted(problem.path));
	if (problem.code === "required") {
		throw invalidArgument(`missing required argument '${field}'`, { field });
	}
	const value = problem.data as unknown;
	const allowed = jsonSchemas(tool).input.properties?.[String(problem.path[0])]?.enum as string[] | undefined;
	const near = typeof value === "string" && allowed ? didYouMean(value, allowed) : undefined;
	throw invalidArgument(`argument '${field}' ${echoBounded(problem)}${suggestion(near)}`, {
		field,
		...(near && { did_you_mean: near }),
	});
}
