// A headless session's first message (src/launch/prompt.ts), built on a real project: who the agent
// is and its binding, its briefing as agent.brief gives it, the project's AGENTS.ROUNDTABLE.md
// (bounded, cut at a line and said so), then the operator's words; nothing of a missing file.
import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { headlessPrompt } from "../../src/launch/prompt.ts";
import type { SessionRow } from "../../src/store/sessions.ts";
import { makeProject } from "../_helpers/helpers.ts";

async function minted(p: Awaited<ReturnType<typeof makeProject>>, binding: Record<string, string>) {
	const { session } = (await p.call("session.mint", {
		agent_id: binding.agent ?? "implementer-1",
		capability_sha256: Math.random().toString(16).slice(2).padEnd(64, "0").slice(0, 64),
		...(binding.task && { task_id: binding.task }),
		...(binding.proposal && { proposal_id: binding.proposal }),
		...(binding.run && { run_id: binding.run }),
	})) as { session: SessionRow };
	return session;
}

describe("a headless session's first message", () => {
	test("for a task: who, the task, how to work, the briefing, the project's rules, then the operator's words", async () => {
		const p = await makeProject();
		await p.call("task.create", {
			task_id: "T-1",
			title: "Make a two",
			body_md: "b",
			assigned_agent_id: "implementer-1",
			readable_paths: ["src"],
		});
		const session = await minted(p, { task: "T-1" });
		const text = await headlessPrompt(p.rt, session, true, "Keep it small.");
		const parts = text.split("\n\n");
		expect(parts[0]).toBe(
			"You are implementer-1 (Implementer), working through Roundtable's MCP tools (the server named roundtable). Your task is T-1. The files your task may read are in your working folder, a git repository of its own: claim a file before you change it (resource.claim), edit with your own tools, then propose what you changed with workspace.propose.",
		);
		expect(parts[1]).toBe(
			[
				"Your briefing now (agent.brief; call it again whenever you are unsure what is next):",
				"- Task T-1 (open): Make a two",
				"- Required next action: Resume task T-1: Make a two",
			].join("\n"),
		);
		expect(text).toContain(
			"The project's rules for agents (AGENTS.ROUNDTABLE.md):\n\n# Working in this repository",
		);
		expect(text).toEndWith("\n\nFrom the operator:\n\nKeep it small.");
	});

	test("for the Architect bound to a run: the run, its goal, and the scope its tasks keep to", async () => {
		const p = await makeProject();
		await p.call("run.open", { run_id: "R-1", goal: "Add a CLI flag", scope: ["src/cli", "docs"] });
		const session = await minted(p, { agent: "architect-1", run: "R-1" });
		const first = (await headlessPrompt(p.rt, session, true, undefined)).split("\n\n")[0];
		expect(first).toContain(
			"You work on run R-1. Its goal: Add a CLI flag. Its scope (every task's readable_paths stay inside it): src/cli, docs.",
		);
	});

	test("a long AGENTS.ROUNDTABLE.md is cut at a line near 16 KiB and says so; a missing one is left out", async () => {
		const p = await makeProject();
		const line = `${"rule ".repeat(15)}\n`;
		writeFileSync(join(p.root, "AGENTS.ROUNDTABLE.md"), line.repeat(2000));
		const session = await minted(p, { agent: "reviewer-1" });
		const text = await headlessPrompt(p.rt, session, false, undefined);
		const rules = text.slice(
			text.indexOf("AGENTS.ROUNDTABLE.md):\n\n") + "AGENTS.ROUNDTABLE.md):\n\n".length,
		);
		expect(Buffer.byteLength(rules)).toBeLessThanOrEqual(16 * 1024 + 100);
		expect(rules).toEndWith("rule \n[… the rest of AGENTS.ROUNDTABLE.md is in the repository]");
		expect(text).toContain("claim what you will change, then propose it with proposal.create");
		expect(text).not.toContain("From the operator");
		rmSync(join(p.root, "AGENTS.ROUNDTABLE.md"));
		expect(await headlessPrompt(p.rt, session, false, undefined)).not.toContain("AGENTS.ROUNDTABLE.md");
	});
});
