// call(tool, args, ctx): find the tool, check who may call it, validate, route by the switch to its
// family's function, record refusals. Every transport comes through here. A call's database work is
// one transaction; a mutation's idempotency key (src/idempotency.ts) is checked and stored inside
// that same transaction, beside the events it appends.

import * as patch from "./apply/index.ts";
import { withRepository } from "./apply/recover.ts";
import * as human from "./approvals/index.ts";
import * as briefing from "./briefing/index.ts";
import * as resources from "./claims/index.ts";
import * as config from "./config-sync.ts";
import { type AgentPrincipal, type CallContext, type Caller, systemContext } from "./context.ts";
import { clip, didYouMean, quoted, suggestion } from "./domain/text.ts";
import { asToolError, invalidArgument, notFound, ToolError } from "./errors.ts";
import type { Env } from "./handlers/env.ts";
import type { DirectHandler, MutationHandler, Prepare, PreparedRun, TxHandler } from "./handlers/types.ts";
import { runInTransaction, runMutation } from "./idempotency.ts";
import * as memory from "./memory.ts";
import * as channels from "./messages/channels.ts";
import * as messages from "./messages/index.ts";
import * as promotions from "./messages/promote.ts";
import * as peers from "./peers/index.ts";
import * as decisions from "./proposals/decisions.ts";
import * as proposals from "./proposals/index.ts";
import * as votes from "./proposals/votes.ts";
import { findTool, type Result, TOOLS, type Tool, type ToolName } from "./registry/index.ts";
import { validateArgs } from "./registry/validate.ts";
import * as repo from "./repo/index.ts";
import * as chair from "./runs/chair-steps.ts";
import * as runs from "./runs/index.ts";
import type { Runtime } from "./runtime.ts";
import * as security from "./security/index.ts";
import { aRole, authorize } from "./sessions/access.ts";
import * as agents from "./sessions/agents.ts";
import { Denials } from "./sessions/denials.ts";
import * as sessions from "./sessions/index.ts";
import type { Tx } from "./store/index.ts";
import * as table from "./table.ts";
import * as tasks from "./tasks.ts";
import * as tests from "./test-runs/index.ts";
import * as turns from "./turns/index.ts";
import { nowIso } from "./vocabulary/ids.ts";
import * as workspaces from "./workspaces/index.ts";

// Past route(), a handler is called with arguments the registry validated against its own tool's
// schema: its types were checked where route() pairs it with its name.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Erased<F> = F extends (...args: infer A) => infer R ? (...args: { [K in keyof A]: any }) => R : never;

type Handler = (
	| { kind: "tx"; run: Erased<TxHandler<ToolName>> }
	| { kind: "direct"; run: Erased<DirectHandler<ToolName>> }
	| { kind: "mutation"; run: Erased<MutationHandler<ToolName>> }
	| {
			kind: "prepared";
			prepare: Erased<Prepare<ToolName, unknown>>;
			run: Erased<PreparedRun<ToolName, unknown>>;
	  }
) & {
	/**
	 * Reads repository files (the prepare phase of a prepared handler) or the transaction table:
	 * it does so holding the repository lock shared, after any interrupted apply was settled.
	 */
	readsRepo?: true;
};

// Each takes the tool's name (narrowed by the switch's case) so its handler is checked against the
// arguments and result that tool declares.
const inTx = <N extends ToolName>(_: N, run: TxHandler<N>): Handler => ({
	kind: "tx",
	run: run as Erased<TxHandler<ToolName>>,
});
const direct = <N extends ToolName>(_: N, run: DirectHandler<N>): Handler => ({
	kind: "direct",
	run: run as Erased<DirectHandler<ToolName>>,
});
const mutation = <N extends ToolName>(_: N, run: MutationHandler<N>): Handler => ({
	kind: "mutation",
	run: run as unknown as Erased<MutationHandler<ToolName>>,
});
const prepared = <N extends ToolName, P>(_: N, prepare: Prepare<N, P>, run: PreparedRun<N, P>): Handler => ({
	kind: "prepared",
	prepare: prepare as Erased<Prepare<ToolName, unknown>>,
	run: run as Erased<PreparedRun<ToolName, unknown>>,
});
const readsRepo = (h: Handler): Handler => ({ ...h, readsRepo: true });

const routes = new Map<ToolName, Handler>();

/** The handler of a tool, made once per tool name (see routeOnce). */
export function route(name: ToolName): Handler {
	let handler = routes.get(name);
	if (!handler) {
		handler = routeOnce(name);
		routes.set(name, handler);
	}
	return handler;
}

/** The one switch. It lists every registry name, and `never` below proves it lists them all. */
function routeOnce(name: ToolName): Handler {
	switch (name) {
		case "table.get_state":
			return readsRepo(inTx(name, table.getState));
		case "table.watch":
			return direct(name, table.watch);

		case "agent.turn_request":
			return inTx(name, turns.request);
		case "agent.turn_start":
			return inTx(name, turns.start);
		case "agent.turn_complete":
			return inTx(name, turns.complete);
		case "turn.queue":
			return inTx(name, turns.queue);

		case "task.create":
			return inTx(name, tasks.create);
		case "task.get":
			return inTx(name, tasks.get);
		case "task.list":
			return inTx(name, tasks.list);
		case "task.update_status":
			return inTx(name, tasks.updateStatus);

		case "repo.read_file":
			return readsRepo(direct(name, repo.readFile));
		case "repo.search":
			return readsRepo(direct(name, repo.search));
		case "repo.symbols":
			return readsRepo(direct(name, repo.symbols));
		case "repo.dependency_context":
			return readsRepo(direct(name, repo.dependencyContext));

		case "resource.claim":
			return readsRepo(prepared(name, resources.prepareClaim, resources.claim));
		case "resource.claim_status":
			return readsRepo(prepared(name, resources.prepareStatus, resources.claimStatus));
		case "resource.get":
			return inTx(name, resources.get);
		case "resource.release":
			return inTx(name, resources.release);
		case "resource.search":
			return inTx(name, resources.search);
		case "resource.renew":
			return readsRepo(prepared(name, resources.prepareRenew, resources.renew));
		case "resource.revoke":
			return inTx(name, resources.revoke);
		case "resource.expire":
			return inTx(name, resources.expire);

		case "proposal.create":
			return readsRepo(prepared(name, proposals.preparePatch, proposals.create));
		case "proposal.attach_patch":
			return readsRepo(prepared(name, proposals.preparePatch, proposals.attachPatch));
		case "proposal.get":
			return direct(name, proposals.get);
		case "proposal.list":
			return inTx(name, proposals.list);
		case "proposal.revisions":
			return direct(name, proposals.revisions);
		case "proposal.request_review":
			return readsRepo(prepared(name, proposals.prepareReview, proposals.requestReview));
		case "proposal.withdraw":
			return inTx(name, proposals.withdraw);
		case "vote.cast":
			return inTx(name, votes.cast);
		case "vote.list":
			return inTx(name, votes.list);
		case "decision.record":
			return inTx(name, decisions.record);
		case "workspace.diff":
			return direct(name, workspaces.diff);
		case "workspace.propose":
			return readsRepo(prepared(name, workspaces.preparePropose, workspaces.propose));
		case "workspace.sync":
			return readsRepo(prepared(name, workspaces.prepareSync, workspaces.sync));

		case "patch.validate":
			return readsRepo(direct(name, patch.validate));
		case "patch.reject":
			return inTx(name, patch.reject);
		case "patch.apply":
			return mutation(name, patch.apply);
		case "patch.rollback":
			return mutation(name, patch.rollback);
		case "patch.recover":
			return mutation(name, patch.recover);

		case "human.request_approval":
			return inTx(name, human.requestApproval);
		case "human.approval_status":
			return inTx(name, human.approvalStatus);
		case "human.decide":
			return inTx(name, human.decide);
		case "security.review":
			return readsRepo(prepared(name, security.prepareReview, security.review));

		case "test.suggest":
			return readsRepo(direct(name, tests.suggest));
		case "test.run":
			return mutation(name, tests.run);
		case "test.get_result":
			return direct(name, tests.getResult);
		case "test.list":
			return inTx(name, tests.list);
		case "test.evidence.submit":
			return inTx(name, tests.evidenceSubmit);
		case "test.sweep_interrupted":
			return mutation(name, tests.sweepInterrupted);

		case "memory.query":
			return inTx(name, memory.query);
		case "memory.record":
			return inTx(name, memory.record);
		case "memory.summarize":
			return inTx(name, memory.summarize);
		case "memory.mark_stale":
			return inTx(name, memory.markStale);

		case "session.register":
			return inTx(name, sessions.register);
		case "session.heartbeat":
			return inTx(name, sessions.heartbeat);
		case "session.end":
			return inTx(name, sessions.end);
		case "agent.enable":
			return inTx(name, agents.enable);
		case "agent.disable":
			return inTx(name, agents.disable);
		case "session.mint":
			return inTx(name, sessions.mint);
		case "session.start":
			return mutation(name, sessions.start);
		case "session.list":
			return direct(name, sessions.list);
		case "session.transcript":
			return direct(name, sessions.transcript);
		case "session.stop":
			return mutation(name, sessions.stop);
		case "session.revoke":
			return inTx(name, sessions.revoke);
		case "session.record_denial":
			return inTx(name, sessions.recordDenial);
		case "session.close":
			return inTx(name, sessions.close);
		case "session.touch":
			return inTx(name, sessions.touch);
		case "session.supervision":
			return inTx(name, sessions.supervision);
		case "session.egress_refused":
			return inTx(name, sessions.egressRefused);

		case "run.open":
			return inTx(name, runs.open);
		case "run.stop":
			return mutation(name, runs.stop);
		case "chair.expire":
			return inTx(name, chair.expire);
		case "chair.assign_tasks":
			return inTx(name, chair.assignTasks);
		case "chair.schedule_turn":
			return inTx(name, chair.scheduleTurn);
		case "chair.request_reviews":
			return readsRepo(prepared(name, chair.prepareReviews, chair.requestReviews));
		case "chair.launch_sessions":
			return readsRepo(prepared(name, chair.prepareLaunches, chair.launchSessions));
		case "run.converge":
			return inTx(name, runs.converge);
		case "chair.report_error":
			return inTx(name, chair.reportError);
		case "run.tick_failed":
			return inTx(name, runs.tickFailed);

		case "peer.list":
			return inTx(name, peers.list);
		case "peer.ask":
			return inTx(name, peers.ask);
		case "peer.request":
			return inTx(name, peers.request);
		case "peer.answer":
			return inTx(name, peers.answer);
		case "peer.wait":
			return direct(name, peers.wait);
		case "peer.cancel":
			return inTx(name, peers.cancel);
		case "peer.reply_late":
			return inTx(name, peers.replyLate);
		case "message.post":
			return inTx(name, messages.post);
		case "message.inbox":
			return direct(name, messages.inbox);
		case "message.mark_read":
			return inTx(name, messages.markRead);
		case "channel.list":
			return inTx(name, channels.list);
		case "channel.messages":
			return inTx(name, channels.messages);
		case "message.promote":
			return inTx(name, messages.promote);
		case "promotion.list":
			return inTx(name, promotions.list);
		case "peer.questions":
			return inTx(name, peers.questions);
		case "message.list":
			return inTx(name, messages.list);
		case "agent.brief":
			return readsRepo(direct(name, briefing.brief));

		case "config.sync_agents":
			return inTx(name, config.syncAgents);
		case "config.record_reload":
			return inTx(name, config.recordReload);

		default: {
			const unreachable: never = name;
			throw new ToolError("internal", `no handler for tool ${String(unreachable)}`);
		}
	}
}

/**
 * Calls a tool. Resolves with its result object or rejects with a ToolError. Called with a tool's
 * name, it resolves with the result type the registry declares for it; the arguments are checked at
 * run time (they come from flags and frames), the results by the types of the handlers.
 */
export function call<N extends ToolName>(
	rt: Runtime,
	name: N,
	rawArgs: unknown,
	ctx: CallContext,
): Promise<Result<N>>;
export function call(rt: Runtime, name: string, rawArgs: unknown, ctx: CallContext): Promise<object>;
export async function call(rt: Runtime, name: string, rawArgs: unknown, ctx: CallContext): Promise<object> {
	try {
		const tool = findTool(name);
		if (!tool) {
			const near = didYouMean(
				name,
				TOOLS.filter((t) => !refusal(t, ctx)).map((t) => t.name),
			);
			throw notFound(`unknown tool ${quoted(name)}${suggestion(near)}`, {
				tool: clip(name),
				...(near && { did_you_mean: near }),
			});
		}
		mayCall(tool, ctx);
		const who = ctx.principal;
		const validated = validateArgs(
			tool,
			who.kind === "agent" ? withActors(tool, rawArgs, who.agent_id) : rawArgs,
		);
		for (const field of who.kind === "agent" ? [] : tool.namedByCaller)
			if (validated[field] === undefined)
				throw invalidArgument(`missing required argument '${field}': name who acts`, { field });
		if (ctx.signal.aborted) throw new ToolError("cancelled", "the call was cancelled before it started");
		// A capability's call passes the access check first: the one place it is made.
		const { args, reads } =
			who.kind === "agent"
				? await rt.store.withTransaction("read", (tx) => authorize(tx, tool, validated, who, nowIso()))
				: { args: validated, reads: undefined };
		const env = (): Env => ({ rt, ctx, now: nowIso(), ...(reads && { reads }) });
		const handler = route(tool.name);
		const locked = <T>(fn: () => Promise<T>) => (handler.readsRepo ? withRepository(rt, "shared", fn) : fn());
		switch (handler.kind) {
			case "direct":
				// A mutating tool is routed as a mutation; the registry test holds every route to that.
				if (tool.mutates) throw new ToolError("internal", `${tool.name} mutates but is routed as a read`);
				return await locked(() => handler.run(args, env()));
			case "mutation":
				return await runMutation(rt, tool, handler.run, args, env);
			case "tx":
				// A read that reads no repository files goes straight into its read transaction.
				if (!tool.mutates && !handler.readsRepo)
					return await rt.store.withTransaction("read", (tx) => handler.run(tx, args, env()));
				return await locked(() => runInTransaction(rt, tool, handler.run, args, env));
			case "prepared": {
				const ready = await locked(() => handler.prepare(args, env()));
				return await runInTransaction(
					rt,
					tool,
					(tx: Tx, a: unknown, e: Env) => handler.run(tx, a, e, ready),
					args,
					env,
				);
			}
		}
	} catch (err) {
		const e = asToolError(err);
		if (ctx.principal.kind === "agent" && (e.code === "permission_denied" || e.code === "unauthenticated"))
			await recordDenial(rt, ctx.principal, name, e);
		throw e;
	}
}

/**
 * A capability's call with its actor arguments filled in where left out: the capability says who
 * acts (authorize() refuses any other name), so the agent never has to.
 */
function withActors(tool: Tool, raw: unknown, agentId: string): unknown {
	if (raw === undefined || raw === null) raw = {};
	if (typeof raw !== "object" || Array.isArray(raw) || tool.actors.length === 0) return raw;
	const args = { ...(raw as Record<string, unknown>) };
	for (const field of tool.actors) if (!Object.hasOwn(args, field)) args[field] = agentId;
	return args;
}

/** The calls of one project, for the transports: they get this, never the Runtime. */
export const callerOf =
	(rt: Runtime): Caller =>
	(tool, args, ctx) =>
		call(rt, tool, args, ctx);

const denials = new WeakMap<Runtime, Denials>();

/** A refused call becomes a call.denied event (see src/sessions/denials.ts); recording never fails the call. */
async function recordDenial(rt: Runtime, who: AgentPrincipal, tool: string, err: ToolError): Promise<void> {
	let d = denials.get(rt);
	if (!d) {
		d = new Denials();
		denials.set(rt, d);
	}
	const denial = d.next(who, tool, err);
	if (!denial) return;
	await call(rt, "session.record_denial", denial, systemContext()).catch(() => {});
}

/** Why the caller may not call the tool, by its visibility; undefined when it may. */
function refusal(tool: Tool, ctx: CallContext): string | undefined {
	const who = ctx.principal;
	if (tool.visibility === "operator" && who.kind !== "operator")
		return `${tool.name} is for the operator only`;
	if (tool.visibility === "internal" && who.kind !== "chair" && who.kind !== "system")
		return `${tool.name} is internal: only the Chair and the owner's own upkeep call it`;
	if (who.kind === "agent" && tool.access !== "every" && !Object.hasOwn(tool.access, who.role))
		return `${aRole(who.role)} may not call ${tool.name}`;
	return undefined;
}

function mayCall(tool: Tool, ctx: CallContext): void {
	const why = refusal(tool, ctx);
	if (why) throw new ToolError("permission_denied", why, { tool: tool.name });
}
