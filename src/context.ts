// Who is calling and how. Every tool call gets one; transports build it, tools read it.

export type Principal =
	| { kind: "operator" }
	// A capability resolves to an agent principal: its session, and what that session is bound to.
	| AgentPrincipal
	// The Chair loop acting on its own: it may do what the loop needs, never what only a human may.
	| { kind: "chair"; agent_id: string }
	// The owner's own upkeep: config sync, the reload watcher, the start-up sweeps and recovery.
	| { kind: "system" };

export interface AgentPrincipal {
	kind: "agent";
	agent_id: string;
	role: string;
	session_id: string;
	/** When its capability lapses (ISO time), if it does. */
	expires_at?: string;
	task_id?: string;
	proposal_id?: string;
	run_id?: string;
}

/** One call of a tool as the owner makes it: what a transport turns each frame into. */
export type Caller = (tool: string, args: unknown, ctx: CallContext) => Promise<object>;

export type Transport = "cli" | "http" | "stdio" | "socket" | "internal";

export interface CallContext {
	principal: Principal;
	transport: Transport;
	/** Aborted on MCP cancellation, session end or client disconnect. */
	signal: AbortSignal;
	/** Reaches MCP progress notifications where the transport has them. */
	progress: (done: number, total?: number, message?: string) => void;
}

/** The operator calling from this process: the CLI, tests, benchmarks. */
export function operatorContext(transport: Transport = "cli", signal?: AbortSignal): CallContext {
	return {
		principal: { kind: "operator" },
		transport,
		signal: signal ?? new AbortController().signal,
		progress: () => {},
	};
}

/** The id that events record as the actor of a call made without an agent identity. */
export const actorId = (ctx: CallContext): string =>
	ctx.principal.kind === "operator" || ctx.principal.kind === "system"
		? ctx.principal.kind
		: ctx.principal.agent_id;

/** The Chair's calls through the dispatcher. */
export const chairContext = (agentId: string): CallContext => ({
	...operatorContext("internal"),
	principal: { kind: "chair", agent_id: agentId },
});

/** The owner's own upkeep through the dispatcher (internal tools); events record `system`. */
export const systemContext = (): CallContext => ({
	...operatorContext("internal"),
	principal: { kind: "system" },
});
