// The real Codex CLI and Claude Code, launched by `roundtable sessions launch` in its sandbox with the
// adapter's own configuration, driven by a scripted model server on 127.0.0.1 (the adapter's only
// egress). Each reads its briefing, claims a file, edits it with its own edit tool, looks around
// its workspace, and proposes what it changed; the proposal is exactly that change, and after two
// votes and patch.apply the project has it and the task is done. No model service is reached.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultConfig } from "../../src/config/defaults.ts";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { runCli, tempDir } from "../_helpers/helpers.ts";
import { launchArgs, type Owned, operatorCall, ownedProject } from "../_helpers/launch-helpers.ts";
import { codexProvider, type Step, serveModel } from "../_helpers/model-server.ts";
import { pinnedClients } from "../_helpers/pinned-clients.ts";
import { clientEnv } from "../_helpers/real-clients-helpers.ts";

const sandboxed = probeSandbox().kind === "bwrap";
const owners: Owned[] = [];
afterAll(async () => {
	for (const o of owners) {
		o.owner.kill("SIGTERM");
		await o.owner.exited;
	}
});

const binOf = pinnedClients(["codex", "claude"], sandboxed);

const FILES = {
	"README.md": "# project\n",
	"src/a.ts": "export const a = 1;\n",
	"src/b.ts": "export const b = 1;\n",
	"private/plans.md": "PRIVATE-PLANS\n",
};

/** What the agent runs to look around: its files, its git history, and the file it may not read. */
const LOOK =
	"ls -A; git log --all --format=%s; git cat-file --batch-all-objects --batch-check | wc -l; cat private/plans.md 2>&1 || true; ls /workspace/private 2>&1 || true";

const mcp = (name: string, args: Record<string, unknown> = {}): Step => ({ mcp: name, args });
const CLAIM = mcp("resource.claim", {
	resource_type: "file",
	resource_id: "file:src/a.ts",
	claim_type: "write",
	task_id: "T-1",
});
const PROPOSE = mcp("workspace.propose", { title: "a is 2", summary_md: "Sets a to 2.", risk: "low" });

const operator = operatorCall;

/**
 * A project whose implementer-1 runs `adapter`'s default headless form (the tests have no terminal)
 * from its pinned install, plus `extra` (the scripted model's provider), its egress that model only.
 */
async function project(adapter: "codex" | "claude", extra: string[], egress: string) {
	const headless = defaultConfig().adapters[adapter]?.headless as string;
	expect(headless.split(" ")[0]).toBe(adapter);
	const command = [binOf(adapter), ...headless.split(" ").slice(1), ...extra].join(" ");
	const owned = await ownedProject(tempDir(`rt-real-${adapter}-`), FILES, (doc) => {
		doc.setIn(["adapters", adapter, "headless"], command);
		doc.setIn(["adapters", adapter, "egress"], [egress]);
	});
	owners.push(owned);
	await operator(owned.root, "task.create", {
		task_id: "T-1",
		title: "Make a two",
		body_md: "Set a to 2 in src/a.ts.",
		assigned_agent_id: "implementer-1",
		readable_paths: ["src/**", "README.md"],
	});
	return owned.root;
}

/** Launches implementer-1 on T-1 with `adapter`, as a script would, with `env` for its CLI and `prompt`. */
async function launched(root: string, adapter: string, env: Record<string, string>, prompt: string[]) {
	const home = tempDir("rt-real-home-");
	const options = ["--task", "T-1", "--adapter", adapter, ...prompt];
	return runCli(launchArgs(root, "implementer-1", options, []), { env: { ...clientEnv(home), ...env } });
}

/** The proposal the agent made holds exactly its change; two votes and patch.apply land it; T-1 is done. */
async function landsExactly(root: string) {
	const listed = await operator(root, "proposal.list", {});
	const proposals = listed.proposals as { id: string; task_id: string; agent_id: string }[];
	expect(proposals).toHaveLength(1);
	const p = proposals[0] as { id: string; task_id: string; agent_id: string };
	expect(p).toMatchObject({ task_id: "T-1", agent_id: "implementer-1" });
	const got = await operator(root, "proposal.get", { proposal_id: p.id });
	const patch = JSON.stringify(got);
	expect(patch).toContain("-export const a = 1;");
	expect(patch).toContain("+export const a = 2;");
	expect(patch).not.toContain("b.ts");
	await operator(root, "proposal.request_review", { proposal_id: p.id });
	for (const agent of ["architect-1", "reviewer-1"])
		await operator(root, "vote.cast", {
			proposal_id: p.id,
			agent_id: agent,
			vote: "approve",
			reason_md: "ok",
		});
	await operator(root, "patch.apply", { proposal_id: p.id, applied_by: "operator" });
	expect(readFileSync(join(root, "src/a.ts"), "utf8")).toBe("export const a = 2;\n");
	expect(readFileSync(join(root, "src/b.ts"), "utf8")).toBe("export const b = 1;\n");
	const task = await operator(root, "task.get", { task_id: "T-1" });
	expect(task.task.status).toBe("done");
}

/**
 * What the agent saw of its workspace: its files; one commit, whose objects are the base's files
 * and nothing else (a commit, two trees, three blobs, and the edited a.ts is not committed); no
 * private/ at all.
 */
function sawOnlyItsBase(looked: string) {
	expect(looked).toContain(
		[
			".git",
			"README.md",
			"src",
			"The project's files this task may read",
			"6",
			"cat: private/plans.md: No such file or directory",
			"ls: cannot access '/workspace/private': No such file or directory",
		].join("\n"),
	);
}

/** The CLI reached nothing but the model server: no refused connection was recorded. */
async function reachedNothingElse(root: string) {
	const r = await runCli(["watch", "--root", root, "--limit", "500", "--json"]);
	const events = (JSON.parse(r.stdout) as { events: { type: string; payload: unknown }[] }).events;
	expect(events.filter((e) => e.type === "session.egress_refused")).toEqual([]);
	expect(events.some((e) => e.type === "session.closed")).toBe(true);
}

describe.skipIf(!sandboxed)("real agent CLIs in a launched session", () => {
	test("Codex 0.171.0: brief, claim, apply_patch, propose; the proposal is that change and lands", async () => {
		const model = serveModel([
			mcp("agent.brief"),
			CLAIM,
			{
				patch:
					"*** Begin Patch\n*** Update File: src/a.ts\n@@\n-export const a = 1;\n+export const a = 2;\n*** End Patch\n",
			},
			{ shell: LOOK },
			PROPOSE,
			{ say: "Proposed." },
		]);
		try {
			const provider = codexProvider(model.url);
			const root = await project("codex", ["--ephemeral", ...provider], `http://127.0.0.1:${model.port}`);
			const r = await launched(root, "codex", { OPENAI_API_KEY: "scripted" }, ["--prompt", "Do task T-1."]);
			expect(JSON.stringify(model.requests[0])).toContain("Do task T-1.");
			const results = model.results();
			expect(results, r.stdout + r.stderr).toHaveLength(5);
			expect(results[0]).toContain('"required_next_action":"Resume task T-1');
			expect(results[1]).toContain('"claim_type":"write"');
			expect(results[2]).toContain("M src/a.ts");
			sawOnlyItsBase(results[3] as string);
			expect(results[4]).toContain('"files":["src/a.ts"]');
			await reachedNothingElse(root);
			await landsExactly(root);
		} finally {
			model.stop();
		}
	}, 180_000);

	test("Claude Code 2.1.332: brief, claim, Read then Edit, propose; the proposal is that change and lands", async () => {
		const file = "/workspace/src/a.ts";
		const model = serveModel([
			mcp("agent.brief"),
			CLAIM,
			{ tool: "Read", input: { file_path: file } },
			{
				tool: "Edit",
				input: { file_path: file, old_string: "export const a = 1;", new_string: "export const a = 2;" },
			},
			{ tool: "Bash", input: { command: LOOK, description: "Look around" } },
			PROPOSE,
			{ say: "Proposed." },
		]);
		try {
			const root = await project("claude", ["--model", "scripted"], `http://127.0.0.1:${model.port}`);
			// No --prompt: a headless session's first message says who it is, its briefing and the rules.
			const r = await launched(
				root,
				"claude",
				{ ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "scripted" },
				[],
			);
			const first = JSON.stringify(model.requests.find((b) => Array.isArray(b.tools) && b.tools.length > 0));
			expect(first).toContain("You are implementer-1 (Implementer), working through Roundtable's MCP tools");
			expect(first).toContain("Required next action: Resume task T-1");
			expect(first).toContain("The project's rules for agents (AGENTS.ROUNDTABLE.md)");
			const results = model.results();
			expect(results, r.stdout.slice(-4000) + r.stderr).toHaveLength(6);
			expect(results[0]).toContain('"required_next_action":"Resume task T-1');
			expect(results[1]).toContain('"claim_type":"write"');
			expect(results[2]).toContain("export const a = 1;");
			expect(results[3]).toContain("has been updated");
			sawOnlyItsBase(results[4] as string);
			expect(results[5]).toContain('"files":["src/a.ts"]');
			await reachedNothingElse(root);
			await landsExactly(root);
		} finally {
			model.stop();
		}
	}, 180_000);
});
