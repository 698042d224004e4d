// The autopilot when things go wrong, with scripted agents in their sandboxes and a real owner: a
// quorum no pool can meet is said once (an event, the run's note the dashboard shows) and no voter
// is started for it; an implementer that gives up fails its task while the run goes on with the
// other; the owner killed mid-run is followed by one that resumes the session it left, never a second
// for the same task; a bound reached pauses launching and says so; run.stop stops the run's sessions.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { MAIN, runCli, until } from "../_helpers/helpers.ts";
import { type Owned, operatorCall, startOwner } from "../_helpers/launch-helpers.ts";
import {
	allowCheck,
	autopilotRun,
	editPolicy,
	events,
	eventsOnce,
	runOf,
	taskOn,
	tasksWith,
	teamProject,
} from "../_helpers/team.ts";

const sandboxed = probeSandbox().kind === "bwrap";

let owned: Owned | undefined;
afterEach(async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
	owned = undefined;
});

const sessionsOf = async (root: string) =>
	(
		JSON.parse((await runCli(["sessions", "list", "--root", root, "--json"])).stdout) as {
			sessions: {
				id: string;
				agent_id: string;
				task_id: string | null;
				status: string;
				attempt: number;
				outcome: string | null;
			}[];
		}
	).sessions;

describe.skipIf(!sandboxed)("the autopilot's faults", () => {
	test("a quorum no pool can meet: said once, on the run too, and no voter started in vain", async () => {
		owned = await teamProject({ "a.txt": "a\n" });
		const root = owned.root;
		await editPolicy(root, "approvals_required: 2", "approvals_required: 9");
		await autopilotRun(root, "R-1");
		await taskOn(root, "R-1", "T-1", "a.txt", "implementer-1");
		const said = await eventsOnce(
			root,
			"autopilot.quorum_unreachable",
			30_000,
			"the Chair to say the quorum cannot be met",
		);
		await Bun.sleep(3000); // more ticks: still said once
		const all = await events(root);
		expect(all.filter((x) => x.type === "autopilot.quorum_unreachable")).toHaveLength(1);
		expect(String(said[0]?.payload.why)).toMatch(/needs 9 approvals, and only 4 agents could give one/);
		expect(all.filter((x) => x.type === "autopilot.launch").map((x) => x.payload.agent_id)).toEqual([
			"implementer-1",
		]);
		expect((await runOf(root, "R-1"))?.autopilot_note).toMatch(/needs 9 approvals/);
	}, 60_000);

	test("an implementer that gives up fails its task with why; the run goes on with the other and completes", async () => {
		owned = await teamProject({ "a.txt": "a\n", "broken.txt": "b\n" }, (doc) => {
			doc.setIn(["sessions", "retry_backoff_ms"], 100);
		});
		const root = owned.root;
		await autopilotRun(root, "R-1");
		await taskOn(root, "R-1", "T-ok", "a.txt", "implementer-1");
		await taskOn(root, "R-1", "T-broken", "broken.txt", "implementer-2");
		await until(
			async () => (await runOf(root, "R-1"))?.status === "completed",
			60_000,
			"the run to complete",
		);
		expect((await tasksWith(root, "done")).map((t) => t.id)).toEqual(["T-ok"]);
		const failed = await operatorCall(root, "task.get", { task_id: "T-broken" });
		expect(failed.task.status).toBe("failed");
		const why = (await events(root)).find((e) => e.type === "task.updated" && e.task_id === "T-broken");
		expect(JSON.stringify(why?.payload)).toMatch(
			/implementer-2's session S-\S+ gave up: 2 attempt\(s\) failed; the last: exit 1/,
		);
		expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("a\nnoted by T-ok\n");
		// The run's record and its end count what its sessions came to: one given up.
		const ended = await runOf(root, "R-1");
		expect(ended).toMatchObject({ sessions_live: 0, sessions_failed: 0, sessions_given_up: 1 });
		expect(ended?.sessions_started).toBeGreaterThanOrEqual(4); // two implementers, two voters at least
		const completed = (await events(root)).find((e) => e.type === "orchestrator.completed");
		expect(completed?.payload).toMatchObject({
			tasks: { done: 1, failed: 1 },
			sessions: { live: 0, failed: 0, given_up: 1 },
		});
	}, 90_000);

	test("a voter that gives up is not started again for that proposal; a quorum that needed it is said unreachable, once", async () => {
		owned = await teamProject({ "a.txt": "a\n", "check.sh": "exit 0\n" }, (doc) => {
			doc.setIn(["sessions", "retry_backoff_ms"], 100);
			doc.setIn(["adapters", "broken"], { command: "false", headless: "false" });
			doc.setIn(["agents", "reviewers", "adapter"], "broken");
			allowCheck(doc);
		});
		const root = owned.root;
		// Every voter there is (the Architect, the Reviewer, Security and the Tester) is needed.
		await editPolicy(root, "approvals_required: 2", "approvals_required: 4");
		await autopilotRun(root, "R-1");
		await taskOn(root, "R-1", "T-1", "a.txt", "implementer-1");
		const said = await eventsOnce(
			root,
			"autopilot.quorum_unreachable",
			60_000,
			"the Chair to say the quorum cannot be met",
		);
		expect(String(said[0]?.payload.why)).toMatch(
			/needs 4 approvals, and only 3 agents could give one \(reviewer-1 gave up on it\)/,
		);
		await Bun.sleep(3000); // more ticks: nothing more starts for it
		const reviewer = (await sessionsOf(root)).filter((s) => s.agent_id === "reviewer-1");
		expect(reviewer).toHaveLength(1);
		expect(reviewer[0]).toMatchObject({ status: "ended", attempt: 2, outcome: "gave_up" });
		const all = await events(root);
		expect(all.filter((x) => x.type === "autopilot.quorum_unreachable")).toHaveLength(1);
		expect(
			all.filter((x) => x.type === "autopilot.launch" && x.payload.agent_id === "reviewer-1"),
		).toHaveLength(1);
		expect(await runOf(root, "R-1")).toMatchObject({ status: "active", sessions_given_up: 1 });
	}, 90_000);

	test("the owner killed mid-run: the next one resumes the session it left, never a second for the task", async () => {
		owned = await teamProject({ "slow.txt": "s\n" });
		const root = owned.root;
		await autopilotRun(root, "R-1");
		await taskOn(root, "R-1", "T-1", "slow.txt", "implementer-1");
		await until(
			async () => (await sessionsOf(root)).some((s) => s.task_id === "T-1" && s.attempt === 1),
			30_000,
			"its start",
		);
		owned.owner.kill("SIGKILL");
		await owned.owner.exited;
		owned = await startOwner(root);
		await until(
			async () => (await runOf(root, "R-1"))?.status === "completed",
			60_000,
			"the run to complete",
		);
		const forTask = (await sessionsOf(root)).filter((s) => s.task_id === "T-1");
		expect(forTask).toHaveLength(1);
		expect(forTask[0]?.attempt).toBe(2);
		const proposals = (await operatorCall(root, "proposal.list", {})).proposals as {
			task_id: string;
			status: string;
		}[];
		expect(proposals.filter((p) => p.task_id === "T-1").map((p) => p.status)).toEqual(["accepted"]);
	}, 90_000);

	test("a bound reached pauses launching and says why; run.stop stops launching and the run's sessions", async () => {
		owned = await teamProject({ "hang.txt": "s\n", "hang2.txt": "t\n" }, (doc) => {
			doc.setIn(["run", "max_sessions_total"], 1);
		});
		const root = owned.root;
		await autopilotRun(root, "R-1");
		await taskOn(root, "R-1", "T-1", "hang.txt", "implementer-1");
		await taskOn(root, "R-1", "T-2", "hang2.txt", "implementer-2");
		const paused = await until(
			async () => {
				const r = await runOf(root, "R-1");
				return r?.autopilot === "paused" && r;
			},
			30_000,
			"the autopilot to pause",
		);
		expect(paused.autopilot_note).toBe("run.max_sessions_total reached: 1 sessions started");
		expect((await events(root)).filter((e) => e.type === "autopilot.paused")).toHaveLength(1);
		const watched = (await runCli(["watch", "--root", root, "--limit", "1000"])).stdout;
		expect(watched).toMatch(
			/autopilot\.paused chair-1 - run\.max_sessions_total reached: 1 sessions started\n/,
		);
		expect(watched).toMatch(
			/autopilot\.launch chair-1 T-1 implementer-1 for T-1: task T-1 is open and assigned to implementer-1\n/,
		);
		// Stopped: the live session ends, the autopilot is off, and nothing more starts.
		const stop = await operatorCall(root, "run.stop", { run_id: "R-1" });
		expect(stop.stopping).toHaveLength(1);
		await until(
			async () => (await sessionsOf(root)).every((s) => s.status === "ended"),
			30_000,
			"its session to end",
		);
		expect((await runOf(root, "R-1"))?.autopilot).toBe("off");
		await Bun.sleep(2000);
		expect(await sessionsOf(root)).toHaveLength(1);
		expect((await events(root)).some((e) => e.type === "run.stopped")).toBe(true);
	}, 90_000);
});

describe.skipIf(!sandboxed)("Ctrl-C on `roundtable run --autopilot`", () => {
	test("stops launching and the run's sessions; the run stays active, and --autopilot again goes on", async () => {
		owned = await teamProject({ "slow.txt": "s\n" });
		const root = owned.root;
		await operatorCall(root, "run.open", { run_id: "R-1" });
		await taskOn(root, "R-1", "T-1", "slow.txt", "implementer-1");
		const run = Bun.spawn(
			[process.execPath, MAIN, "run", "--root", root, "--run", "R-1", "--autopilot", "--headless"],
			{
				stdout: "pipe",
				stderr: "pipe",
			},
		);
		const stderr = new Response(run.stderr).text();
		await until(
			async () => (await sessionsOf(root)).some((s) => s.task_id === "T-1" && s.status !== "ended"),
			30_000,
			"its implementer",
		);
		run.kill("SIGINT");
		expect(await run.exited).toBe(0);
		expect(await stderr).toContain("run R-1: the autopilot stopped; its sessions are stopping");
		await until(
			async () => (await sessionsOf(root)).every((s) => s.status === "ended"),
			30_000,
			"its session to end",
		);
		expect(await runOf(root, "R-1")).toMatchObject({ status: "active", autopilot: "off" });
		await Bun.sleep(2000);
		expect(await sessionsOf(root)).toHaveLength(1);
		// Again with --autopilot: it goes on, and finishes the work.
		const again = await runCli(["run", "--root", root, "--run", "R-1", "--autopilot", "--headless"]);
		expect(again.code, again.stderr).toBe(0);
		// The session Ctrl-C stopped counts as stopped, not failed.
		expect(again.stdout).toMatch(
			/^run R-1 completed after \d+ ticks: all_tasks_and_proposals_terminal; \d+ sessions \(0 live, 0 failed, 0 given up\)$/m,
		);
		// The implementer Ctrl-C stopped counts as stopped; a second one (when the first had not
		// proposed yet) succeeded.
		const outcomes = (await sessionsOf(root)).filter((s) => s.task_id === "T-1").map((s) => s.outcome);
		expect(outcomes.sort()).toEqual(outcomes.length === 2 ? ["stopped", "succeeded"] : ["stopped"]);
		expect((await tasksWith(root, "done")).map((t) => t.id)).toEqual(["T-1"]);
	}, 120_000);
});
