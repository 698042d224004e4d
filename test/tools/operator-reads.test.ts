// The dashboard's reads that no agent tool covers, through the dispatcher over a real project and git
// repository: turn.queue, proposal.revisions, test.list, peer.questions and message.list. Each is the
// operator's alone, changes nothing, and answers in its declared shape.
import { describe, expect, test } from "bun:test";
import { call } from "../../src/dispatch.ts";
import { AGENT_TOOLS } from "../../src/registry/index.ts";
import { taskFlow } from "../_helpers/flow-helpers.ts";
import {
	addRun,
	agentContext,
	commitAll,
	diffOf,
	expectDeclaredOutput,
	type Project,
} from "../_helpers/helpers.ts";
import { project } from "../_helpers/test-run-helpers.ts";

const READS = ["turn.queue", "proposal.revisions", "test.list", "peer.questions", "message.list"];

/** Calls a read as the operator, checks its declared output, and that it appended no event. */
async function read(p: Project, tool: string, args: Record<string, unknown> = {}) {
	const before = ((await p.call("table.watch", { limit: 1 })) as { next_after_event_id: number })
		.next_after_event_id;
	const out = await p.call(tool, args);
	expectDeclaredOutput(tool, out);
	const after = ((await p.call("table.watch", { limit: 1 })) as { next_after_event_id: number })
		.next_after_event_id;
	expect(after).toBe(before);
	return out;
}

/** A project over git with an allowlisted test script, a task, and a proposal with two revisions. */
async function setup() {
	const p = await project({ allow: ["./check.sh"], sandbox: "off", scripts: { "check.sh": "echo checked" } });
	commitAll(p.root, { "README.md": "one\n" });
	const f = await taskFlow(p);
	await f.claim("implementer-1", "README.md");
	const first = diffOf(p.root, "README.md", "two\n");
	const proposal = await f.propose({ patch: first });
	const second = diffOf(p.root, "README.md", "three\n");
	await f.call("proposal.attach_patch", {
		proposal_id: proposal.id,
		agent_id: "implementer-1",
		patch: second,
	});
	return { p, f, proposal, patches: [first, second] };
}

describe("the operator's reads", () => {
	test("are operator entries, never listed to agents, and refused to a capability", async () => {
		const { p, f } = await setup();
		await p.call("task.update_status", { task_id: f.task, assigned_agent_id: "implementer-1" });
		const agent = await agentContext(p, "implementer-1", { task_id: f.task });
		for (const tool of READS) {
			expect(AGENT_TOOLS.map((t) => t.name as string)).not.toContain(tool);
			await expect(call(p.rt, tool, {}, agent)).rejects.toMatchObject({
				code: "permission_denied",
				message: `${tool} is for the operator only`,
			});
		}
	});

	test("proposal.revisions: every revision with its own patch text", async () => {
		const { p, proposal, patches } = await setup();
		const [first, second] = patches as [string, string];
		const out = (await read(p, "proposal.revisions", { proposal_id: proposal.id })) as {
			proposal_id: string;
			revisions: { number: number; patch: string | null; sha256: string }[];
		};
		expect(out.proposal_id).toBe(proposal.id);
		expect(out.revisions.map((r) => [r.number, r.patch])).toEqual([
			[1, first],
			[2, second],
		]);
		expect(out.revisions[0]?.sha256).toBe(proposal.patch_sha256);
		await expect(p.call("proposal.revisions", { proposal_id: "P-none" })).rejects.toMatchObject({
			code: "not_found",
		});
	});

	test("test.list: a proposal's runs, newest first; another's are not there", async () => {
		const { p, proposal } = await setup();
		await p.call("test.run", { command: "./check.sh", proposal_id: proposal.id });
		await p.call("test.run", { command: "./check.sh" });
		const mine = (await read(p, "test.list", { proposal_id: proposal.id })) as {
			test_runs: {
				proposal_id: string | null;
				patch_revision: number | null;
				status: string;
				sandbox: string;
			}[];
		};
		expect(mine.test_runs).toHaveLength(1);
		expect(mine.test_runs[0]).toMatchObject({
			proposal_id: proposal.id,
			patch_revision: 2,
			status: "passed",
			sandbox: "none",
		});
		const all = (await read(p, "test.list", { limit: 10 })) as { test_runs: unknown[] };
		expect(all.test_runs).toHaveLength(2);
		expect(
			((await read(p, "test.list", { status: "failed" })) as { test_runs: unknown[] }).test_runs,
		).toEqual([]);
		await expect(p.call("test.list", { proposal_id: "P-none" })).rejects.toMatchObject({ code: "not_found" });
	});

	test("turn.queue: the outstanding requests of every run, or of one", async () => {
		const { p } = await setup();
		await addRun(p, "RUN-1");
		await addRun(p, "RUN-2");
		await p.call("agent.turn_request", { run_id: "RUN-1", agent_id: "implementer-1", reason_md: "first" });
		await p.call("agent.turn_request", { run_id: "RUN-2", agent_id: "reviewer-1", reason_md: "second" });
		const all = (await read(p, "turn.queue")) as {
			turns: { run_id: string; agent_id: string; status: string; lease_expires_at: string | null }[];
		};
		expect(all.turns.map((t) => [t.run_id, t.agent_id, t.status, t.lease_expires_at])).toEqual([
			["RUN-1", "implementer-1", "requested", null],
			["RUN-2", "reviewer-1", "requested", null],
		]);
		const one = (await read(p, "turn.queue", { run_id: "RUN-2" })) as { turns: { agent_id: string }[] };
		expect(one.turns.map((t) => t.agent_id)).toEqual(["reviewer-1"]);
		await expect(p.call("turn.queue", { run_id: "RUN-9" })).rejects.toMatchObject({ code: "not_found" });
	});

	test("peer.questions: every agent's open questions; answered ones by status", async () => {
		const { p } = await setup();
		const asked = (await p.call("peer.ask", {
			agent_id: "implementer-1",
			assignee_agent_id: "reviewer-1",
			question_md: "Which file?",
		})) as { request: { id: string } };
		await p.call("peer.ask", { agent_id: "architect-1", assignee_agent_id: "operator", question_md: "Go?" });
		const open = (await read(p, "peer.questions")) as { requests: { question_md: string }[] };
		expect(open.requests.map((r) => r.question_md)).toEqual(["Which file?", "Go?"]);
		await p.call("peer.answer", {
			agent_id: "reviewer-1",
			request_id: asked.request.id,
			answer_md: "README",
		});
		const still = (await read(p, "peer.questions")) as { requests: { question_md: string }[] };
		expect(still.requests.map((r) => r.question_md)).toEqual(["Go?"]);
		const answered = (await read(p, "peer.questions", { status: "answered" })) as {
			requests: { id: string }[];
		};
		expect(answered.requests.map((r) => r.id)).toEqual([asked.request.id]);
	});

	test("message.list: the newest messages to anyone or any channel, newest first", async () => {
		const { p } = await setup();
		await p.call("message.post", { agent_id: "implementer-1", to_agent_id: "reviewer-1", body_md: "one" });
		await p.call("message.post", { agent_id: "reviewer-1", channel: "general", body_md: "two" });
		await p.call("message.post", { agent_id: "architect-1", to_agent_id: "operator", body_md: "three" });
		const out = (await read(p, "message.list")) as { messages: { body_md: string }[] };
		expect(out.messages.map((m) => m.body_md)).toEqual(["three", "two", "one"]);
		const two = (await read(p, "message.list", { limit: 2 })) as { messages: { body_md: string }[] };
		expect(two.messages.map((m) => m.body_md)).toEqual(["three", "two"]);
	});
});
