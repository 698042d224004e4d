// Human approvals through the dispatcher: requests, the operator's decisions, and which decision
// counts for the current patch revision, over a real git repository.
import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { type CallContext, operatorContext } from "../../src/context.ts";
import { type Flow as BaseFlow, flow as baseFlow } from "../_helpers/flow-helpers.ts";
import { agentContext, allEvents, diffOf } from "../_helpers/helpers.ts";

interface Approval {
	id: string;
	proposal_id: string | null;
	task_id: string | null;
	subject: string;
	reason_md: string;
	status: string;
	requested_by: string;
	decision_md: string | null;
	decided_by: string | null;
	decided_at: string | null;
	override_policy: boolean;
	patch_revision: number | null;
	revision: number;
}

const agentCtx = (agent_id: string, role: string): CallContext => ({
	...operatorContext("internal"),
	principal: { kind: "agent", agent_id, role, session_id: "s" },
});

interface Flow extends BaseFlow {
	request: (
		proposal: string | undefined,
		extra?: Record<string, unknown>,
		ctx?: CallContext,
	) => Promise<Approval>;
	decide: (
		id: string,
		status: string,
		extra?: Record<string, unknown>,
		ctx?: CallContext,
	) => Promise<Approval>;
}

/** The shared flow, proposing at high risk by default, with approvals. */
async function flow(files: Record<string, string>): Promise<Flow> {
	const f = await baseFlow(files);
	return {
		...f,
		propose: (args) => f.propose({ risk: "high", ...args }),
		async request(proposal, extra = {}, ctx = f.p.ctx) {
			const out = (await f.call(
				"human.request_approval",
				{
					subject: "Please approve",
					reason_md: "It is risky.",
					...(proposal !== undefined && { proposal_id: proposal }),
					...extra,
				},
				ctx,
			)) as { approval: Approval };
			return out.approval;
		},
		async decide(id, status, extra = {}, ctx = f.p.ctx) {
			const out = (await f.call(
				"human.request_approval",
				{ approval_id: id, subject: "Please approve", reason_md: "It is risky.", status, ...extra },
				ctx,
			)) as { approval: Approval };
			return out.approval;
		},
	};
}

/** A high-risk README proposal by implementer-1 (needs a human approval). */
async function readmeProposal() {
	const f = await flow({ "README.md": "one\n" });
	await f.claim("implementer-1", "README.md");
	const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
	return { f, p };
}

afterEach(() => {
	setSystemTime(); // back to the real clock, should a test have frozen it
});

describe("human.request_approval: requests", () => {
	test("without approval_id it creates a request, requested and bound to the current patch revision", async () => {
		const { f, p } = await readmeProposal();
		await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		});
		const a = await f.request(p.id);
		expect(a).toMatchObject({
			proposal_id: p.id,
			task_id: f.task,
			subject: "Please approve",
			reason_md: "It is risky.",
			status: "requested",
			requested_by: "operator",
			decision_md: null,
			decided_by: null,
			decided_at: null,
			override_policy: false,
			patch_revision: 2,
		});
		expect(a.id).toMatch(/^H-/);
		const event = (await allEvents(f.p)).find((e) => e.type === "approval.requested");
		expect(event).toMatchObject({
			actor_id: "operator",
			task_id: f.task,
			payload: { approval_id: a.id, proposal_id: p.id, patch_revision: 2 },
		});
		// A request alone does not satisfy the gate.
		expect(f.gate(await f.validate(p.id), "human_approval").ok).toBe(false);
	});

	test("an agent may ask, as itself: requested_by is the caller; the operator names anyone", async () => {
		const { f, p } = await readmeProposal();
		await f.call("task.update_status", { task_id: f.task, assigned_agent_id: "implementer-1" });
		const implementer = await agentContext(f.p, "implementer-1", { task_id: f.task });
		const byAgent = await f.request(p.id, {}, implementer);
		expect(byAgent.requested_by).toBe("implementer-1");
		const asOther = await f.fail(
			"human.request_approval",
			{ subject: "s", reason_md: "r", proposal_id: p.id, requested_by: "chair-1" },
			implementer,
		);
		expect(asOther).toMatchObject({
			code: "permission_denied",
			message: "requested_by must be you (implementer-1), not chair-1",
		});
		const named = await f.request(p.id, { requested_by: "chair-1" });
		expect(named.requested_by).toBe("chair-1");
	});

	test("a task-only request has no proposal and no revision; unknown proposals and tasks are not_found", async () => {
		const { f } = await readmeProposal();
		const a = await f.request(undefined, { task_id: f.task });
		expect(a).toMatchObject({
			proposal_id: null,
			task_id: f.task,
			patch_revision: null,
			status: "requested",
		});
		expect(
			(await f.fail("human.request_approval", { subject: "s", reason_md: "r", proposal_id: "P-nope" })).code,
		).toBe("not_found");
		expect(
			(await f.fail("human.request_approval", { subject: "s", reason_md: "r", task_id: "T-nope" })).code,
		).toBe("not_found");
		const status = (await f.call("human.approval_status", { approval_id: a.id })) as { current: boolean };
		expect(status.current).toBe(false);
	});

	test("decision fields without approval_id are invalid_argument, and nothing is created", async () => {
		const { f, p } = await readmeProposal();
		const cases: [Record<string, unknown>, string][] = [
			[{ status: "approved" }, "approval_id"],
			[{ status: "rejected" }, "approval_id"],
			[{ decision_md: "fine" }, "decision_md"],
			[{ decided_by: "operator" }, "decided_by"],
			[{ override_policy: true }, "override_policy"],
		];
		for (const [extra, field] of cases) {
			const err = await f.fail("human.request_approval", {
				subject: "s",
				reason_md: "r",
				proposal_id: p.id,
				...extra,
			});
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toMatchObject({ field });
		}
		const state = (await f.call("table.get_state", {})) as { human_approvals: unknown[] };
		expect(state.human_approvals).toEqual([]);
	});

	test("a chosen approval_id in use is already_exists; an unknown status is invalid_argument", async () => {
		const { f, p } = await readmeProposal();
		await f.request(p.id, { approval_id: "H-mine" });
		expect(
			(await f.fail("human.request_approval", { subject: "s", reason_md: "r", approval_id: "H-mine" })).code,
		).toBe("already_exists");
		const bad = await f.fail("human.request_approval", {
			subject: "s",
			reason_md: "r",
			approval_id: "H-mine",
			status: "requested",
		});
		expect(bad.code).toBe("invalid_argument");
	});
});

describe("human.request_approval: the operator's decisions", () => {
	test("the operator approves with decided_by, decision_md and override_policy; an event says so", async () => {
		const { f, p } = await readmeProposal();
		const a = await f.request(p.id);
		const d = await f.decide(a.id, "approved", {
			decided_by: "alice",
			decision_md: "Reviewed the diff.",
			override_policy: true,
		});
		expect(d).toMatchObject({
			id: a.id,
			proposal_id: p.id,
			status: "approved",
			decided_by: "alice",
			decision_md: "Reviewed the diff.",
			override_policy: true,
			patch_revision: 1,
		});
		expect(d.decided_at).not.toBeNull();
		expect(d.revision).toBe(a.revision + 1);
		const event = (await allEvents(f.p)).find((e) => e.type === "approval.decided");
		expect(event).toMatchObject({
			actor_id: "alice",
			payload: {
				approval_id: a.id,
				proposal_id: p.id,
				status: "approved",
				override_policy: true,
				patch_revision: 1,
				previous_status: "requested",
			},
		});
		const status = (await f.call("human.approval_status", { approval_id: a.id })) as {
			approval: Approval;
			current: boolean;
		};
		expect(status.approval).toEqual(d);
		expect(status.current).toBe(true);
		expect(f.gate(await f.validate(p.id), "human_approval")).toMatchObject({ ok: true });
	});

	test("decided_by defaults to operator", async () => {
		const { f, p } = await readmeProposal();
		const a = await f.request(p.id);
		expect((await f.decide(a.id, "rejected")).decided_by).toBe("operator");
	});

	test("an agent principal cannot decide: permission_denied, and the request is unchanged", async () => {
		const { f, p } = await readmeProposal();
		const a = await f.request(p.id);
		for (const status of ["approved", "rejected"]) {
			const err = await f.fail(
				"human.request_approval",
				{ approval_id: a.id, subject: "s", reason_md: "r", status, decided_by: "operator" },
				agentCtx("reviewer-1", "Reviewer"),
			);
			expect(err.code).toBe("permission_denied");
		}
		const status = (await f.call("human.approval_status", { approval_id: a.id })) as { approval: Approval };
		expect(status.approval).toEqual(a);
		expect((await allEvents(f.p)).filter((e) => e.type === "approval.decided")).toEqual([]);
		expect(f.gate(await f.validate(p.id), "human_approval").ok).toBe(false);
	});

	test("override_policy with a rejection is invalid_argument", async () => {
		const { f, p } = await readmeProposal();
		const a = await f.request(p.id);
		const err = await f.fail("human.request_approval", {
			approval_id: a.id,
			subject: "s",
			reason_md: "r",
			status: "rejected",
			override_policy: true,
		});
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toMatchObject({ field: "override_policy" });
		const status = (await f.call("human.approval_status", { approval_id: a.id })) as { approval: Approval };
		expect(status.approval.status).toBe("requested");
	});

	test("a decision names an existing request of the same proposal", async () => {
		const { f, p } = await readmeProposal();
		const unknown = await f.fail("human.request_approval", {
			approval_id: "H-nope",
			subject: "s",
			reason_md: "r",
			status: "approved",
		});
		expect(unknown.code).toBe("not_found");
		const a = await f.request(p.id);
		const other = await f.fail("human.request_approval", {
			approval_id: a.id,
			proposal_id: "P-other",
			subject: "s",
			reason_md: "r",
			status: "approved",
		});
		expect(other.code).toBe("invalid_argument");
		expect(other.details).toMatchObject({ field: "proposal_id" });
	});

	test("the latest decision counts: a later rejection revokes an earlier approval, on one request or another", async () => {
		const { f, p } = await readmeProposal();
		const human = async () => f.gate(await f.validate(p.id), "human_approval");
		const a = await f.request(p.id);
		await f.decide(a.id, "approved");
		expect((await human()).ok).toBe(true);
		await f.decide(a.id, "rejected", { decision_md: "Changed my mind." });
		expect(await human()).toMatchObject({ ok: false, reason: "a human rejected revision 1" });
		await f.decide(a.id, "approved");
		expect((await human()).ok).toBe(true);

		const b = await f.request(p.id);
		await f.decide(b.id, "rejected");
		expect((await human()).ok).toBe(false);
		const c = await f.request(p.id);
		expect((await human()).ok).toBe(false); // a new request is no decision
		await f.decide(c.id, "approved");
		expect((await human()).ok).toBe(true);
	});

	test("a later rejection revokes an earlier approval even within the same millisecond", async () => {
		const { f, p } = await readmeProposal();
		await f.request(p.id, { approval_id: "H-2" });
		await f.request(p.id, { approval_id: "H-1" });
		setSystemTime(new Date("2031-01-01T00:00:00.000Z"));
		await f.decide("H-2", "approved");
		await f.decide("H-1", "rejected");
		setSystemTime();
		expect(f.gate(await f.validate(p.id), "human_approval")).toMatchObject({
			ok: false,
			reason: "a human rejected revision 1",
		});
	});

	test("a human rejection fails the human gate even where policy asks for no human", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ risk: "normal", patch: diffOf(f.p.root, "README.md", "two\n") });
		expect(f.gate(await f.validate(p.id), "human_approval")).toMatchObject({
			ok: true,
			reason: "not required",
		});
		const a = await f.request(p.id);
		await f.decide(a.id, "rejected");
		expect(f.gate(await f.validate(p.id), "human_approval").ok).toBe(false);
	});

	test("only decisions on the current revision count; approval_status says whether it is current", async () => {
		const { f, p } = await readmeProposal();
		const old = await f.request(p.id);
		await f.decide(old.id, "approved");
		expect(
			((await f.call("human.approval_status", { approval_id: old.id })) as { current: boolean }).current,
		).toBe(true);
		await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		});
		const stale = (await f.call("human.approval_status", { approval_id: old.id })) as {
			approval: Approval;
			current: boolean;
		};
		expect(stale.current).toBe(false);
		expect(stale.approval).toMatchObject({ status: "approved", patch_revision: 1 });
		expect(f.gate(await f.validate(p.id), "human_approval")).toMatchObject({ ok: false });
		expect(f.gate(await f.validate(p.id), "human_approval").reason).toContain("revision 2");

		// Deciding the old request again does not move it to the new revision.
		await f.decide(old.id, "approved");
		expect(f.gate(await f.validate(p.id), "human_approval").ok).toBe(false);
		// Nor does an old rejection revoke a current approval.
		const now = await f.request(p.id);
		await f.decide(now.id, "approved");
		await f.decide(old.id, "rejected");
		expect(f.gate(await f.validate(p.id), "human_approval").ok).toBe(true);
		expect(
			((await f.call("human.approval_status", { approval_id: now.id })) as { current: boolean }).current,
		).toBe(true);
	});

	test("human.approval_status of an unknown id is not_found", async () => {
		const { f } = await readmeProposal();
		expect((await f.fail("human.approval_status", { approval_id: "H-nope" })).code).toBe("not_found");
	});
});
