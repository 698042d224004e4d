// The single source of truth for tools. MCP tools/list, tools.schema.json, the agent manifest,
// `mcp inspect` and docs/tools.md are all derived from TOOLS; the dispatcher's switch mirrors it.

import { positiveInt } from "../domain/scalars.ts";
import { type Type, type } from "../vocabulary/arktype.ts";
import { configTools } from "./config.ts";
import { governanceTools } from "./governance.ts";
import { memoryTools } from "./memory.ts";
import { peerTools } from "./peers.ts";
import { proposalTools } from "./proposals.ts";
import { repoTools } from "./repo.ts";
import { resourceTools } from "./resources.ts";
import { runTools } from "./runs.ts";
import { sessionTools } from "./sessions.ts";
import { tableTools } from "./table.ts";
import { taskTools } from "./tasks.ts";
import { testTools } from "./tests.ts";
import { turnTools } from "./turns.ts";
import {
	type Access,
	FAMILIES,
	type Family,
	type Reads,
	type Role,
	type ToolSpec,
	type Visibility,
} from "./types.ts";
import { workspaceTools } from "./workspaces.ts";

const SPECS = [
	...tableTools,
	...turnTools,
	...taskTools,
	...repoTools,
	...resourceTools,
	...proposalTools,
	...workspaceTools,
	...governanceTools,
	...testTools,
	...memoryTools,
	...peerTools,
	...sessionTools,
	...runTools,
	...configTools,
] as const;

type Spec = (typeof SPECS)[number];
export type ToolName = Spec["name"];

/** Arguments every mutating tool takes, and those every updating tool takes. */
export interface CommonArgs {
	idempotency_key?: string;
	expected_revision?: number;
}

/** The validated arguments of tool N, as its handler receives them. */
export type Args<N extends ToolName> =
	Extract<Spec, { name: N }> extends ToolSpec<N, infer I> ? I & CommonArgs : never;

/** What tool N returns, as its output schema declares: the type `call(rt, N, …)` resolves with. */
export type Result<N extends ToolName> =
	Extract<Spec, { name: N }> extends ToolSpec<N, infer _I, infer O> ? O : never;

// One pattern (not an intersection) so a bad key gets one plain message.
export const idempotencyKey = type(/^(?=[\s\S]*\S)[\s\S]{1,200}$/).describe(
	"a non-empty string of up to 200 characters",
);

export interface Tool {
	name: ToolName;
	family: Family;
	visibility: Visibility;
	title: string;
	description: string;
	details: string;
	/** Full input schema: the tool's arguments plus the common ones; unknown keys rejected. */
	readonly input: Type<object>;
	readonly output: Type<object>;
	mutates: boolean;
	updates: boolean;
	annotations: {
		title: string;
		readOnlyHint: boolean;
		destructiveHint: boolean;
		idempotentHint: boolean;
		openWorldHint: false;
	};
	argDocs: Record<string, string>;
	/** Who may call it with a capability: `every` role, the roles listed, or (empty) none. */
	access: Access;
	actors: readonly string[];
	namedByCaller: readonly string[];
	ownId: string | undefined;
	reads: Reads | undefined;
}

function build(spec: ToolSpec): Tool {
	let input: Type<object> | undefined;
	let output: Type<object> | undefined;
	return {
		name: spec.name as ToolName,
		family: spec.family,
		visibility: spec.visibility ?? "agent",
		title: spec.title,
		description: spec.description,
		details: spec.details,
		// Built on first use: composing 58 schemas up front would cost every CLI call ~60 ms.
		get input() {
			if (!input) {
				let t = spec.args() as Type<object>;
				if (spec.mutates) t = t.merge({ "idempotency_key?": idempotencyKey }) as Type<object>;
				if (spec.updates) t = t.merge({ "expected_revision?": positiveInt }) as Type<object>;
				input = t.onUndeclaredKey("reject");
			}
			return input;
		},
		get output() {
			output ??= spec.output() as Type<object>;
			return output;
		},
		mutates: spec.mutates,
		updates: spec.updates ?? false,
		annotations: {
			title: spec.title,
			readOnlyHint: !spec.mutates,
			destructiveHint: spec.mutates && (spec.destructive ?? false),
			idempotentHint: !spec.mutates || (spec.idempotent ?? false),
			openWorldHint: false,
		},
		argDocs: spec.argDocs as Record<string, string>,
		access: spec.visibility === undefined || spec.visibility === "agent" ? (spec.access ?? {}) : {},
		actors: spec.actors ?? [],
		namedByCaller: spec.namedByCaller ?? [],
		ownId: spec.ownId,
		reads: spec.reads,
	};
}

export const TOOLS: readonly Tool[] = SPECS.map((s) => build(s as ToolSpec));

/** What agents see: tools/list, the manifest, tools.schema.json. */
export const AGENT_TOOLS: readonly Tool[] = TOOLS.filter((t) => t.visibility === "agent");
/** The operator's own tools, documented in a section of their own. */
export const OPERATOR_TOOLS: readonly Tool[] = TOOLS.filter((t) => t.visibility === "operator");

/** The tools a role's capability may call (what its tools/list shows). */
export const toolsFor = (role: string): Tool[] =>
	AGENT_TOOLS.filter((t) => t.access === "every" || Object.hasOwn(t.access, role));

export type { Access, Reads, Role };

const BY_NAME = new Map<string, Tool>(TOOLS.map((t) => [t.name, t]));

export const findTool = (name: string): Tool | undefined => BY_NAME.get(name);

export const familyArea = (family: Family) => FAMILIES[family];

/** The names of an input schema's arguments, in declaration order. */
export const argNames = (t: Tool): string[] =>
	(t.input as unknown as { props: { key: string }[] }).props.map((p) => p.key);

type JsonSchema = { properties?: Record<string, Record<string, unknown>>; [k: string]: unknown };

/** JSON Schema 2020-12 for a tool's input and output, built from its arktype types. */
export function buildJsonSchemas(t: Tool): { input: JsonSchema; output: JsonSchema } {
	const input = t.input.toJsonSchema() as JsonSchema;
	// Argument docs become property descriptions.
	for (const [key, prop] of Object.entries(input.properties ?? {})) {
		const doc = t.argDocs[key];
		if (doc) prop.description = doc;
	}
	return { input, output: t.output.toJsonSchema() as JsonSchema };
}

/** SCHEMAS_FILE's text: every tool's JSON Schemas, by name, in registry order. */
export const schemasJson = (): string =>
	`${JSON.stringify(Object.fromEntries(TOOLS.map((t) => [t.name, buildJsonSchemas(t)])), null, "\t")}\n`;

/** Where `npm run docs` writes schemasJson(), beside this file. */
export const SCHEMAS_FILE = "schemas.json";

let generated: Record<string, { input: JsonSchema; output: JsonSchema }> | undefined;

/**
 * A tool's JSON Schemas (what buildJsonSchemas makes), read from the file `npm run docs` generates
 * (a test fails while it is stale). Building them here instead would cost a process that lists the
 * tools ~50 MB for as long as it runs: arktype keeps every node it ever built, and tools/list needs
 * every tool's input schema, tools.schema.json every output record's too.
 */
export function jsonSchemas(t: Tool): { input: JsonSchema; output: JsonSchema } {
	// A literal path, so `bun build --compile` embeds the file; loaded on first use only.
	generated ??= require("./schemas.json") as NonNullable<typeof generated>;
	const schemas = generated[t.name];
	if (!schemas)
		throw new Error(`src/registry/${SCHEMAS_FILE} has no ${t.name}: regenerate it with npm run docs`);
	return schemas;
}
