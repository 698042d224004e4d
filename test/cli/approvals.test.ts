// `roundtable approvals list|approve|reject` through the real CLI in a subprocess, on a project
// initialized by `roundtable init`; requests are made with `roundtable mcp call`.
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalRecord } from "../../src/vocabulary/records.ts";
import { cliHere as runCli } from "../_helpers/cli.ts";
import { expectDeclaredOutput, tempDir } from "../_helpers/helpers.ts";

let root: string;
let taskId: string;
let proposalId: string;

const cli = (...args: string[]) => runCli([...args, "--root", root]);

/** `mcp call`: the tool's result, or the test fails. */
async function mcp(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
	const r = await cli("mcp", "call", "--tool", tool, "--args", JSON.stringify(args));
	expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
	const out = JSON.parse(r.stdout) as Record<string, unknown>;
	expectDeclaredOutput(tool, out);
	return out;
}

/** A request about the proposal, or (taskOnly) about the task alone. */
async function request(subject: string, taskOnly = false): Promise<ApprovalRecord> {
	const out = await mcp("human.request_approval", {
		subject,
		reason_md: "Needs a human.",
		...(taskOnly ? { task_id: taskId } : { proposal_id: proposalId }),
	});
	return (out as { approval: ApprovalRecord }).approval;
}

async function status(id: string): Promise<{ approval: ApprovalRecord; current: boolean }> {
	return (await mcp("human.approval_status", { approval_id: id })) as {
		approval: ApprovalRecord;
		current: boolean;
	};
}

async function listJson(...filters: string[]): Promise<ApprovalRecord[]> {
	const r = await cli("approvals", "list", ...filters, "--json");
	expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
	return (JSON.parse(r.stdout) as { approvals: ApprovalRecord[] }).approvals;
}

const line = (a: ApprovalRecord, s = a.status) =>
	`${a.id} ${s} ${a.proposal_id ?? "-"} r${a.patch_revision ?? "-"} ${a.subject}${a.override_policy ? " (override)" : ""}`;

beforeAll(async () => {
	root = tempDir("rt-approvals-cli-");
	expect((await runCli(["init", "--root", root])).code).toBe(0);
	writeFileSync(join(root, "README.md"), "one\n");
	const task = await mcp("task.create", { title: "Approvals", body_md: "Decide from the command line." });
	taskId = (task as { task: { id: string } }).task.id;
	await mcp("resource.claim", {
		resource_type: "file",
		resource_id: "file:README.md",
		claim_type: "write",
		task_id: taskId,
		agent_id: "implementer-1",
	});
	const proposal = await mcp("proposal.create", {
		task_id: taskId,
		agent_id: "implementer-1",
		title: "Edit README",
		summary_md: "One becomes two.",
		affected_resources: [],
		risk: "high",
		patch: "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-one\n+two\n",
	});
	proposalId = (proposal as { proposal: { id: string } }).proposal.id;
});

describe("roundtable approvals", () => {
	test("list prints one `<id> <status> <proposal> r<revision> <subject>` line per approval", async () => {
		const a = await request("List me");
		const t = await request("Task only", true);
		const r = await cli("approvals", "list");
		expect(r.code).toBe(0);
		expect(r.stderr).toBe("");
		const lines = r.stdout.trimEnd().split("\n");
		expect(lines).toContain(`${a.id} requested ${proposalId} r1 List me`);
		expect(lines).toContain(`${t.id} requested - r- Task only`);

		const json = await listJson();
		expect(json.map((x) => x.id)).toEqual(expect.arrayContaining([a.id, t.id]));
		const mine = await listJson("--proposal", proposalId);
		expect(mine.map((x) => x.id)).toContain(a.id);
		expect(mine.map((x) => x.id)).not.toContain(t.id);
		expect(mine.every((x) => x.proposal_id === proposalId)).toBe(true);
	});

	test("approve decides as the operator, with --decision; list --status filters", async () => {
		const a = await request("Approve me");
		const r = await cli("approvals", "approve", "--approval", a.id, "--decision", "Looks right.");
		expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
		expect(r.stdout).toBe(`${a.id} approved ${proposalId} r1 Approve me\n`);
		const s = await status(a.id);
		expect(s.approval).toMatchObject({
			status: "approved",
			decided_by: "operator",
			decision_md: "Looks right.",
			override_policy: false,
			patch_revision: 1,
		});
		expect(s.current).toBe(true);

		const approved = await listJson("--status", "approved");
		expect(approved.map((x) => x.id)).toContain(a.id);
		expect(approved.every((x) => x.status === "approved")).toBe(true);
		const requested = await listJson("--status", "requested");
		expect(requested.map((x) => x.id)).not.toContain(a.id);
	});

	test("approve --override-policy records the override; --json prints the approval", async () => {
		const a = await request("Override");
		const r = await cli("approvals", "approve", "--approval", a.id, "--override-policy", "--json");
		expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
		const out = JSON.parse(r.stdout) as { approval: ApprovalRecord };
		expectDeclaredOutput("human.request_approval", out);
		expect(out.approval).toMatchObject({ id: a.id, status: "approved", override_policy: true });
		const listed = await cli("approvals", "list");
		expect(listed.stdout.split("\n")).toContain(line(out.approval));
		expect(line(out.approval)).toEndWith(" (override)");
	});

	test("reject revokes an earlier approval", async () => {
		const a = await request("Reject me");
		expect((await cli("approvals", "approve", "--approval", a.id)).code).toBe(0);
		const r = await cli("approvals", "reject", "--approval", a.id, "--decision", "Too risky.");
		expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
		expect(r.stdout).toBe(`${a.id} rejected ${proposalId} r1 Reject me\n`);
		expect((await status(a.id)).approval).toMatchObject({
			status: "rejected",
			decided_by: "operator",
			decision_md: "Too risky.",
			override_policy: false,
		});
		const v = (await mcp("patch.validate", { proposal_id: proposalId })) as {
			gates: { gate: string; ok: boolean; reason: string }[];
		};
		expect(v.gates.find((g) => g.gate === "human_approval")).toMatchObject({
			ok: false,
			reason: "a human rejected revision 1",
		});
	});

	test("misuse: no --approval and reject --override-policy are usage errors; an unknown id fails", async () => {
		const none = await cli("approvals", "approve");
		expect(none.code).toBe(2);
		expect(none.stderr).toContain("--approval");

		const a = await request("Not overridable");
		const override = await cli("approvals", "reject", "--approval", a.id, "--override-policy");
		expect(override.code).toBe(2);
		expect((await status(a.id)).approval.status).toBe("requested");

		const unknown = await cli("approvals", "approve", "--approval", "H-nope");
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain("H-nope");
		expect(unknown.stdout).toBe("");
	});
});
