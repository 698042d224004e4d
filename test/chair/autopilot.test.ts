// The autopilot end to end with scripted agents (test/fixtures-scripts/team-agent.ts) in their
// sandboxes, a real owner and `roundtable run --goal … --autopilot --headless` beside it: the
// Architect proposes two tasks and nothing else starts until the operator opens them; then an
// implementer per task edits its file in its workspace and proposes; voters are started until the
// default quorum (two, from the one Reviewer and the Architect) is met; the Chair applies both; both
// tasks are done and the run completes. Every start is an `autopilot.launch` event naming why, and
// no more than chair.max_sessions were ever live at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { MAIN, runCli, until } from "../_helpers/helpers.ts";
import { type Owned, operatorCall } from "../_helpers/launch-helpers.ts";
import {
	allowCheck,
	autopilotRun,
	editPolicy,
	events,
	runOf,
	taskOn,
	tasksWith,
	teamProject,
} from "../_helpers/team.ts";

const sandboxed = probeSandbox().kind === "bwrap";

let owned: Owned | undefined;
afterAll(async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
});

describe.skipIf(!sandboxed)("the autopilot", () => {
	let root = "";
	beforeAll(async () => {
		owned = await teamProject({ "a.txt": "a\n", "b.txt": "b\n" }, (doc) => {
			doc.setIn(["chair", "max_sessions"], 3);
			doc.setIn(["sessions", "max_wall_seconds"], 60);
		});
		root = owned.root;
	}, 60_000);

	test("a goal: the Architect proposes, the operator opens, implementers propose, voters meet the quorum, the Chair applies, the run completes", async () => {
		const run = Bun.spawn(
			[
				process.execPath,
				MAIN,
				"run",
				"--root",
				root,
				"--run",
				"R-1",
				"--goal",
				"Leave a note in each file",
				"--autopilot",
				"--headless",
			],
			{ stdout: "pipe", stderr: "pipe" },
		);
		const output = Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
		try {
			// The Architect alone, and nothing else while its tasks are only proposed.
			const proposed = await until(
				async () => {
					const t = await tasksWith(root, "proposed");
					return t.length === 2 && t;
				},
				30_000,
				"the Architect's two proposed tasks",
			);
			await Bun.sleep(1500);
			const early = (await events(root)).filter((e) => e.type === "autopilot.launch");
			expect(early.map((e) => [e.payload.agent_id, e.payload.why])).toEqual([
				["architect-1", "run R-1 has a goal and no tasks yet"],
			]);
			for (const t of proposed) {
				const opened = await runCli(["tasks", "open", t.id, "--root", root]);
				expect(opened.code, opened.stderr).toBe(0);
			}
			expect(await Promise.race([run.exited, Bun.sleep(90_000).then(() => "timed out")])).toBe(0);
		} finally {
			run.kill();
		}
		const [stdout, stderr] = await output;
		// Its sessions: the Architect, two implementers, and voters; none failed or given up.
		expect(stdout, stderr).toMatch(
			/^run R-1 completed after \d+ ticks: all_tasks_and_proposals_terminal; \d+ sessions \(0 live, 0 failed, 0 given up\)$/m,
		);
		expect(readFileSync(join(root, "a.txt"), "utf8")).toMatch(/^a\nnoted by T-\S+\n$/);
		expect(readFileSync(join(root, "b.txt"), "utf8")).toMatch(/^b\nnoted by T-\S+\n$/);
		expect((await tasksWith(root, "done")).map((t) => t.assigned_agent_id).sort()).toEqual([
			"implementer-1",
			"implementer-2",
		]);

		const all = await events(root);
		const launches = all.filter((e) => e.type === "autopilot.launch").map((e) => e.payload);
		const byWhy = (re: RegExp) => launches.filter((l) => re.test(String(l.why)));
		expect(
			byWhy(/is open and assigned to implementer-/)
				.map((l) => l.agent_id)
				.sort(),
		).toEqual(["implementer-1", "implementer-2"]);
		// Each proposal got two voters, neither its author: the Reviewer and the Architect.
		const voters = byWhy(/approvals$/);
		expect(voters).toHaveLength(4);
		for (const v of voters) expect(["reviewer-1", "architect-1"]).toContain(v.agent_id as string);
		expect(all.filter((e) => e.type === "patch.applied").length).toBeGreaterThanOrEqual(2);
		// No more than chair.max_sessions live at once, from the sessions' own start and end.
		const listed = JSON.parse((await runCli(["sessions", "list", "--root", root, "--json"])).stdout) as {
			sessions: { started_at: string; ended_at: string | null }[];
		};
		const edges = listed.sessions.flatMap((s) => [
			[Date.parse(s.started_at), 1],
			[Date.parse(s.ended_at ?? s.started_at), -1],
		]);
		edges.sort((x, y) => (x[0] as number) - (y[0] as number) || (x[1] as number) - (y[1] as number));
		let live = 0;
		let most = 0;
		for (const [, d] of edges) {
			live += d as number;
			most = Math.max(most, live);
		}
		expect(listed.sessions).toHaveLength(7);
		expect(most).toBeLessThanOrEqual(3);
	}, 180_000);

	test("a policy that wants tests: a tester is started, runs them on the proposal, and only then does the Chair apply", async () => {
		const tested = await teamProject(
			{ "a.txt": "a\n", "check.sh": "grep -q '^noted by' a.txt && echo checked\n" },
			(doc) => {
				allowCheck(doc);
			},
		);
		try {
			const at = tested.root;
			await editPolicy(at, "tests_required: false", "tests_required: true");
			await autopilotRun(at, "R-1");
			await taskOn(at, "R-1", "T-1", "a.txt", "implementer-1");
			await until(
				async () => (await runOf(at, "R-1"))?.status === "completed",
				60_000,
				"the run to complete",
			);
			const launches = (await events(at)).filter((e) => e.type === "autopilot.launch").map((e) => e.payload);
			// The Tester is started for the tests; or, when a voter it would replace gave up or is busy,
			// already as a voter, which runs them too (team-agent's Tester runs check.sh before it votes).
			const tester = launches.find((l) => l.agent_id === "tester-1");
			expect(String(tester?.why)).toMatch(
				/needs a passing test run: no passing test run for revision 1|has \d of \d approvals/,
			);
			const runs = (await operatorCall(at, "test.list", {})) as {
				test_runs: { status: string; command: string }[];
			};
			expect(runs.test_runs.map((r) => [r.command, r.status])).toEqual([["sh check.sh", "passed"]]);
			const applied = (await events(at)).find((e) => e.type === "patch.applied");
			const passed = (await events(at)).find((e) => e.type === "test.finished");
			expect(applied && passed && applied.id > passed.id).toBe(true);
			expect(readFileSync(join(at, "a.txt"), "utf8")).toBe("a\nnoted by T-1\n");
		} finally {
			tested.owner.kill("SIGTERM");
			await tested.owner.exited;
		}
	}, 90_000);

	test("a high-risk change: Security is started for its review, the Chair asks a human, and applies once the human approves", async () => {
		const risky = await teamProject({ "auth/notes.txt": "n\n" });
		try {
			const at = risky.root;
			await autopilotRun(at, "R-1");
			await taskOn(at, "R-1", "T-1", "auth/notes.txt", "implementer-1");
			const asked = await until(
				async () => {
					const list = JSON.parse((await runCli(["approvals", "list", "--root", at, "--json"])).stdout) as {
						approvals: { id: string; status: string; requested_by: string; subject: string }[];
					};
					return list.approvals.length > 0 && list.approvals;
				},
				60_000,
				"the Chair to ask a human",
			);
			expect(asked).toMatchObject([
				{ status: "requested", requested_by: "chair-1", subject: "Apply Note in auth/notes.txt" },
			]);
			const launches = (await events(at)).filter((e) => e.type === "autopilot.launch").map((e) => e.payload);
			expect(launches.find((l) => l.agent_id === "security-1")?.why).toMatch(
				/needs the Security role's approval$/,
			);
			// Not applied while it waits for the human; applied on the next tick after.
			await Bun.sleep(2000);
			expect((await events(at)).some((e) => e.type === "patch.applied")).toBe(false);
			expect(
				(await runCli(["approvals", "approve", "--approval", asked[0]?.id as string, "--root", at])).code,
			).toBe(0);
			await until(
				async () => (await runOf(at, "R-1"))?.status === "completed",
				60_000,
				"the run to complete",
			);
			expect(readFileSync(join(at, "auth/notes.txt"), "utf8")).toBe("n\nnoted by T-1\n");
			expect((await events(at)).filter((e) => e.type === "approval.requested")).toHaveLength(1);
		} finally {
			risky.owner.kill("SIGTERM");
			await risky.owner.exited;
		}
	}, 120_000);
});
