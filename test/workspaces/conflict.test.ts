// A generic scripted agent, launched by `roundtable sessions launch` in its sandbox and speaking MCP
// through `roundtable mcp stdio` as real clients do, is driven step by step through the review
// pipeline's hard case: its proposal goes stale when another agent's change to the same file is
// applied first. patch.apply of the stale revision fails its gate naming the file; the agent
// syncs, gets conflict markers, resolves them, proposes a new revision; that one is voted on anew
// and applied, and the project holds both changes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { REPO, tempDir } from "../_helpers/helpers.ts";
import {
	launchArgv,
	type Owned,
	operatorCall,
	operatorRefusal,
	ownedProject,
} from "../_helpers/launch-helpers.ts";

const sandboxed = probeSandbox().kind === "bwrap";
const AGENT = join(REPO, "test/fixtures-scripts/driven-agent.ts");

const lines = (change: Record<number, string> = {}) =>
	`${Array.from({ length: 6 }, (_, i) => change[i] ?? `line ${i}`).join("\n")}\n`;

let owned: Owned | undefined;
afterAll(async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
});

const operator = (tool: string, args: object) => operatorCall(owned?.root as string, tool, args);
const operatorFails = (tool: string, args: object) => operatorRefusal(owned?.root as string, tool, args);

/** Review asked, and the two votes the default policy wants. */
async function approve(proposal: string) {
	await operator("proposal.request_review", { proposal_id: proposal });
	for (const agent of ["architect-1", "reviewer-1"])
		await operator("vote.cast", { proposal_id: proposal, agent_id: agent, vote: "approve", reason_md: "ok" });
}

/** The scripted agent in its session: `order` sends one order and resolves with its answer. */
async function launchAgent(root: string) {
	const proc = Bun.spawn(
		launchArgv(
			root,
			"implementer-1",
			["--task", "T-1", "--adapter", "generic"],
			[process.execPath, AGENT, join(REPO, "bin/roundtable"), "mcp", "stdio"],
		),
		{ stdin: "pipe", stdout: "pipe", stderr: "pipe" },
	);
	const reader = proc.stdout.getReader();
	let buffer = "";
	const next = async (): Promise<Record<string, unknown>> => {
		while (!buffer.includes("\n")) {
			const { value, done } = await reader.read();
			if (done) throw new Error(`the agent ended: ${await new Response(proc.stderr).text()}`);
			buffer += new TextDecoder().decode(value);
		}
		const line = buffer.slice(0, buffer.indexOf("\n"));
		buffer = buffer.slice(line.length + 1);
		return JSON.parse(line);
	};
	expect(await next()).toEqual({ ready: true });
	return {
		async order(o: object): Promise<Record<string, unknown>> {
			proc.stdin.write(`${JSON.stringify(o)}\n`);
			proc.stdin.flush();
			return next();
		},
		async end() {
			proc.stdin.end();
			await proc.exited;
			return { code: proc.exitCode, stderr: await new Response(proc.stderr).text() };
		},
	};
}

describe.skipIf(!sandboxed)("a scripted agent through a stale proposal", () => {
	beforeAll(async () => {
		owned = await ownedProject(
			tempDir("rt-conflict-"),
			{ "src/a.ts": lines(), "README.md": "# r\n" },
			(doc) => doc.setIn(["sandbox", "expose"], [join(REPO, "test/fixtures-scripts")]),
		);
		for (const [id, agent] of [
			["T-1", "implementer-1"],
			["T-2", "implementer-2"],
		])
			await operator("task.create", {
				task_id: id,
				title: id,
				body_md: "b",
				assigned_agent_id: agent,
				readable_paths: ["src/**"],
			});
	}, 60_000);

	test("apply of the stale revision fails naming the file; sync, resolve, a new revision, fresh votes, applied", async () => {
		const root = owned?.root as string;
		const agent = await launchAgent(root);
		const claim = {
			resource_type: "file",
			resource_id: "file:src/a.ts",
			claim_type: "write",
			task_id: "T-1",
		};
		const { result: claimed } = (await agent.order({ call: "resource.claim", args: claim })) as {
			result: { claim: { id: string } };
		};
		expect(await agent.order({ write: "src/a.ts", text: lines({ 2: "line 2 by the agent" }) })).toEqual({
			result: "written",
		});
		const first = (await agent.order({
			call: "workspace.propose",
			args: { title: "line 2", summary_md: "s", risk: "low" },
		})) as { result: { proposal: { id: string; patch_revision: number } } };
		const mine = first.result.proposal.id;
		expect(first.result.proposal.patch_revision).toBe(1);
		// It lets the file go while its proposal waits; another agent's change to it lands first.
		await agent.order({ call: "resource.release", args: { claim_id: claimed.claim.id } });
		await operator("resource.claim", { ...claim, agent_id: "implementer-2", task_id: "T-2" });
		const theirs = await operator("proposal.create", {
			task_id: "T-2",
			agent_id: "implementer-2",
			title: "line 3",
			summary_md: "s",
			affected_resources: ["file:src/a.ts"],
			risk: "low",
			patch:
				"--- a/src/a.ts\n+++ b/src/a.ts\n@@ -3,3 +3,3 @@\n line 2\n-line 3\n+line 3 by another\n line 4\n",
		});
		await approve(theirs.proposal.id);
		await operator("patch.apply", { proposal_id: theirs.proposal.id });
		await operator("resource.release", {
			claim_id: theirs.claim_id ?? "",
			force: true,
			reason: "done",
		}).catch(() => undefined);

		// The stale revision: its gate names the file, and nothing of it is applied.
		await approve(mine);
		const stale = await operatorFails("patch.apply", { proposal_id: mine });
		expect(stale).toContain("changed in the project since revision 1's base: src/a.ts");
		expect(readFileSync(join(root, "src/a.ts"), "utf8")).toBe(lines({ 3: "line 3 by another" }));
		const told = (await agent.order({ call: "agent.brief", args: {} })) as {
			result: Record<string, unknown>;
		};
		expect(told.result.required_next_action).toStartWith(
			`Proposal ${mine} (line 2) is stale: src/a.ts changed in the project since its base. Run workspace.sync`,
		);

		// Sync: the two changes are on adjacent lines, so the merge marks them; the agent resolves.
		await agent.order({ call: "resource.claim", args: claim });
		const synced = (await agent.order({ call: "workspace.sync", args: {} })) as {
			result: { conflicts: string[] };
		};
		expect(synced.result.conflicts).toEqual(["src/a.ts"]);
		const marked = (await agent.order({ read: "src/a.ts" })) as { result: string };
		expect(marked.result).toContain(
			"<<<<<<< workspace\nline 2 by the agent\nline 3\n=======\nline 2\nline 3 by another\n>>>>>>> project\n",
		);
		const resolved = lines({ 2: "line 2 by the agent", 3: "line 3 by another" });
		await agent.order({ write: "src/a.ts", text: resolved });
		const second = (await agent.order({
			call: "workspace.propose",
			args: { proposal_id: mine, title: "line 2", summary_md: "s, rebased", risk: "low" },
		})) as { result: { proposal: { patch_revision: number } } };
		expect(second.result.proposal.patch_revision).toBe(2);
		expect((await agent.end()).code).toBe(0);

		// A new revision wants fresh votes: the old ones do not apply it.
		const unvoted = await operatorFails("patch.apply", { proposal_id: mine });
		expect(unvoted).toContain("need 2 approvals, have 0");
		await approve(mine);
		await operator("patch.apply", { proposal_id: mine });
		expect(readFileSync(join(root, "src/a.ts"), "utf8")).toBe(resolved);
		expect((await operator("task.get", { task_id: "T-1" })).task.status).toBe("done");
	}, 120_000);
});
