// Who acts comes from the capability: an agent calling with one leaves every actor argument out
// (its tools/list does not show them) and is that actor; the operator still names them. And the
// seed's required arguments stay exactly the seed's, tool by tool (fixtures/seed/required-arguments.json,
// taken from the seed's tables).
import { describe, expect, test } from "bun:test";
import seed from "../../fixtures/seed/required-arguments.json";
import { call } from "../../src/dispatch.ts";
import { findTool, jsonSchemas, TOOLS } from "../../src/registry/index.ts";
import { publishedTools } from "../../src/registry/mcp.ts";
import { agentContext, commitAll, diffOf, makeProject } from "../_helpers/helpers.ts";

test("every seed tool requires exactly the seed's arguments, no more and no fewer", () => {
	const differ: string[] = [];
	for (const [name, required] of Object.entries(seed.tools)) {
		const tool = findTool(name);
		expect(tool, name).toBeDefined();
		const have = [
			...(((jsonSchemas(tool as NonNullable<typeof tool>).input.required as string[]) ?? []) as string[]),
		].sort();
		if (JSON.stringify(have) !== JSON.stringify([...required].sort()))
			differ.push(`${name}: registry [${have}] seed [${[...required].sort()}]`);
	}
	expect(differ).toEqual([]);
	expect(Object.keys(seed.tools)).toHaveLength(40);
});

test("a capability's tools/list shows no actor argument; the operator's list does", () => {
	for (const role of ["Implementer", "Reviewer", "Tester", "Security", "Architect"]) {
		for (const t of publishedTools(role)) {
			const tool = TOOLS.find((x) => x.name === t.name);
			const props = Object.keys((t.inputSchema.properties ?? {}) as object);
			for (const actor of tool?.actors ?? []) {
				expect({ role, tool: t.name, shows: props.includes(actor) }).toEqual({
					role,
					tool: t.name,
					shows: false,
				});
				expect(t.inputSchema.required ?? []).not.toContain(actor);
			}
		}
	}
	const claim = publishedTools().find((t) => t.name === "resource.claim");
	expect(Object.keys(claim?.inputSchema.properties as object)).toContain("agent_id");
});

describe("calls without actor arguments", async () => {
	const p = await makeProject();
	commitAll(p.root, { "src/a.ts": "export const a = 1;\n" });
	await p.call("task.create", {
		task_id: "T-a",
		title: "t",
		body_md: "b",
		assigned_agent_id: "implementer-1",
		readable_paths: ["src"],
	});
	const claimArgs = {
		resource_type: "file",
		resource_id: "file:src/a.ts",
		claim_type: "write",
		task_id: "T-a",
	};

	test("with a capability, each actor is the caller: claim, propose, revise, vote", async () => {
		const implementer = await agentContext(p, "implementer-1", { task_id: "T-a" });
		const { claim } = await call(p.rt, "resource.claim", claimArgs, implementer);
		expect(claim.agent_id).toBe("implementer-1");
		const patch = diffOf(p.root, "src/a.ts", "export const a = 2;\n");
		const { proposal } = await call(
			p.rt,
			"proposal.create",
			{ task_id: "T-a", title: "t", summary_md: "s", affected_resources: [], risk: "low", patch },
			implementer,
		);
		expect(proposal.agent_id).toBe("implementer-1");
		const revised = await call(
			p.rt,
			"proposal.attach_patch",
			{ proposal_id: proposal.id, patch: diffOf(p.root, "src/a.ts", "export const a = 3;\n") },
			implementer,
		);
		expect(revised.proposal.patch_revision).toBe(2);
		const reviewer = await agentContext(p, "reviewer-1", { proposal_id: proposal.id });
		const { vote } = await call(
			p.rt,
			"vote.cast",
			{ proposal_id: proposal.id, vote: "approve", reason_md: "ok" },
			reviewer,
		);
		expect(vote.agent_id).toBe("reviewer-1");
		// Naming someone else is still refused.
		const err = await call(
			p.rt,
			"vote.cast",
			{ proposal_id: proposal.id, agent_id: "architect-1", vote: "approve", reason_md: "x" },
			reviewer,
		).catch((e) => e);
		expect(err).toMatchObject({ code: "permission_denied" });
	});

	test("the operator must name who acts, whatever the seed leaves optional", async () => {
		const err = await p.fail("resource.claim", claimArgs);
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toBe("missing required argument 'agent_id': name who acts");
		expect(err.details).toMatchObject({ field: "agent_id" });
		const named = await p.call("resource.claim", {
			...claimArgs,
			claim_type: "read",
			agent_id: "implementer-1",
		});
		expect((named as { claim: { agent_id: string } }).claim.agent_id).toBe("implementer-1");
		expect(
			(
				await p.fail("proposal.create", {
					task_id: "T-a",
					title: "t",
					summary_md: "s",
					affected_resources: [],
					risk: "low",
					patch: "x",
				})
			).code,
		).toBe("invalid_argument");
	});
});
