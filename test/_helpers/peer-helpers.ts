// Scaffolding for the peer-question tests: a project with three agents acting through minted
// sessions (a requester, an assignee, a third party), calls made as each, and the peer events.
import { expect } from "bun:test";
import type { CallContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import type { PeerAnswerRecord, PeerRequestRecord } from "../../src/vocabulary/records.ts";
import { agentContext, allEvents, expectDeclaredOutput, makeProject, type Project } from "./helpers.ts";

export const REQUESTER = "implementer-1";
export const ASSIGNEE = "implementer-2";
export const THIRD = "reviewer-1";

export interface Peers {
	p: Project;
	/** Contexts as a capability makes them, one per agent. */
	requester: CallContext;
	assignee: CallContext;
	third: CallContext;
	/** A successful call as `ctx` (the operator by default), checked against the declared output. */
	as(ctx: CallContext, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
	/** A call as `ctx` that must fail: its error. */
	failAs(ctx: CallContext, tool: string, args: Record<string, unknown>): Promise<ToolError>;
	/** peer.ask as the requester, to the assignee. */
	ask(args?: Record<string, unknown>): Promise<PeerRequestRecord>;
}

export async function peersProject(): Promise<Peers> {
	const p = await makeProject();
	const as = async (ctx: CallContext, tool: string, args: Record<string, unknown>) => {
		const out = (await call(p.rt, tool, args, ctx)) as Record<string, unknown>;
		expectDeclaredOutput(tool, out);
		return out;
	};
	const failAs = async (ctx: CallContext, tool: string, args: Record<string, unknown>) => {
		try {
			await call(p.rt, tool, args, ctx);
		} catch (err) {
			if (err instanceof ToolError) return err;
			throw err;
		}
		throw new Error(`${tool} succeeded but was expected to fail`);
	};
	const requester = await agentContext(p, REQUESTER);
	const assignee = await agentContext(p, ASSIGNEE);
	const third = await agentContext(p, THIRD);
	const ask = async (args: Record<string, unknown> = {}) =>
		(await as(requester, "peer.ask", { assignee_agent_id: ASSIGNEE, question_md: "Which port?", ...args }))
			.request as PeerRequestRecord;
	return { p, requester, assignee, third, as, failAs, ask };
}

export interface WithAnswers {
	request: PeerRequestRecord;
	answers: PeerAnswerRecord[];
}

/** The request and its answers as the operator reads them. */
export const readRequest = async (p: Project, id: string) =>
	(await p.call("peer.request", { request_id: id })) as unknown as WithAnswers;

/** The peer.* events, oldest first. */
export const peerEvents = async (p: Project) =>
	(await allEvents(p)).filter((e) => e.type.startsWith("peer."));

/** The request's stored rows are exactly `count` requests and `answers` answers. */
export async function expectStored(p: Project, count: { requests: number; answers: number }) {
	const got = await p.rt.store.withTransaction("read", async (tx) => {
		const requests = await tx.peers.list({}, undefined, 1000);
		let answers = 0;
		for (const r of requests) answers += (await tx.peers.answers(r.id)).length;
		return { requests: requests.length, answers };
	});
	expect(got).toEqual(count);
}
