// Headless sessions of the real CLIs, started in the owner by `roundtable sessions start` with the
// adapters' default headless forms, driven by scripted model servers on 127.0.0.1. A Codex
// implementer whose model fails its first request is retried and resumes its conversation
// (`codex exec resume`), then finishes its task; a Claude Code reviewer bound to a proposal reads it
// and votes; one whose model never answers its first request is cut at the wall time and resumes
// (`claude -p --resume`); a Codex whose model never answers is cut, retried, and given up.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultConfig } from "../../src/config/defaults.ts";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { runCli, tempDir } from "../_helpers/helpers.ts";
import { type Owned, operatorCall, ownedProject } from "../_helpers/launch-helpers.ts";
import { codexProvider, type Faults, type Step, serveModel } from "../_helpers/model-server.ts";
import { pinnedClients } from "../_helpers/pinned-clients.ts";
import { clientEnv } from "../_helpers/real-clients-helpers.ts";
import { brief, closed, startSession } from "../_helpers/session-life.ts";

const sandboxed = probeSandbox().kind === "bwrap";
const owners: Owned[] = [];
afterAll(async () => {
	for (const o of owners) {
		o.owner.kill("SIGTERM");
		await o.owner.exited;
	}
});

const binOf = pinnedClients(["codex", "claude"], sandboxed);

const mcp = (name: string, args: Record<string, unknown> = {}): Step => ({ mcp: name, args });

/**
 * A project whose `adapter` runs its default headless form and headless_resume from the pinned
 * install, plus `extra`; its egress the model server only; its owner given `env`.
 */
async function project(
	adapter: "codex" | "claude",
	model: { port: number },
	extra: string[],
	env: Record<string, string>,
	sessions: Record<string, number> = {},
) {
	const defaults = defaultConfig().adapters[adapter];
	const ours = (form: string) => [binOf(adapter), ...form.split(" ").slice(1), ...extra].join(" ");
	const owned = await ownedProject(
		tempDir(`rt-headless-${adapter}-`),
		{ "README.md": "# project\n", "src/a.ts": "export const a = 1;\n" },
		(doc) => {
			doc.setIn(["adapters", adapter, "headless"], ours(defaults?.headless as string));
			doc.setIn(["adapters", adapter, "headless_resume"], ours(defaults?.headless_resume as string));
			doc.setIn(["adapters", adapter, "egress"], [`http://127.0.0.1:${model.port}`]);
			for (const [k, v] of Object.entries(sessions)) doc.setIn(["sessions", k], v);
		},
		{ ...clientEnv(tempDir("rt-headless-home-")), ...env },
	);
	owners.push(owned);
	await operatorCall(owned.root, "task.create", {
		task_id: "T-1",
		title: "Make a two",
		body_md: "Set a to 2 in src/a.ts.",
		assigned_agent_id: "implementer-1",
		readable_paths: ["src/**", "README.md"],
	});
	return owned.root;
}

const transcript = (root: string, id: string) =>
	readFileSync(join(root, ".roundtable/transcripts", `${id}.log`), "utf8");

/** P-1 of T-1, by implementer-1 (its claim taken by the operator for it), in review. */
async function proposalInReview(root: string) {
	await operatorCall(root, "resource.claim", {
		agent_id: "implementer-1",
		task_id: "T-1",
		resource_type: "file",
		resource_id: "file:src/a.ts",
		claim_type: "write",
	});
	await operatorCall(root, "proposal.create", {
		proposal_id: "P-1",
		task_id: "T-1",
		agent_id: "implementer-1",
		title: "a is 2",
		summary_md: "Sets a to 2.",
		affected_resources: [],
		risk: "low",
		patch: "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 2;\n",
	});
	await operatorCall(root, "proposal.request_review", { proposal_id: "P-1" });
}

function codexModel(faults: Faults) {
	return serveModel(
		[
			mcp("agent.brief"),
			mcp("resource.claim", {
				resource_type: "file",
				resource_id: "file:src/a.ts",
				claim_type: "write",
				task_id: "T-1",
			}),
			{
				patch:
					"*** Begin Patch\n*** Update File: src/a.ts\n@@\n-export const a = 1;\n+export const a = 2;\n*** End Patch\n",
			},
			mcp("workspace.propose", { title: "a is 2", summary_md: "Sets a to 2.", risk: "low" }),
			{ say: "Proposed." },
		],
		faults,
	);
}

describe.skipIf(!sandboxed)("real CLIs in headless sessions", () => {
	test("Codex: its model fails the first request; retried, it resumes its conversation and proposes", async () => {
		const model = codexModel({ fail: 1 });
		try {
			const root = await project(
				"codex",
				model,
				codexProvider(model.url),
				{ OPENAI_API_KEY: "scripted" },
				{
					retry_backoff_ms: 200,
				},
			);
			const id = await startSession(
				root,
				"--agent",
				"implementer-1",
				"--task",
				"T-1",
				"--prompt",
				"Do task T-1.",
			);
			const events = await closed(root, id, 120_000);
			expect(brief(events), transcript(root, id).slice(-3000)).toEqual([
				"started 1",
				"exited 1 1",
				"retrying 2",
				"started 2",
				"exited 2 0",
				"closed",
			]);
			// The second run resumed the first's conversation: its first message is still there, and ours follows.
			const thread = events[3]?.payload.resumes as string;
			expect(thread).toMatch(/^[0-9a-f-]{36}$/);
			expect(transcript(root, id)).toContain(`[roundtable] attempt 2, resuming ${thread}`);
			const resumed = JSON.stringify(model.requests.at(-1));
			expect(resumed).toContain("Do task T-1.");
			expect(resumed).toContain("Roundtable started you again (attempt 2)");
			const results = model.results();
			expect(results[3]).toContain('"files":["src/a.ts"]');
			const proposals = (await operatorCall(root, "proposal.list", {})).proposals as { agent_id: string }[];
			expect(proposals.map((p) => p.agent_id)).toEqual(["implementer-1"]);
		} finally {
			model.stop();
		}
	}, 240_000);

	test("Claude Code: a reviewer bound to a proposal reads it and votes, then exits", async () => {
		const model = serveModel([
			mcp("agent.brief"),
			mcp("proposal.get", { proposal_id: "P-1" }),
			mcp("vote.cast", { proposal_id: "P-1", vote: "approve", reason_md: "Sets a to 2, as the task asks." }),
			{ say: "Voted." },
		]);
		try {
			const root = await project("claude", model, ["--model", "scripted"], {
				ANTHROPIC_BASE_URL: model.url,
				ANTHROPIC_API_KEY: "scripted",
			});
			await proposalInReview(root);
			const id = await startSession(
				root,
				"--agent",
				"reviewer-1",
				"--proposal",
				"P-1",
				"--adapter",
				"claude",
			);
			const events = await closed(root, id, 120_000);
			expect(brief(events), transcript(root, id).slice(-3000)).toEqual(["started 1", "exited 1 0", "closed"]);
			expect(model.results()[1]).toContain("+export const a = 2;");
			expect(model.results()[2]).toContain('"vote":"approve"');
			const { votes } = (await operatorCall(root, "vote.list", { proposal_id: "P-1" })) as {
				votes: { agent_id: string; vote: string }[];
			};
			expect(votes.map((v) => [v.agent_id, v.vote])).toEqual([["reviewer-1", "approve"]]);
			// Its conversation was captured from its stream: what `claude --resume` would take.
			const listed = JSON.parse((await runCli(["sessions", "list", "--root", root, "--json"])).stdout) as {
				sessions: { id: string; external_session_id: string | null }[];
			};
			expect(listed.sessions.find((s) => s.id === id)?.external_session_id).toMatch(/^[0-9a-f-]{36}$/);
		} finally {
			model.stop();
		}
	}, 240_000);

	test("Codex: a model that never answers is cut at the wall time, retried, then given up", async () => {
		const model = codexModel({ hang: true });
		try {
			const root = await project(
				"codex",
				model,
				codexProvider(model.url),
				{ OPENAI_API_KEY: "scripted" },
				{
					max_wall_seconds: 4,
					retry_backoff_ms: 200,
				},
			);
			const id = await startSession(
				root,
				"--agent",
				"implementer-1",
				"--task",
				"T-1",
				"--prompt",
				"Do task T-1.",
			);
			const events = await closed(root, id, 120_000);
			expect(brief(events)).toEqual([
				"started 1",
				"exited 1 124",
				"retrying 2",
				"started 2",
				"exited 2 124",
				"gave_up",
				"closed",
			]);
			expect(events[1]?.payload.reason).toBe("stopped at sessions.max_wall_seconds (4 s)");
		} finally {
			model.stop();
		}
	}, 240_000);

	test("Claude Code: its model never answers the first request; cut at the wall time and retried, it resumes its session (--resume) and votes", async () => {
		const model = serveModel(
			[
				mcp("agent.brief"),
				mcp("vote.cast", { proposal_id: "P-1", vote: "approve", reason_md: "Fine." }),
				{ say: "Voted." },
			],
			{ stall: 1 },
		);
		try {
			const root = await project(
				"claude",
				model,
				["--model", "scripted"],
				{ ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "scripted" },
				{ retry_backoff_ms: 200, max_wall_seconds: 6 },
			);
			await proposalInReview(root);
			const id = await startSession(
				root,
				"--agent",
				"reviewer-1",
				"--proposal",
				"P-1",
				"--adapter",
				"claude",
				"--prompt",
				"Review P-1.",
			);
			const events = await closed(root, id, 120_000);
			expect(brief(events), transcript(root, id).slice(-3000)).toEqual([
				"started 1",
				"exited 1 124",
				"retrying 2",
				"started 2",
				"exited 2 0",
				"closed",
			]);
			const conversation = events[3]?.payload.resumes as string;
			expect(conversation).toMatch(/^[0-9a-f-]{36}$/);
			// The resumed request carries the first run's message and the one saying why it was started again.
			const resumed = JSON.stringify(
				model.requests.findLast((b) => Array.isArray(b.tools) && b.tools.length > 0),
			);
			expect(resumed).toContain("Review P-1.");
			expect(resumed).toContain("Roundtable started you again (attempt 2)");
			const { votes } = (await operatorCall(root, "vote.list", { proposal_id: "P-1" })) as {
				votes: { agent_id: string }[];
			};
			expect(votes.map((v) => v.agent_id)).toEqual(["reviewer-1"]);
		} finally {
			model.stop();
		}
	}, 240_000);
});
