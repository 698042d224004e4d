// Argument validation for every transport: an object, no unknown keys (with a did-you-mean), then the
// tool's schema. Every failure is `invalid_argument` naming the field.
import { type } from "arktype";
import { problemText } from "../domain/scalars.ts";
import { didYouMean, suggestion } from "../domain/suggest.ts";
import { invalidArgument } from "../errors.ts";
import { argNames, jsonSchemas, type Tool } from "./index.ts";

const dotted = (path: readonly PropertyKey[]) =>
	path.reduce<string>(
		(s, seg) => (typeof seg === "number" ? `${s}[${seg}]` : s ? `${s}.${String(seg)}` : String(seg)),
		"",
	);

export function validateArgs(tool: Tool, raw: unknown): Record<string, unknown> {
	const args = raw ?? {};
	if (typeof args !== "object" || Array.isArray(args)) {
		throw invalidArgument(`arguments to ${tool.name} must be a JSON object`);
	}
	const known = argNames(tool);
	for (const key of Object.keys(args)) {
		if (!known.includes(key)) {
			const near = didYouMean(key, known);
			throw invalidArgument(`unknown argument '${key}'${suggestion(near)}`, {
				field: key,
				...(near && { did_you_mean: near }),
			});
		}
	}
	const out = tool.input(args);
	if (!(out instanceof type.errors)) return out as Record<string, unknown>;

	const problem = out[0];
	if (!problem) throw invalidArgument(`invalid arguments to ${tool.name}`);
	const field = dotted(problem.path);
	if (problem.code === "required") {
		throw invalidArgument(`missing required argument '${field}'`, { field });
	}
	const value = problem.data as unknown;
	const allowed = jsonSchemas(tool).input.properties?.[String(problem.path[0])]?.enum as string[] | undefined;
	const near = typeof value === "string" && allowed ? didYouMean(value, allowed) : undefined;
	throw invalidArgument(`argument '${field}' ${problemText(problem)}${suggestion(near)}`, {
		field,
		...(near && { did_you_mean: near }),
	});
}
