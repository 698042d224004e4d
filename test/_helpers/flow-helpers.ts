// The governed path's steps on one task (claim, propose, vote, validate), each tool output checked
// against its declared schema; and `flow`, a project over a real git repository holding a task.
import type { CallContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import type { Report } from "../../src/gates/check.ts";
import type { Gate } from "../../src/policy/types.ts";
import type { ProposalRecord } from "../../src/vocabulary/records.ts";
import { commitAll, expectDeclaredOutput, makeProject, type Project } from "./helpers.ts";

export type { Gate };
export type Proposal = ProposalRecord;
export type Validation = Omit<Report, "parsed">;

export interface Flow {
	p: Project;
	task: string;
	/** Calls a tool as `ctx` (the operator by default) and checks its output against the declared schema. */
	call: (tool: string, args: Record<string, unknown>, ctx?: CallContext) => Promise<Record<string, unknown>>;
	fail: Project["fail"];
	/** `agent`'s write claim on file `path` for the task; its id. */
	claim: (agent: string, path: string, extra?: Record<string, unknown>) => Promise<string>;
	/** implementer-1's normal-risk proposal for the task, `args` overriding. */
	propose: (args: Record<string, unknown>) => Promise<Proposal>;
	vote: (proposal: string, agent: string, vote?: string) => Promise<Record<string, unknown>>;
	validate: (proposal: string) => Promise<Validation>;
	/** The named gate of a validation; throws when there is none. */
	gate: (v: Validation, name: string) => Gate;
}

/** A new task in `p`, and the steps on it. */
export async function taskFlow(p: Project): Promise<Flow> {
	const callTool = async (tool: string, args: Record<string, unknown>, ctx = p.ctx) => {
		const out = (await call(p.rt, tool, args, ctx)) as Record<string, unknown>;
		expectDeclaredOutput(tool, out);
		return out;
	};
	const { task } = (await callTool("task.create", { title: "Change things", body_md: "Do it." })) as {
		task: { id: string };
	};
	return {
		p,
		task: task.id,
		call: callTool,
		fail: p.fail,
		async claim(agent, path, extra = {}) {
			const out = (await callTool("resource.claim", {
				resource_type: "file",
				resource_id: `file:${path}`,
				claim_type: "write",
				task_id: task.id,
				agent_id: agent,
				...extra,
			})) as { claim: { id: string } };
			return out.claim.id;
		},
		async propose(args) {
			const out = (await callTool("proposal.create", {
				task_id: task.id,
				agent_id: "implementer-1",
				title: "A change",
				summary_md: "What and why.",
				affected_resources: [],
				risk: "normal",
				...args,
			})) as { proposal: Proposal };
			return out.proposal;
		},
		vote: (proposal, agent, vote = "approve") =>
			callTool("vote.cast", {
				proposal_id: proposal,
				agent_id: agent,
				vote,
				reason_md: `${agent} says ${vote}`,
			}),
		validate: async (proposal) =>
			(await callTool("patch.validate", { proposal_id: proposal })) as unknown as Validation,
		gate(v, name) {
			const g = v.gates.find((x) => x.gate === name);
			if (!g) throw new Error(`no gate ${name}: ${JSON.stringify(v.gates)}`);
			return g;
		},
	};
}

/** A project whose root holds `files` committed to a new git repository, and a task in it. */
export async function flow(files: Record<string, string>): Promise<Flow> {
	const p = await makeProject();
	commitAll(p.root, files);
	return taskFlow(p);
}
