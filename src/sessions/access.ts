// The check every call made with a capability passes in call(), before its handler runs: the
// session still stands, the role may call the tool (the registry's `access`), actor arguments are
// the caller's own, and whatever the call names (a task, a proposal, a run, a claim, a test run,
// an approval) is inside what the capability is bound to. It also says what repository content the
// call may show. Refusals are permission_denied (or unauthenticated for a capability that lapsed).
import type { AgentPrincipal } from "../context.ts";
import { parseCanonicalId } from "../domain/claims.ts";
import { checkReadablePaths, insideScope } from "../domain/paths.ts";
import type { ReadScope } from "../domain/read-scope.ts";
import { readRefusal } from "../domain/read-scope.ts";
import { echo } from "../domain/text.ts";
import { ToolError } from "../errors.ts";
import type { Tool } from "../registry/index.ts";
import type { Grant } from "../registry/types.ts";
import type { Tx } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";
import type { ProposalRecord } from "../vocabulary/records.ts";
import { lapsed } from "./capability.ts";

export interface Authorized {
	/** The arguments, with the caller filled in as the actor where the tool has one left out. */
	args: Record<string, unknown>;
	/** What repository content the call may show; undefined for tools that show none. */
	reads?: ReadScope;
}

/** "an Implementer", "a Reviewer". */
export const aRole = (role: string) =>
	role === "" ? "a capability without a role" : `${/^[AEIOU]/.test(role) ? "an" : "a"} ${role}`;

const deny = (message: string, details: Record<string, unknown> = {}) =>
	new ToolError("permission_denied", message, details);

/** The session behind an agent principal, if it still stands; throws why not. */
export async function liveSession(tx: Tx, who: AgentPrincipal, now: string): Promise<SessionRow> {
	const session = await tx.sessions.get(who.session_id);
	if (!session || session.agent_id !== who.agent_id)
		throw new ToolError("unauthenticated", `session ${who.session_id} is not a session of ${who.agent_id}`);
	const gone = lapsed(session, now);
	if (gone) throw new ToolError("unauthenticated", gone, { session_id: session.id });
	if (session.status === "ended") throw deny(`session ${session.id} has ended`, { session_id: session.id });
	const agent = await tx.agents.get(session.agent_id);
	if (!agent?.enabled) throw deny(`agent ${session.agent_id} is disabled`, { agent_id: session.agent_id });
	if (session.run_id !== null) {
		const run = await tx.runs.get(session.run_id);
		if (run?.status !== "active")
			throw deny(`run ${session.run_id} is ${run?.status ?? "gone"}, not active`, { run_id: session.run_id });
	}
	return session;
}

/** What a capability is bound to, with the task a proposal belongs to. */
interface Bound {
	task: string | null;
	proposal: string | null;
	/** The bound proposal's task (a reviewer's reads and claims are on it). */
	proposalTask: string | null;
	run: string | null;
}

const boundText = (b: Bound) =>
	b.proposal !== null ? `proposal ${b.proposal}` : b.task !== null ? `task ${b.task}` : `run ${b.run}`;

/** Checks that everything the call names lies inside the binding; named records that are gone are refused. */
class Scope {
	constructor(
		private readonly tx: Tx,
		private readonly b: Bound,
		private readonly now: string,
	) {}

	private get binds() {
		return this.b.task !== null || this.b.proposal !== null || this.b.run !== null;
	}

	private outside(field: string, what: string) {
		return deny(`${field} names ${what}, which is outside this capability (bound to ${boundText(this.b)})`, {
			field,
		});
	}

	async run(field: string, id: string) {
		if (this.b.run !== null && id !== this.b.run) throw this.outside(field, `run ${echo(id)}`);
	}

	async task(field: string, id: string) {
		if (!this.binds) return;
		const home = this.b.task ?? this.b.proposalTask;
		if (home !== null) {
			if (id !== home) throw this.outside(field, `task ${echo(id)}`);
			return;
		}
		const task = await this.tx.tasks.get(id);
		if (task?.run_id !== this.b.run) throw this.outside(field, `task ${echo(id)}`);
	}

	async proposal(field: string, id: string) {
		if (!this.binds) return;
		if (this.b.proposal !== null) {
			if (id !== this.b.proposal) throw this.outside(field, `proposal ${echo(id)}`);
			return;
		}
		const p = await this.tx.proposals.get(id);
		if (!p) throw this.outside(field, `proposal ${echo(id)}`);
		if (this.b.task !== null) {
			if (p.task_id !== this.b.task) throw this.outside(field, `proposal ${echo(id)}`);
			return;
		}
		const run =
			p.run_id ?? (p.task_id === null ? null : ((await this.tx.tasks.get(p.task_id))?.run_id ?? null));
		if (run !== this.b.run) throw this.outside(field, `proposal ${echo(id)}`);
	}

	async claim(field: string, id: string) {
		if (!this.binds) return;
		const c = await this.tx.claims.get(id, this.now);
		if (!c) throw this.outside(field, `claim ${echo(id)}`);
		await this.task(field, c.task_id);
	}

	async testRun(field: string, id: string) {
		if (!this.binds) return;
		const r = await this.tx.testRuns.get(id);
		if (!r) throw this.outside(field, `test run ${echo(id)}`);
		if (r.proposal_id !== null) await this.proposal(field, r.proposal_id);
		else if (r.task_id !== null) await this.task(field, r.task_id);
		else throw this.outside(field, `test run ${echo(id)} of no task`);
	}

	async approval(field: string, id: string) {
		if (!this.binds) return;
		const a = await this.tx.approvals.get(id);
		if (!a) throw this.outside(field, `approval ${echo(id)}`);
		if (a.proposal_id !== null) await this.proposal(field, a.proposal_id);
		else if (a.task_id !== null) await this.task(field, a.task_id);
	}
}

/** The arguments that refer to existing records, by the kind of record. */
const REFERENCES = {
	run_id: "run",
	task_id: "task",
	proposal_id: "proposal",
	claim_id: "claim",
	test_run_id: "testRun",
	approval_id: "approval",
} as const;

function checkGrant(tool: Tool, grant: Grant, args: Record<string, unknown>, role: string) {
	for (const field of grant.needs ?? []) {
		if (args[field] === undefined)
			throw deny(`${aRole(role)} calls ${tool.name} with ${field}`, { field, tool: tool.name });
	}
	for (const [field, allowed] of Object.entries(grant.only ?? {})) {
		const value = args[field];
		if (value === undefined || allowed.includes(value as string | boolean)) continue;
		throw deny(
			allowed.length === 0
				? `${aRole(role)} may not give ${field} to ${tool.name}`
				: `${aRole(role)} may give ${field} only as ${allowed.join(", ")} to ${tool.name}`,
			{ field, tool: tool.name },
		);
	}
}

/** Each path or glob of `fields` lies inside the bound run's scope (what a role may ask to be read). */
async function checkRunScope(
	tx: Tx,
	fields: readonly string[],
	args: Record<string, unknown>,
	runId: string,
) {
	const run = await tx.runs.get(runId);
	const scope = run?.scope ?? [];
	for (const field of fields) {
		const given = args[field];
		if (!Array.isArray(given)) continue;
		checkReadablePaths(given as string[], field).forEach((p, i) => {
			if (!insideScope(p, scope))
				throw deny(
					`${field}[${i}] ${echo(p)} is outside run ${runId}'s scope (${scope.join(", ")}): name folders, files or globs below one of them`,
					{ field: `${field}[${i}]`, scope },
				);
		});
	}
}

/** The path a claim on a file, directory or symbol names, repo-relative; undefined for other resources. */
function claimedPath(args: Record<string, unknown>): string | undefined {
	if (!["file", "directory", "symbol"].includes(args.resource_type as string)) return undefined;
	const named =
		typeof args.path === "string" ? args.path : parseCanonicalId(args.resource_id as string)?.path;
	return named?.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
}

export async function authorize(
	tx: Tx,
	tool: Tool,
	given: Record<string, unknown>,
	who: AgentPrincipal,
	now: string,
): Promise<Authorized> {
	const session = await liveSession(tx, who, now);
	const role = session.role ?? who.role;
	const args = { ...given };
	// Actor arguments are the caller's own for every tool, those every role may call included (the
	// peer tools): a capability never acts as another agent.
	for (const field of tool.actors) {
		if (args[field] === undefined) args[field] = session.agent_id;
		else if (args[field] !== session.agent_id)
			throw deny(`${field} must be you (${session.agent_id}), not ${echo(String(args[field]))}`, { field });
	}
	const proposal = session.proposal_id === null ? undefined : await tx.proposals.get(session.proposal_id);
	// The shared tools take no grant; those that show repository content still show it in scope.
	if (tool.access === "every")
		return { args, reads: await readScope(tx, tool, args, session, proposal, now) };
	const grant = Object.hasOwn(tool.access, role) ? (tool.access as Record<string, Grant>)[role] : undefined;
	// call() refuses a role without a grant before this; the check stays so authorize stands alone.
	if (!grant) throw deny(`${aRole(role)} may not call ${tool.name}`, { tool: tool.name });

	checkGrant(tool, grant, args, role);

	const bound: Bound = {
		task: session.task_id,
		proposal: session.proposal_id,
		proposalTask: proposal?.task_id ?? null,
		run: session.run_id,
	};
	const need = grant.bound;
	if (need !== undefined && bound[need] === null)
		throw deny(`${tool.name} needs a capability bound to a ${need}; this one is not`, { tool: tool.name });
	if (bound.task !== null) {
		const task = await tx.tasks.get(bound.task);
		if (task?.assigned_agent_id !== session.agent_id)
			throw deny(`task ${bound.task} is no longer assigned to ${session.agent_id}`, { task_id: bound.task });
	}

	const scope = new Scope(tx, bound, now);
	for (const [field, kind] of Object.entries(REFERENCES)) {
		const value = args[field];
		if (typeof value !== "string" || field === tool.ownId) continue;
		await scope[kind](field, value);
	}
	if (grant.inRunScope && bound.run !== null) await checkRunScope(tx, grant.inRunScope, args, bound.run);

	return { args, reads: await readScope(tx, tool, args, session, proposal, now) };
}

/**
 * What repository content the call may show: the bound task's (or bound proposal's task's)
 * readable_paths, the bound proposal's own files, and for repository reads only what the agent's
 * active claims cover. Undefined for a tool that shows none.
 */
async function readScope(
	tx: Tx,
	tool: Tool,
	args: Record<string, unknown>,
	session: { agent_id: string; task_id: string | null },
	proposal: ProposalRecord | undefined,
	now: string,
): Promise<ReadScope | undefined> {
	if (tool.reads === undefined) return undefined;
	const home = session.task_id ?? proposal?.task_id ?? null;
	const task = home === null ? undefined : await tx.tasks.get(home);
	const reads: ReadScope = {
		readable: task?.readable_paths ?? [],
		...(proposal && { proposal: { id: proposal.id, files: proposal.patch_files } }),
	};
	if (tool.reads === "readable") {
		// What a claim reads is the claimed path: it must be readable before anything is hashed.
		const path = tool.name === "resource.claim" ? claimedPath(args) : undefined;
		const why = path === undefined ? undefined : readRefusal(reads, path);
		if (why) throw deny(`cannot claim ${echo(path as string)}: ${why}`, { field: "path" });
		return reads;
	}
	const claims = await tx.claims.activeOf(session.agent_id, now);
	return { ...reads, claimed: claims.map((c) => ({ type: c.resource_type, path: c.path })) };
}
