// call(tool, args, ctx): validate → switch → family → result | ToolError. Every transport comes
// through here. A call's database work is one transaction; a mutation's idempotency key is checked
// and stored inside that same transaction, beside the events it appends.
import { withRepository } from "./apply/recover.ts";
import type { CallContext } from "./context.ts";
import { canonicalJson, sha256 } from "./domain/canonical.ts";
import { nowIso } from "./domain/ids.ts";
import { clip, didYouMean, quoted, suggestion } from "./domain/suggest.ts";
import { asToolError, conflict, notFound, ToolError } from "./errors.ts";
import { findTool, TOOLS, type Tool, type ToolName } from "./registry/index.ts";
import { validateArgs } from "./registry/validate.ts";
import type { Runtime } from "./runtime.ts";
import type { Tx } from "./store/index.ts";
import * as apply from "./tools/apply.ts";
import * as governance from "./tools/governance.ts";
import * as memory from "./tools/memory.ts";
import * as proposals from "./tools/proposals.ts";
import * as repo from "./tools/repo.ts";
import * as resources from "./tools/resources.ts";
import * as table from "./tools/table.ts";
import * as tasks from "./tools/tasks.ts";
import * as tests from "./tools/tests.ts";
import * as turns from "./tools/turns.ts";
import * as validate from "./tools/validate.ts";

/** What a handler gets besides its arguments. `now` is read once, after the transaction began. */
export interface Env {
	rt: Runtime;
	ctx: CallContext;
	now: string;
	/**
	 * Set for a mutating direct handler. It calls `replay` once it holds whatever serializes it (a
	 * retry with the same key gets the first result), and `remember` inside its final write
	 * transaction, so the key is stored beside the events that result produced.
	 */
	replay?: (tx?: Tx) => Promise<object | undefined>;
	remember?: (tx: Tx, result: object) => Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: each handler declares its own Args<N>; the registry validated them.
type AnyArgs = any;

/** Runs inside the call's single transaction. */
export type TxHandler = (tx: Tx, args: AnyArgs, env: Env) => Promise<object>;
/** Manages its own short transactions, for tools that wait or run long. */
export type DirectHandler = (args: AnyArgs, env: Env) => Promise<object>;
/** Reads files first (no transaction open), then commits in the call's single transaction. */
export type Prepare<P> = (args: AnyArgs, env: Env) => Promise<P>;
export type PreparedRun<P> = (tx: Tx, args: AnyArgs, env: Env, prepared: P) => Promise<object>;

type Handler = (
	| { kind: "tx"; run: TxHandler }
	| { kind: "direct"; run: DirectHandler }
	| { kind: "prepared"; prepare: Prepare<unknown>; run: PreparedRun<unknown> }
) & {
	/**
	 * Reads repository files (the prepare phase of a prepared handler) or the transaction table:
	 * it does so holding the repository lock shared, after any interrupted apply was settled.
	 */
	readsRepo?: true;
};

const inTx = (run: TxHandler): Handler => ({ kind: "tx", run });
const direct = (run: DirectHandler): Handler => ({ kind: "direct", run });
const prepared = <P>(prepare: Prepare<P>, run: PreparedRun<P>): Handler => ({
	kind: "prepared",
	prepare,
	run: run as PreparedRun<unknown>,
});
const readsRepo = (h: Handler): Handler => ({ ...h, readsRepo: true });

/** The one switch. It lists every registry name, and `never` below proves it lists them all. */
export function route(name: ToolName): Handler {
	switch (name) {
		case "table.get_state":
			return readsRepo(inTx(table.getState));
		case "table.watch":
			return direct(table.watch);

		case "agent.turn_request":
			return inTx(turns.request);
		case "agent.turn_start":
			return inTx(turns.start);
		case "agent.turn_complete":
			return inTx(turns.complete);

		case "task.create":
			return inTx(tasks.create);
		case "task.get":
			return inTx(tasks.get);
		case "task.list":
			return inTx(tasks.list);
		case "task.update_status":
			return inTx(tasks.updateStatus);

		case "repo.read_file":
			return readsRepo(direct(repo.readFile));
		case "repo.search":
			return readsRepo(direct(repo.search));
		case "repo.symbols":
			return readsRepo(direct(repo.symbols));
		case "repo.dependency_context":
			return readsRepo(direct(repo.dependencies));

		case "resource.claim":
			return readsRepo(prepared(resources.prepareClaim, resources.claim));
		case "resource.claim_status":
			return readsRepo(prepared(resources.prepareStatus, resources.claimStatus));
		case "resource.get":
			return inTx(resources.get);
		case "resource.release":
			return inTx(resources.release);
		case "resource.search":
			return inTx(resources.search);
		case "resource.renew":
			return readsRepo(prepared(resources.prepareRenew, resources.renew));

		case "proposal.create":
			return readsRepo(prepared(proposals.preparePatch, proposals.create));
		case "proposal.attach_patch":
			return readsRepo(prepared(proposals.preparePatch, proposals.attachPatch));
		case "proposal.get":
			return direct(proposals.get);
		case "proposal.list":
			return inTx(proposals.list);
		case "proposal.request_review":
			return readsRepo(prepared(proposals.prepareReview, proposals.requestReview));
		case "proposal.withdraw":
			return inTx(proposals.withdraw);
		case "vote.cast":
			return inTx(proposals.castVote);
		case "vote.list":
			return inTx(proposals.listVotes);
		case "decision.record":
			return inTx(proposals.recordDecision);
		case "patch.validate":
			return readsRepo(direct(validate.validate));
		case "patch.reject":
			return inTx(proposals.reject);
		case "patch.apply":
			return direct(apply.apply);
		case "patch.rollback":
			return direct(apply.rollback);

		case "human.request_approval":
			return inTx(governance.requestApproval);
		case "human.approval_status":
			return inTx(governance.approvalStatus);
		case "security.review":
			return readsRepo(prepared(governance.prepareReview, governance.review));

		case "test.suggest":
			return readsRepo(direct(tests.suggest));
		case "test.run":
			return direct(tests.run);
		case "test.get_result":
			return direct(tests.get);
		case "test.evidence.submit":
			return inTx(tests.submitEvidence);

		case "memory.query":
			return inTx(memory.query);
		case "memory.record":
			return inTx(memory.record);
		case "memory.summarize":
			return inTx(memory.summarize);
		case "memory.mark_stale":
			return inTx(memory.markStale);

		default: {
			const unreachable: never = name;
			throw new ToolError("internal", `no handler for tool ${String(unreachable)}`);
		}
	}
}

/** Calls a tool. Resolves with its result object or rejects with a ToolError. */
export async function call(rt: Runtime, name: string, rawArgs: unknown, ctx: CallContext): Promise<object> {
	try {
		const tool = findTool(name);
		if (!tool) {
			const near = didYouMean(
				name,
				TOOLS.map((t) => t.name),
			);
			throw notFound(`unknown tool ${quoted(name)}${suggestion(near)}`, {
				tool: clip(name),
				...(near && { did_you_mean: near }),
			});
		}
		const args = validateArgs(tool, rawArgs);
		if (ctx.signal.aborted) throw new ToolError("cancelled", "the call was cancelled before it started");
		const handler = route(tool.name);
		const locked = <T>(fn: () => Promise<T>) => (handler.readsRepo ? withRepository(rt, "shared", fn) : fn());
		switch (handler.kind) {
			case "direct":
				return tool.mutates
					? await runDirectMutation(rt, tool, handler.run, args, ctx)
					: await locked(() => handler.run(args, { rt, ctx, now: nowIso() }));
			case "tx":
				return await locked(() => runInTransaction(rt, tool, handler.run, args, ctx));
			case "prepared": {
				const ready = await locked(() => handler.prepare(args, { rt, ctx, now: nowIso() }));
				return await runInTransaction(rt, tool, (tx, a, env) => handler.run(tx, a, env, ready), args, ctx);
			}
		}
	} catch (err) {
		throw asToolError(err);
	}
}

interface Keyed {
	key: string | undefined;
	argsHash: string;
}

function keyOf(args: Record<string, unknown>): Keyed {
	const key = args.idempotency_key as string | undefined;
	const { idempotency_key: _, ...rest } = args;
	return { key, argsHash: key === undefined ? "" : sha256(canonicalJson(rest)) };
}

/** The result a key already stored for this tool, or undefined; other arguments are a conflict. */
async function replay(
	tx: Tx,
	tool: Tool,
	{ key, argsHash }: Keyed,
	now: string,
): Promise<object | undefined> {
	if (key === undefined) return undefined;
	const first = await tx.idempotency.get(tool.name, key, now);
	if (!first) return undefined;
	if (first.args_hash !== argsHash) {
		throw conflict(`idempotency key '${key}' was already used for ${tool.name} with other arguments`, {
			idempotency_key: key,
		});
	}
	return first.result as object;
}

async function store(rt: Runtime, tx: Tx, tool: Tool, { key, argsHash }: Keyed, result: object, now: string) {
	if (key === undefined) return;
	const expires = new Date(Date.parse(now) + rt.config.idempotency.ttl_hours * 3_600_000).toISOString();
	await tx.idempotency.put(tool.name, key, argsHash, result, now, expires);
}

/** Keys of direct mutations running in this process: a retry while the first still runs is a conflict. */
const running = new Set<string>();

/**
 * A mutation that works outside one transaction (patch.apply touches files between its reads and
 * its write; test.run waits for a process).
 */
async function runDirectMutation(
	rt: Runtime,
	tool: Tool,
	run: DirectHandler,
	args: Record<string, unknown>,
	ctx: CallContext,
) {
	const keyed = keyOf(args);
	const slot = keyed.key === undefined ? undefined : `${tool.name}\0${keyed.key}`;
	if (slot !== undefined) {
		if (running.has(slot)) {
			throw conflict(`a ${tool.name} call with idempotency key '${keyed.key}' is still running`, {
				idempotency_key: keyed.key,
			});
		}
		running.add(slot);
	}
	try {
		return await run(args, {
			rt,
			ctx,
			now: nowIso(),
			// Inside the handler's own transaction when it passes one, so the check and its write are atomic.
			replay: (tx) =>
				tx
					? replay(tx, tool, keyed, nowIso())
					: rt.store.withTransaction("read", (t) => replay(t, tool, keyed, nowIso())),
			remember: (tx, result) => store(rt, tx, tool, keyed, result, nowIso()),
		});
	} finally {
		if (slot !== undefined) running.delete(slot);
	}
}

async function runInTransaction(
	rt: Runtime,
	tool: Tool,
	run: TxHandler,
	args: Record<string, unknown>,
	ctx: CallContext,
): Promise<object> {
	if (!tool.mutates)
		return rt.store.withTransaction("read", (tx) => run(tx, args, { rt, ctx, now: nowIso() }));

	const keyed = keyOf(args);
	return rt.store.withTransaction("write", async (tx) => {
		const now = nowIso();
		const earlier = await replay(tx, tool, keyed, now);
		if (earlier) return earlier;
		const result = await run(tx, args, { rt, ctx, now });
		await store(rt, tx, tool, keyed, result, now);
		return result;
	});
}
