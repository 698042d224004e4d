// The registry as an MCP client receives it in tools/list. Every byte here is read by every agent at
// the start of every session (SPEC §10: at most 32 KiB for the whole list), so the published schemas
// are a lean projection of the full ones: arktype still validates every call in full, and
// tools.schema.json keeps the full input and output schemas.
import { callerId, nonBlank } from "../domain/scalars.ts";
import { AGENT_TOOLS, idempotencyKey, jsonSchemas, type Tool, toolsFor } from "./index.ts";
import type { Grant } from "./types.ts";

type Schema = Record<string, unknown>;

export interface PublishedTool {
	name: string;
	title: string;
	description: string;
	inputSchema: Schema & { type: "object" };
	annotations: Partial<Omit<Tool["annotations"], "title">>;
}

const SAFE = Number.MAX_SAFE_INTEGER;

// The shared string scalars (ids, non-blank text, idempotency keys) publish as plain strings: their
// patterns tell a model nothing its argument doc does not, cost ~4 KB across the list, and a value
// that breaks one gets an `invalid_argument` naming the rule. Other patterns stay.
const PLAIN_STRINGS = new Set(
	[callerId, nonBlank, idempotencyKey].map((t) => (t.toJsonSchema() as Schema).pattern),
);

/**
 * A schema without what a client does not need: `$schema`, the scalars' own descriptions (they
 * restate the type), safe-integer bounds (no client sends more) and the shared scalars' patterns.
 */
function lean(node: unknown): unknown {
	if (Array.isArray(node)) return node.map(lean);
	if (node === null || typeof node !== "object") return node;
	const out: Schema = {};
	for (const [key, value] of Object.entries(node)) {
		if (key === "$schema" || key === "description") continue;
		if ((key === "maximum" && value === SAFE) || (key === "minimum" && value === -SAFE)) continue;
		if (key === "pattern" && PLAIN_STRINGS.has(value)) continue;
		// `properties` maps argument names (which may be "description") to schemas.
		out[key] = key === "properties" ? mapValues(value as Schema, lean) : lean(value);
	}
	return out;
}

const mapValues = (o: Schema, f: (v: unknown) => unknown) =>
	Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

/**
 * One tool as tools/list serves it: the argument docs are the only descriptions in its schema. To
 * a capability (`forCapability`) its actor arguments are not shown: the capability says who acts.
 * Nor, under its role's `grant`, the arguments it may not give at all; one it may give only some
 * values of lists just those.
 */
export function publishedTool(t: Tool, forCapability = false, grant?: Grant): PublishedTool {
	const inputSchema = lean(jsonSchemas(t).input) as PublishedTool["inputSchema"];
	const props = (inputSchema.properties ?? {}) as Record<string, Schema>;
	const hidden = new Set(forCapability ? t.actors : []);
	for (const [field, allowed] of Object.entries(grant?.only ?? {})) {
		const prop = props[field];
		if (allowed.length === 0) hidden.add(field);
		else if (prop && Array.isArray(prop.enum))
			props[field] = { ...prop, enum: prop.enum.filter((v) => allowed.includes(v)) };
	}
	if (hidden.size > 0) {
		for (const field of hidden) delete props[field];
		const required = (inputSchema.required ?? []) as string[];
		inputSchema.required = required.filter((r) => !hidden.has(r));
	}
	for (const [name, prop] of Object.entries(props)) {
		const doc = t.argDocs[name];
		if (doc) props[name] = { ...prop, description: doc };
	}
	const annotations = hints(t.annotations);
	// No outputSchema: even the smallest record type costs ~300 bytes and full ones several KB, and
	// results still carry structuredContent, typed and tested against `t.output`.
	return { name: t.name, title: t.title, description: t.description, inputSchema, annotations };
}

/**
 * The hints a client needs, and only those: readOnlyHint and openWorldHint always; for a mutating
 * tool destructiveHint always (its default is true, and a careless client must not read a missing
 * one as false) and idempotentHint when true (missing means false). MCP gives the other two no
 * meaning on a read-only tool. Saves ~1.3 KB and never makes a tool look safer than it is.
 */
function hints(a: Tool["annotations"]): PublishedTool["annotations"] {
	if (a.readOnlyHint) return { readOnlyHint: true, openWorldHint: a.openWorldHint };
	return {
		readOnlyHint: false,
		destructiveHint: a.destructiveHint,
		...(a.idempotentHint && { idempotentHint: true }),
		openWorldHint: a.openWorldHint,
	};
}

let cached: PublishedTool[] | undefined;
const byRole = new Map<string, PublishedTool[]>();
/**
 * Every agent tool, in registry order; with a role, only those a capability of that role may
 * call, each as that role may call it (./publishedTool). Computed once: schemas never change while
 * a process runs.
 */
export const publishedTools = (role?: string): PublishedTool[] => {
	cached ??= AGENT_TOOLS.map((t) => publishedTool(t));
	if (role === undefined) return cached;
	let mine = byRole.get(role);
	if (!mine) {
		mine = toolsFor(role).map((t) =>
			publishedTool(t, true, t.access === "every" ? undefined : (t.access as Record<string, Grant>)[role]),
		);
		if (byRole.size < 64) byRole.set(role, mine);
	}
	return mine;
};
