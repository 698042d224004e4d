// End to end under a live owner whose Chair ticks: three launched sessions (implementer, reviewer,
// tester), each a scripted MCP client reaching its own session through the stdio bridge, take a task
// from open to applied, with one operator approval and the apply from the CLI. Every change is made
// by the agent it belongs to, and no agent could have made another's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";
import { parseDocument } from "yaml";
import { commitAll, diffOf, MAIN, REPO, readyLine, runCli, tempDir, until } from "../_helpers/helpers.ts";

const AGENT = join(REPO, "test/fixtures-scripts/scripted-agent.ts");
let root = "";
let owner: Subprocess<"ignore", "pipe", "pipe"> | undefined;

const operator = async (tool: string, args: object) => {
	const r = await runCli(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args)]);
	if (r.code !== 0) throw new Error(`${tool}: ${r.stderr}`);
	return JSON.parse(r.stdout);
};

/** Launches `agent` bound as given, running the scripted client with `script`; its results, in order. */
async function agent(id: string, binding: string[], script: [string, object][]) {
	const r = await runCli(
		[
			"sessions",
			"launch",
			"--root",
			root,
			"--agent",
			id,
			...binding,
			"--adapter",
			"generic",
			"--",
			process.execPath,
			AGENT,
			process.execPath,
			MAIN,
			"mcp",
			"stdio",
		],
		{ env: { ...process.env, SCRIPT: JSON.stringify(script) } },
	);
	const results = r.stdout
		.split("\n")
		.filter((l) => l.startsWith("{"))
		.map((l) => JSON.parse(l) as { tool: string; isError: boolean; result: Record<string, unknown> });
	expect({ id, code: r.code, failed: results.filter((x) => x.isError) }, r.stderr).toEqual({
		id,
		code: 0,
		failed: [],
	});
	return results;
}

beforeAll(async () => {
	root = tempDir("rt-e2e-");
	commitAll(root, { "src/greet.ts": "export const greet = 'hi';\n" });
	expect((await runCli(["init", "--root", root])).code).toBe(0);
	const config = join(root, ".roundtable/config.yaml");
	const doc = parseDocument(readFileSync(config, "utf8"));
	doc.setIn(["mcp", "http_address"], "127.0.0.1:0");
	doc.setIn(["tests", "allowed_commands"], ["true", "npm test"]);
	// The scripted agent and its script: what a sandbox shows and passes on beyond its allowlist.
	doc.setIn(["sandbox", "expose"], [dirname(AGENT)]);
	doc.setIn(["adapters", "generic", "env"], ["SCRIPT"]);
	writeFileSync(config, doc.toString());
	owner = Bun.spawn([process.execPath, MAIN, "start", "--root", root, "--interval", "200ms"], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const stderr = new Response(owner.stderr).text();
	await readyLine(owner, 20_000, () => stderr);
}, 60_000);

afterAll(async () => {
	owner?.kill("SIGTERM");
	await owner?.exited;
});

test("implementer, reviewer and tester sessions take a task from open to applied while the Chair ticks", async () => {
	await operator("run.open", { run_id: "RUN-e2e", goal: "greet properly" });
	await operator("task.create", {
		task_id: "T-greet",
		title: "Greet properly",
		body_md: "greet should say hello",
		run_id: "RUN-e2e",
		readable_paths: ["src"],
	});
	// The Chair assigns the open task to an implementer.
	const assigned = await until(
		async () =>
			((await operator("task.get", { task_id: "T-greet" })) as { task: { assigned_agent_id: string | null } })
				.task.assigned_agent_id,
		15_000,
		"the Chair to assign T-greet",
	);
	expect(assigned).toBe("implementer-1");

	const patch = diffOf(root, "src/greet.ts", "export const greet = 'hello';\n");
	const work = await agent(
		"implementer-1",
		["--task", "T-greet"],
		[
			[
				"resource.claim",
				{
					agent_id: "implementer-1",
					task_id: "T-greet",
					resource_type: "file",
					resource_id: "file:src/greet.ts",
					claim_type: "write",
				},
			],
			["repo.read_file", { path: "src/greet.ts" }],
			[
				"proposal.create",
				{
					proposal_id: "P-greet",
					task_id: "T-greet",
					agent_id: "implementer-1",
					title: "Say hello",
					summary_md: "hi → hello",
					affected_resources: ["file:src/greet.ts"],
					risk: "normal",
					patch,
				},
			],
			[
				"human.request_approval",
				{ approval_id: "H-greet", subject: "Say hello", reason_md: "please look", proposal_id: "P-greet" },
			],
		],
	).catch((err) => {
		throw err;
	});
	expect(work.map((w) => w.tool)).toContain("proposal.create");

	for (const [who, steps] of [
		[
			"reviewer-1",
			[
				[
					"vote.cast",
					{ proposal_id: "P-greet", agent_id: "reviewer-1", vote: "approve", reason_md: "reads well" },
				],
			],
		],
		[
			"tester-1",
			[
				["test.run", { command: "true", proposal_id: "P-greet" }],
				[
					"vote.cast",
					{ proposal_id: "P-greet", agent_id: "tester-1", vote: "approve", reason_md: "tests pass" },
				],
			],
		],
	] as [string, [string, object][]][]) {
		await agent(who, ["--proposal", "P-greet"], steps);
	}

	// The operator's one approval and the apply, from the CLI.
	expect((await runCli(["approvals", "approve", "--root", root, "--approval", "H-greet"])).code).toBe(0);
	const validation = (await operator("patch.validate", { proposal_id: "P-greet" })) as {
		approvable: boolean;
		gates: unknown[];
	};
	expect(validation.approvable, JSON.stringify(validation.gates)).toBe(true);
	await operator("patch.apply", { proposal_id: "P-greet" });
	expect(readFileSync(join(root, "src/greet.ts"), "utf8")).toBe("export const greet = 'hello';\n");

	// Each change was made by the agent it belongs to.
	const events = (
		(await operator("table.watch", { after_event_id: 0, limit: 1000 })) as {
			events: { type: string; actor_id: string; payload: Record<string, unknown> }[];
		}
	).events;
	const by = (type: string) => events.filter((e) => e.type === type).map((e) => e.actor_id);
	expect(by("task.assigned")).toEqual(["chair-1"]);
	expect(by("proposal.created")).toEqual(["implementer-1"]);
	expect(by("vote.cast").sort()).toEqual(["reviewer-1", "tester-1"]);
	expect(by("approval.requested")).toEqual(["implementer-1"]);
	expect(by("approval.decided")).toEqual(["operator"]);
	expect(by("test.started")).toEqual(["tester-1"]);
	expect(events.filter((e) => e.type === "session.closed")).toHaveLength(3);
	expect(by("patch.applied")).toEqual(["operator"]);
	// The implementer read its file through its claim, inside the task's readable_paths.
	expect(work[1]).toMatchObject({
		tool: "repo.read_file",
		result: { content: "export const greet = 'hi';\n" },
	});
}, 120_000);
