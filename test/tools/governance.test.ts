// Governance tools through the dispatcher: human approvals (requests, the operator's decisions, which
// decision counts for the current patch revision) and security reviews (auto-scan of a proposal or a
// resource, manual verdicts), over a real git repository.
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
interface Finding {
	code: string;
	severity: string;
	path: string;
	line: number;
	message: string;
}
interface Review {
	id: string;
	proposal_id: string | null;
	resource_id: string | null;
	task_id: string | null;
	reviewer_id: string;
	status: string;
	mode: string;
	summary_md: string;
	findings: Finding[];
	patch_revision: number | null;
}

const agentCtx = (agent_id: string, role: string): CallContext => ({
	...operatorContext("internal"),
	principal: { kind: "agent", agent_id, role, session_id: "s" },
});

// Credential-shaped test strings, assembled so this file itself carries no literal key.
const AWS_KEY = ["AKIA", "EXAMPLEEXAMPLE00"].join("");
const PASSWORD_LINE = 'const dbPassword = "q7Vx9LmP2rTz";';

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
	review: (args: Record<string, unknown>) => Promise<{ review: Review; findings: Finding[] }>;
}

/** The shared flow, proposing at high risk by default, with approvals and security reviews. */
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
		async review(args) {
			return (await f.call("security.review", args)) as unknown as { review: Review; findings: Finding[] };
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

describe("security.review: auto-scan of a proposal", () => {
	test("findings carry path, line, code and severity, critical first; a critical finding vetoes", async () => {
		const f = await flow({ "src/config.ts": "export const region = 'eu';\n" });
		await f.claim("implementer-1", "src/config.ts");
		const patch = diffOf(
			f.p.root,
			"src/config.ts",
			[
				"export const region = 'eu';",
				PASSWORD_LINE,
				'execSync("rm -rf build");',
				`export const key = "${AWS_KEY}";`,
				"",
			].join("\n"),
		);
		const p = await f.propose({ risk: "normal", patch });
		const out = await f.review({ proposal_id: p.id });
		expect(out.findings.map((x) => [x.severity, x.code, x.path, x.line])).toEqual([
			["critical", "cloud_access_key", "src/config.ts", 4],
			["high", "hardcoded_secret", "src/config.ts", 2],
			["high", "dangerous_command", "src/config.ts", 3],
		]);
		for (const x of out.findings) expect(x.message.trim()).not.toBe("");
		// Messages name what was found, never the secret itself.
		expect(JSON.stringify(out)).not.toContain(AWS_KEY);
		expect(out.review).toMatchObject({
			proposal_id: p.id,
			resource_id: null,
			task_id: f.task,
			reviewer_id: "security-1",
			status: "veto",
			mode: "auto",
			patch_revision: 1,
		});
		expect(out.review.findings).toEqual(out.findings);
		expect(out.review.summary_md).toContain("3 finding");
		const event = (await allEvents(f.p)).find((e) => e.type === "security.reviewed");
		expect(event).toMatchObject({
			actor_id: "security-1",
			task_id: f.task,
			payload: {
				review_id: out.review.id,
				proposal_id: p.id,
				status: "veto",
				mode: "auto",
				findings: 3,
				patch_revision: 1,
			},
		});
		const v = await f.validate(p.id);
		expect(f.gate(v, "security_review").ok).toBe(false);
		expect(f.gate(v, "security_review").reason).toContain("vetoed");
	});

	test("findings without a critical one mean needs_changes", async () => {
		const f = await flow({ "src/config.ts": "export const region = 'eu';\n" });
		await f.claim("implementer-1", "src/config.ts");
		const p = await f.propose({
			patch: diffOf(f.p.root, "src/config.ts", `export const region = 'eu';\n${PASSWORD_LINE}\n`),
		});
		const out = await f.review({ proposal_id: p.id, reviewer_id: "reviewer-1" });
		expect(out.findings.map((x) => [x.severity, x.code, x.line])).toEqual([["high", "hardcoded_secret", 2]]);
		expect(out.review).toMatchObject({ status: "needs_changes", reviewer_id: "reviewer-1" });
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({
			ok: false,
			reason: "security review asks for changes to revision 1",
		});
	});

	test("no findings approve; only added lines are scanned (removing a key is no finding)", async () => {
		const f = await flow({ "src/config.ts": `export const key = "${AWS_KEY}";\n` });
		await f.claim("implementer-1", "src/config.ts");
		const p = await f.propose({
			patch: diffOf(f.p.root, "src/config.ts", 'export const key = process.env.AWS_KEY ?? "";\n'),
		});
		const out = await f.review({ proposal_id: p.id, summary_md: "Key moved to the environment." });
		expect(out.findings).toEqual([]);
		expect(out.review).toMatchObject({
			status: "approved",
			mode: "auto",
			summary_md: "Key moved to the environment.",
		});
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({ ok: true });
	});

	test("a review binds to the revision it saw and stops counting after attach_patch", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const out = await f.review({ proposal_id: p.id });
		expect(out.review).toMatchObject({ status: "approved", patch_revision: 1 });
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({ ok: true });
		await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		});
		const gate = f.gate(await f.validate(p.id), "security_review");
		expect(gate.ok).toBe(false);
		expect(gate.reason).toContain("none for revision 2");
		const again = await f.review({ proposal_id: p.id });
		expect(again.review.patch_revision).toBe(2);
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(true);
	});

	test("the latest review counts: an approval after a veto lifts it", async () => {
		const { f, p } = await readmeProposal();
		await f.review({ proposal_id: p.id, status: "veto" });
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(false);
		await f.review({ proposal_id: p.id, status: "approved" });
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(true);
		await f.review({ proposal_id: p.id, status: "needs_changes" });
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(false);
	});

	test("the latest review counts even within the same millisecond", async () => {
		const { f, p } = await readmeProposal();
		setSystemTime(new Date("2031-01-01T00:00:00.000Z"));
		await f.review({ proposal_id: p.id, review_id: "SR-2", status: "veto" });
		await f.review({ proposal_id: p.id, review_id: "SR-1", status: "approved" });
		setSystemTime();
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({
			ok: true,
			reason: "security review approved",
		});
	});
});

describe("security.review: a resource without a proposal", () => {
	const FILES = {
		"lib.ts": [
			"export function connect() {",
			`\t${PASSWORD_LINE}`,
			"}",
			"",
			`export const key = "${AWS_KEY}";`,
			"",
		].join("\n"),
		"cfg/app.yaml": "name: app\npassword: q7Vx9LmP2rTzW\n",
		"cfg/clean.ts": "export const ok = true;\n",
		"clean.ts": "export const fine = 1;\n",
	};

	test("a file is scanned as it is now: a critical finding vetoes", async () => {
		const f = await flow(FILES);
		const out = await f.review({ resource_id: "file:lib.ts" });
		expect(out.findings.map((x) => [x.severity, x.code, x.path, x.line])).toEqual([
			["critical", "cloud_access_key", "lib.ts", 5],
			["high", "hardcoded_secret", "lib.ts", 2],
		]);
		expect(out.review).toMatchObject({
			proposal_id: null,
			resource_id: "file:lib.ts",
			status: "veto",
			mode: "auto",
			patch_revision: null,
		});
		const event = (await allEvents(f.p)).find((e) => e.type === "security.reviewed");
		expect(event?.payload).toMatchObject({
			resource_id: "file:lib.ts",
			proposal_id: null,
			status: "veto",
			findings: 2,
		});
	});

	test("a clean file is approved; a missing one is not_found, never a silent approval", async () => {
		const f = await flow(FILES);
		const clean = await f.review({ resource_id: "file:clean.ts" });
		expect(clean.findings).toEqual([]);
		expect(clean.review.status).toBe("approved");
		const missing = await f.fail("security.review", { resource_id: "file:nope.ts" });
		expect(missing.code).toBe("not_found");
	});

	test("a symbol is scanned over its lines only", async () => {
		const f = await flow(FILES);
		await f.call("resource.claim", {
			resource_type: "symbol",
			resource_id: "symbol:lib.ts#connect",
			claim_type: "read",
			task_id: f.task,
			agent_id: "security-1",
			start_line: 1,
			end_line: 3,
		});
		const out = await f.review({ resource_id: "symbol:lib.ts#connect" });
		expect(out.findings.map((x) => [x.code, x.path, x.line])).toEqual([["hardcoded_secret", "lib.ts", 2]]);
		expect(out.review.status).toBe("needs_changes");
		// A symbol whose lines nobody knows is not reviewed at all.
		const unknown = await f.fail("security.review", { resource_id: "symbol:lib.ts#key" });
		expect(unknown.code).toBe("not_found");
	});

	test("a directory is scanned file by file, and nothing outside it", async () => {
		const f = await flow(FILES);
		const out = await f.review({ resource_id: "directory:cfg" });
		expect(out.findings.map((x) => [x.severity, x.code, x.path, x.line])).toEqual([
			["high", "hardcoded_secret", "cfg/app.yaml", 2],
		]);
		expect(out.review).toMatchObject({ status: "needs_changes", resource_id: "directory:cfg" });
		const root = await f.review({ resource_id: "directory:" });
		expect(root.review.status).toBe("veto");
		const paths = new Set(root.findings.map((x) => x.path));
		expect(paths.has("cfg/app.yaml") && paths.has("lib.ts")).toBe(true);
		expect(paths.has("cfg/clean.ts") || paths.has("clean.ts")).toBe(false);
	});

	test("a resource that is not a file, directory or symbol needs a manual status", async () => {
		const f = await flow(FILES);
		const err = await f.fail("security.review", { resource_id: "endpoint:/login" });
		expect(err.code).toBe("invalid_argument");
		const manual = await f.review({ resource_id: "endpoint:/login", status: "approved" });
		expect(manual.review).toMatchObject({
			status: "approved",
			mode: "manual",
			resource_id: "endpoint:/login",
		});
	});
});

describe("security.review: manual verdicts and arguments", () => {
	test("status approved, needs_changes or veto is recorded as a manual review", async () => {
		const { f, p } = await readmeProposal();
		for (const status of ["approved", "needs_changes", "veto"]) {
			const out = await f.review({ proposal_id: p.id, status });
			expect(out.findings).toEqual([]);
			expect(out.review).toMatchObject({
				proposal_id: p.id,
				status,
				mode: "manual",
				summary_md: "Security review recorded.",
				findings: [],
				patch_revision: 1,
			});
		}
		const events = (await allEvents(f.p)).filter((e) => e.type === "security.reviewed");
		expect(events.map((e) => e.payload.status)).toEqual(["approved", "needs_changes", "veto"]);
		expect(events.every((e) => e.payload.mode === "manual")).toBe(true);
	});

	test("any other status is invalid_argument", async () => {
		const { f, p } = await readmeProposal();
		for (const status of ["approve", "rejected", "ok", "VETO"]) {
			const err = await f.fail("security.review", { proposal_id: p.id, status });
			expect(err.code).toBe("invalid_argument");
		}
	});

	test("proposal_id or resource_id is required; unknown proposals are not_found; review ids are unique", async () => {
		const { f, p } = await readmeProposal();
		for (const args of [{}, { status: "approved" }, { task_id: f.task }]) {
			const err = await f.fail("security.review", args);
			expect(err.code).toBe("invalid_argument");
		}
		expect((await f.fail("security.review", { proposal_id: "P-nope" })).code).toBe("not_found");
		expect((await f.fail("security.review", { proposal_id: "P-nope", status: "approved" })).code).toBe(
			"not_found",
		);
		await f.review({ proposal_id: p.id, review_id: "SR-mine", status: "approved" });
		expect(
			(await f.fail("security.review", { proposal_id: p.id, review_id: "SR-mine", status: "veto" })).code,
		).toBe("already_exists");
	});
});
