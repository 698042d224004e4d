import type { Type } from "arktype";

export const FAMILIES = {
	table: "the table: state and watch",
	turns: "turns and the Chair",
	tasks: "tasks",
	repo: "repository reads",
	resources: "claims and resources",
	proposals: "proposals, votes, decisions and patches",
	governance: "human approvals and security review",
	tests: "tests and evidence",
	memory: "memory",
	sessions: "agents and their sessions",
	runs: "runs and the Chair's work",
	config: "configuration",
} as const;

export type Family = keyof typeof FAMILIES;

/**
 * Who sees and calls a tool. `agent`: every caller; listed in tools/list and the docs. `operator`:
 * the operator only (the CLI); in docs/tools.md in a section of its own, never in tools/list.
 * `internal`: the Chair and the owner's own upkeep (sweeps, recovery, config sync); never listed.
 */
export type Visibility = "agent" | "operator" | "internal";

/** Docs for the arguments the registry adds: what a retry or a stale revision means for this tool. */
export interface CommonArgDocs {
	idempotency_key?: string;
	expected_revision?: string;
}

/** What one family file declares for one tool. */
export interface ToolSpec<N extends string = string, I extends object = object, O extends object = object> {
	name: N;
	family: Family;
	/** Default `agent`. */
	visibility?: Visibility;
	title: string;
	/** For agents, briefly: what it does, when to call it, and what usually comes next. */
	description: string;
	/** The fuller account for docs/tools.md and tools.schema.json; tools/list has no room for it. */
	details: string;
	/** The tool's own arguments; the registry adds idempotency_key / expected_revision. */
	args: Type<I>;
	/**
	 * What each argument is for in this tool, for tools/list and docs (validation messages use the
	 * scalar's own text). Every argument has one; a test checks the common ones are there too.
	 */
	argDocs: { [K in keyof I & string]-?: string } & CommonArgDocs;
	output: Type<O>;
	/** Changes state, so it takes `idempotency_key` and appends events. */
	mutates: boolean;
	/** Changes an existing record, so it takes `expected_revision`. */
	updates?: boolean;
	/** MCP hints for mutating tools; read-only tools are neither. */
	destructive?: boolean;
	idempotent?: boolean;
}

/** Keeps the literal tool name so the dispatcher's switch can be checked for exhaustiveness. */
export const tool = <const N extends string, I extends object, O extends object>(spec: ToolSpec<N, I, O>) =>
	spec;
