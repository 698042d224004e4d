// The autopilot with the real CLIs, each driven by a scripted model server on 127.0.0.1 that answers
// every conversation by what its first message says: Claude Code as the Architect proposes two tasks
// for the goal; the operator opens them from the CLI; a Codex implementer per task claims its file,
// edits it with apply_patch in its workspace and proposes; Claude Code voters (the Reviewer and the
// Architect, never the author) approve until the default quorum is met; the Chair applies both; both
// tasks are done and the run completes. No model service is reached.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Browser } from "playwright-core";
import type { Document } from "yaml";
import { defaultConfig } from "../../src/config/defaults.ts";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { runCli, tempDir, until } from "../_helpers/helpers.ts";
import { type Owned, operatorCall, ownedProject } from "../_helpers/launch-helpers.ts";
import { codexProvider, type Step, serveModel } from "../_helpers/model-server.ts";
import { pinnedClients } from "../_helpers/pinned-clients.ts";
import { clientEnv } from "../_helpers/real-clients-helpers.ts";
import { allowCheck, editPolicy, events, tasksWith } from "../_helpers/team.ts";
import { chromiumMissing, launchBrowser, type PageGlobals } from "../dashboard/browser.ts";

declare const location: PageGlobals["location"];

const sandboxed = probeSandbox().kind === "bwrap";
const binOf = pinnedClients(["codex", "claude"], sandboxed);

let owned: Owned | undefined;
afterAll(async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
});

/** The CLI's default headless form, from its pinned install, plus `extra`. */
const headless = (cli: "codex" | "claude", extra: string[]) =>
	[binOf(cli), ...(defaultConfig().adapters[cli]?.headless ?? "").split(" ").slice(1), ...extra].join(" ");

const mcp = (name: string, args: Record<string, unknown> = {}): Step => ({ mcp: name, args });
const FILES = ["a.txt", "b.txt"];

/** Every conversation's next step, by its binding (its first message) and how far it got. */
function team(request: string, n: number): Step | undefined {
	const proposal = /You are here for proposal (P-[0-9a-f-]+)\./.exec(request)?.[1];
	if (proposal)
		return [
			mcp("vote.cast", { proposal_id: proposal, vote: "approve", reason_md: "Adds the note." }),
			{ say: "Voted." },
		][n];
	const task = /Your task is (T-[0-9a-f-]+)\./.exec(request)?.[1];
	if (task) {
		const file = /Note in ([a-z/]+\.txt)/.exec(request)?.[1] as string;
		return [
			mcp("resource.claim", {
				resource_type: "file",
				resource_id: `file:${file}`,
				claim_type: "write",
				task_id: task,
			}),
			{
				// Each file's first line is its name's first letter (a.txt: "a", auth/notes.txt: "n").
				patch: `*** Begin Patch\n*** Update File: ${file}\n@@\n ${basename(file)[0]}\n+noted by codex\n*** End Patch\n`,
			},
			mcp("workspace.propose", { title: `Note in ${file}`, summary_md: "Adds the note.", risk: "low" }),
			{ say: "Proposed." },
		][n];
	}
	const run = /You work on run (R-[^.\s]+)\./.exec(request)?.[1];
	if (run)
		return [
			...FILES.map((file, i) =>
				mcp("task.create", {
					title: `Note in ${file}`,
					body_md: `Add a note to ${file}.`,
					run_id: run,
					readable_paths: [file],
					assigned_agent_id: `implementer-${i + 1}`,
				}),
			),
			{ say: "Proposed two tasks." },
		][n];
	return undefined;
}

/**
 * A project whose Codex and Claude Code run their default headless forms against `model` (their
 * only egress), the reviewers on Claude Code, `configure`'s edits on top; its owner holds the keys.
 */
function realTeam(
	model: { url: string; port: number },
	files: Record<string, string>,
	configure: (doc: Document) => void,
) {
	return ownedProject(
		tempDir("rt-autopilot-real-"),
		files,
		(doc) => {
			doc.setIn(
				["adapters", "codex", "headless"],
				headless("codex", ["--ephemeral", ...codexProvider(model.url)]),
			);
			doc.setIn(["adapters", "claude", "headless"], headless("claude", ["--model", "scripted"]));
			for (const cli of ["codex", "claude"])
				doc.setIn(["adapters", cli, "egress"], [`http://127.0.0.1:${model.port}`]);
			doc.setIn(["agents", "reviewers", "adapter"], "claude");
			configure(doc);
		},
		{
			...clientEnv(tempDir("rt-autopilot-home-")),
			OPENAI_API_KEY: "scripted",
			ANTHROPIC_API_KEY: "scripted",
			ANTHROPIC_BASE_URL: model.url,
		},
	);
}

/** Run R-1 with the autopilot and a goal; once the Architect proposed two tasks, the operator opens them. */
async function goalOpened(root: string) {
	await operatorCall(root, "run.open", { run_id: "R-1", goal: "Leave a note in each file", autopilot: true });
	const proposed = await until(
		async () => {
			const t = await tasksWith(root, "proposed");
			return t.length === 2 && t;
		},
		120_000,
		"Claude Code's two proposed tasks",
	);
	for (const t of proposed) expect((await runCli(["tasks", "open", t.id, "--root", root])).code).toBe(0);
}

describe.skipIf(!sandboxed)("the autopilot with the real CLIs", () => {
	test("Claude Code proposes, the operator opens, Codex implements, Claude Code votes, the Chair applies, the run completes", async () => {
		const model = serveModel(team);
		try {
			owned = await realTeam(model, { "a.txt": "a\n", "b.txt": "b\n" }, (doc) =>
				doc.setIn(["chair", "max_sessions"], 3),
			);
			const root = owned.root;
			const started = performance.now();
			await goalOpened(root);
			await until(
				async () =>
					((await operatorCall(root, "table.get_state", {})).runs as { id: string; status: string }[])[0]
						?.status === "completed",
				180_000,
				"the run to complete",
			);
			const seconds = (performance.now() - started) / 1000;
			console.log(`the autopilot run with the real CLIs took ${seconds.toFixed(1)} s`);
			for (const file of FILES)
				expect(readFileSync(join(root, file), "utf8")).toBe(`${file[0]}\nnoted by codex\n`);
			expect((await tasksWith(root, "done")).map((t) => t.assigned_agent_id).sort()).toEqual([
				"implementer-1",
				"implementer-2",
			]);
			const all = await events(root);
			const launched = all
				.filter((e) => e.type === "autopilot.launch")
				.map((e) => String(e.payload.agent_id));
			expect(launched.sort()).toEqual([
				"architect-1",
				"architect-1",
				"architect-1",
				"implementer-1",
				"implementer-2",
				"reviewer-1",
				"reviewer-1",
			]);
			expect(all.filter((e) => e.type === "patch.applied")).toHaveLength(2);
			expect(all.filter((e) => e.type === "session.egress_refused")).toEqual([]);
		} finally {
			model.stop();
		}
	}, 400_000);

	test.skipIf(chromiumMissing !== null)(
		"with the whole governance: Security reviews the risky one, a Codex tester runs the tests, a human approves on the dashboard, both apply",
		async () => {
			const files = {
				"a.txt": "a\n",
				"auth/notes.txt": "n\n",
				"check.sh": "echo checked\n",
			};
			const steps = (request: string, n: number): Step | undefined => {
				const proposal = /You are here for proposal (P-[0-9a-f-]+)\./.exec(request)?.[1];
				const role = /You are \S+ \((\w+)\)/.exec(request)?.[1];
				if (proposal && role === "Tester")
					return [
						mcp("test.run", { proposal_id: proposal, command: "sh check.sh" }),
						mcp("vote.cast", { proposal_id: proposal, vote: "approve", reason_md: "Its check passes." }),
						{ say: "Tested." },
					][n];
				if (proposal && role === "Security")
					return [
						mcp("security.review", {
							proposal_id: proposal,
							status: "approved",
							summary_md: "A note, nothing risky.",
						}),
						mcp("vote.cast", { proposal_id: proposal, vote: "approve", reason_md: "Safe." }),
						{ say: "Reviewed." },
					][n];
				const run = /You work on run (R-[^.\s]+)\./.exec(request)?.[1];
				if (run && !proposal)
					return [
						...["a.txt", "auth/notes.txt"].map((f, i) =>
							mcp("task.create", {
								title: `Note in ${f}`,
								body_md: `Add a note to ${f}.`,
								run_id: run,
								readable_paths: [f, "check.sh"],
								assigned_agent_id: `implementer-${i + 1}`,
							}),
						),
						{ say: "Proposed two tasks." },
					][n];
				return team(request, n);
			};
			owned?.owner.kill("SIGTERM");
			await owned?.owner.exited;
			const model = serveModel(steps);
			let browser: Browser | undefined;
			try {
				owned = await realTeam(model, files, (doc) => {
					doc.setIn(["chair", "max_sessions"], 4);
					allowCheck(doc);
				});
				const root = owned.root;
				await editPolicy(root, "tests_required: false", "tests_required: true");
				const started = performance.now();
				await goalOpened(root);
				// The risky one waits for a human: approved on the dashboard, in a real browser.
				const token = readFileSync(join(root, ".roundtable/operator.token"), "utf8").trim();
				browser = await launchBrowser();
				const page = await (await browser.newContext()).newPage();
				await page.goto(`${new URL(owned.url).origin}/?token=${token}`);
				await page.evaluate(() => {
					location.hash = "#/approvals";
				});
				await page.getByRole("button", { name: "Approve…" }).first().click({ timeout: 180_000 });
				await page.getByRole("button", { name: "Confirm approval" }).click();
				await until(
					async () =>
						((await operatorCall(root, "table.get_state", {})).runs as { status: string }[])[0]?.status ===
						"completed",
					120_000,
					"the run to complete",
				).catch(async (err) => {
					for (const e of (await events(root)).slice(-60))
						console.error(`${e.type} ${JSON.stringify(e.payload).slice(0, 250)}`);
					throw err;
				});
				console.log(
					`the autopilot run with the whole governance took ${((performance.now() - started) / 1000).toFixed(1)} s`,
				);
				expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("a\nnoted by codex\n");
				expect(readFileSync(join(root, "auth/notes.txt"), "utf8")).toBe("n\nnoted by codex\n");
				const all = await events(root);
				const launched = all.filter((e) => e.type === "autopilot.launch").map((e) => e.payload);
				expect(launched.some((l) => l.agent_id === "security-1")).toBe(true);
				expect(launched.filter((l) => l.agent_id === "tester-1").length).toBeGreaterThanOrEqual(2);
				const tests = (await operatorCall(root, "test.list", {})) as { test_runs: { status: string }[] };
				expect(tests.test_runs.map((t) => t.status)).toEqual(["passed", "passed"]);
				expect(all.filter((e) => e.type === "patch.applied")).toHaveLength(2);
				const approved = all.filter((e) => e.type === "approval.decided");
				expect(approved.length).toBeGreaterThanOrEqual(1);
			} finally {
				await browser?.close();
				model.stop();
			}
		},
		500_000,
	);
});
