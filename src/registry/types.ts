import type { Type } from "../vocabulary/arktype.ts";

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
	peers: "peers: questions, messages, channels and the briefing",
	sessions: "agents and their sessions",
	runs: "runs and the Chair's work",
	config: "configuration",
	workspaces: "an agent's workspace: what it changed, proposed",
} as const;

export type Family = keyof typeof FAMILIES;

/**
 * Who sees and calls a tool. `agent`: every caller; listed in tools/list and the docs. `operator`:
 * the operator only (the CLI); in docs/tools.md in a section of its own, never in tools/list.
 * `internal`: the Chair and the owner's own upkeep (sweeps, recovery, config sync); never listed.
 */
export type Visibility = "agent" | "operator" | "internal";

/** The roles a capability acts in (an agent's `role` in the config). */
export const ROLES = [
	"Implementer",
	"Reviewer",
	"Tester",
	"Security",
	"Architect",
	"MemoryOracle",
	"Chair",
] as const;
export type Role = (typeof ROLES)[number];

/** What a role's capability must carry for a tool: its assigned task, the one proposal it reviews, or its run. */
export type Binding = "task" | "proposal" | "run";

/** What one role may do with a tool. */
export interface Grant {
	/** The capability must be bound to one of these; a call stays inside whatever it is bound to, always. */
	bound?: Binding;
	/** Arguments the role must give (a tester's test.run names its proposal). */
	needs?: readonly string[];
	/** The values the role may give an argument; none listed: it may not give that argument at all. */
	only?: Readonly<Record<string, readonly (string | boolean)[]>>;
	/** Arguments (lists of readable paths or globs) that must lie inside the scope of the run it is bound to. */
	inRunScope?: readonly string[];
}

/**
 * Who may call a tool with a capability. `every`: any role, bound to nothing (the shared reads).
 * Otherwise the roles listed, each with its grant; a role not listed, and every role for a tool
 * without `access`, is refused. The operator is never limited by this.
 */
export type Access = "every" | Partial<Record<Role, Grant>>;

/**
 * The roles that work on a task's files: the implementer on its task, the proposal's reviewers,
 * tester and security on its task too, and the architect and memory oracle wherever they are bound.
 * Repository reads and claims are theirs.
 */
export const WORKERS = {
	Implementer: { bound: "task" },
	Reviewer: { bound: "proposal" },
	Tester: { bound: "proposal" },
	Security: { bound: "proposal" },
	Architect: {},
	MemoryOracle: {},
} as const satisfies Access;

/** Who may see whether a proposal can be applied: its author's role and those who review it. */
const { MemoryOracle: _memoryOracle, ...reviewersAndAuthor } = WORKERS;
export const REVIEWERS_AND_AUTHOR: Access = reviewersAndAuthor;

/**
 * What repository content an agent's call may see. `claimed`: paths inside its task's
 * readable_paths that it holds an active claim on (repo reads). `readable`: inside readable_paths
 * (what a claim hashes).
 */
export type Reads = "claimed" | "readable";

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
	/**
	 * The tool's own arguments; the registry adds idempotency_key / expected_revision. A thunk:
	 * schemas are built on first use, so a command that calls one tool builds one.
	 */
	args: () => Type<I>;
	/**
	 * What each argument is for in this tool, for tools/list and docs (validation messages use the
	 * scalar's own text). Every argument has one; a test checks the common ones are there too.
	 */
	argDocs: { [K in keyof I & string]-?: string } & CommonArgDocs;
	output: () => Type<O>;
	/** Who may call it with a capability (default: no agent). */
	access?: Access;
	/**
	 * Arguments naming who acts: with a capability they must be the caller, are filled in when left
	 * out, and are not shown in its tools/list.
	 */
	actors?: readonly string[];
	/**
	 * Actors the schema leaves optional only because the seed does (its required arguments stay
	 * the seed's): every other caller must still name them.
	 */
	namedByCaller?: readonly string[];
	/** The argument that names the record the call creates (not one it refers to), if any. */
	ownId?: string;
	/** Repository content the call shows an agent. */
	reads?: Reads;
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
