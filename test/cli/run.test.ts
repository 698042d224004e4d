// `roundtable run` through the real CLI: headless creates (or continues, or resumes) a run, ticks it
// N times as its own owner and prints where it stands (and the open peer questions); a run whose work is all done completes; an
// ended run is revived only with --resume; beside a live `start` owner it lets that owner's Chair
// tick and waits; beside `mcp serve` (no Chair) it refuses; without a terminal the interactive view
// refuses with a hint.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { allEvents, MAIN, makeProject, type Project, readyLine, runCli } from "../_helpers/helpers.ts";

const LOOPBACK_ANY_PORT = "mcp:\n  http_address: 127.0.0.1:0\n";

interface Run {
	id: string;
	status: string;
	ticks: number;
	convergence: string | null;
	goal: string;
	ended_at: string | null;
}

const getRun = async (p: Project, id: string) =>
	(await p.rt.store.withTransaction("read", (tx) => tx.runs.get(id))) as unknown as Run;

const headless = (p: Project, ...args: string[]) => runCli(["run", "--headless", "--root", p.root, ...args]);

const spawned: Subprocess[] = [];
afterAll(async () => {
	for (const proc of spawned) {
		if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
		await proc.exited;
	}
});

/** A background owner (`start` or `mcp serve`), once its ready line is out. */
async function owner(p: Project, command: string[]): Promise<Subprocess<"ignore", "pipe", "pipe">> {
	const proc = Bun.spawn([process.execPath, MAIN, ...command, "--root", p.root], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	spawned.push(proc);
	await readyLine(proc, 20_000, () => new Response(proc.stderr).text());
	return proc;
}

describe("roundtable run --headless, as its own owner", () => {
	test("creates the run, ticks it once, prints where it stands, regenerates the MCP assets", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const manifest = join(p.root, ".roundtable/mcp/AGENT_MCP_MANIFEST.md");
		rmSync(manifest);
		const r = await headless(p, "--run", "RUN-1", "--goal", "Ship it");
		expect(r.stderr).toContain("created run RUN-1");
		// As its own owner it serves the dashboard too, and says where, after its ready line.
		expect(r.stderr).toMatch(
			/roundtable ready: [^\n]*\nroundtable dashboard: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}\n/,
		);
		expect([r.code, r.stdout]).toEqual([0, "run RUN-1 active after 1 tick: awaiting_initial_work\n"]);
		expect(await getRun(p, "RUN-1")).toMatchObject({ status: "active", goal: "Ship it", ticks: 1 });
		expect(existsSync(manifest)).toBe(true);
		const created = (await allEvents(p)).find((e) => e.type === "run.created");
		expect(created?.payload).toEqual({ run_id: "RUN-1", goal: "Ship it", scope: [], status: "active" });
		// The owner it was is gone: nothing left to find.
		expect(existsSync(join(p.root, ".roundtable/owner.json"))).toBe(false);
	});

	test("after where the run stands, the open peer questions: how many, the oldest few", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		await p.rt.store.withTransaction("write", async (tx) => {
			for (const [i, to] of ["operator", "implementer-1", "operator", "tester-1"].entries()) {
				const request = { requester_id: "reviewer-1", assignee_id: to, task_id: null, proposal_id: null };
				const at = new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString();
				await tx.peers.insert({ id: `Q-${i + 1}`, question_md: `Question ${i + 1}?\nMore.`, ...request }, at);
			}
		});
		const r = await headless(p, "--run", "RUN-1");
		expect([r.code, r.stdout]).toEqual([
			0,
			[
				"run RUN-1 active after 1 tick: awaiting_initial_work",
				"open questions 4 (oldest first):",
				"  Q-1 reviewer-1 → operator: Question 1?",
				"  Q-2 reviewer-1 → implementer-1: Question 2?",
				"  Q-3 reviewer-1 → operator: Question 3?",
				"  (+1 more)",
				"",
			].join("\n"),
		]);
	});

	test("a new run id is minted when none is given", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const r = await headless(p);
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/^run RUN-[0-9a-f-]{36} active after 1 tick: awaiting_initial_work\n$/);
	});

	test("--max-iterations N ticks N times; the Chair assigns the run's open task on the way", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		expect((await headless(p, "--run", "RUN-1")).code).toBe(0);
		await p.call("task.create", { title: "Do it", body_md: "b", run_id: "RUN-1" });
		const r = await headless(p, "--run", "RUN-1", "--max-iterations", "3", "--interval", "100ms");
		expect(r.stderr).toContain("continued run RUN-1");
		expect([r.code, r.stdout]).toEqual([0, "run RUN-1 active after 4 ticks: work_remains\n"]);
		const assigned = (await allEvents(p)).filter((e) => e.type === "task.assigned");
		expect(assigned.map((e) => e.payload.assigned_agent_id)).toEqual(["implementer-1"]);
	});

	test("a run whose tasks are all done completes, and stops ticking before N", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		expect((await headless(p, "--run", "RUN-1")).code).toBe(0);
		const { task } = (await p.call("task.create", { title: "t", body_md: "b", run_id: "RUN-1" })) as {
			task: { id: string };
		};
		await p.call("task.update_status", { task_id: task.id, status: "done" });
		const r = await headless(p, "--run", "RUN-1", "--max-iterations", "5", "--interval", "100ms");
		expect([r.code, r.stdout]).toEqual([
			0,
			"run RUN-1 completed after 2 ticks: all_tasks_and_proposals_terminal\n",
		]);
		const run = await getRun(p, "RUN-1");
		expect(run.ended_at).not.toBeNull();
		const done = (await allEvents(p)).find((e) => e.type === "orchestrator.completed");
		// What the run leaves: its tasks by status, and its sessions (none here).
		expect(done?.payload).toEqual({
			iterations: 2,
			reason: "all_tasks_and_proposals_terminal",
			tasks: { done: 1 },
			sessions: { started: 0, live: 0, failed: 0, given_up: 0 },
		});
	});

	test("an ended run is refused without --resume, and made active again with it", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const now = new Date().toISOString();
		await p.rt.store.withTransaction("write", async (tx) => {
			await tx.runs.insert({ id: "RUN-old", goal: "before", status: "active" }, now);
			await tx.runs.finish("RUN-old", "completed", now);
		});
		const refused = await headless(p, "--run", "RUN-old");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain("run RUN-old is completed; pass --resume to make it active again");
		expect((await getRun(p, "RUN-old")).status).toBe("completed");

		const resumed = await headless(p, "--resume", "--goal", "again");
		expect(resumed.stderr).toContain("resumed run RUN-old");
		expect(resumed.code).toBe(0);
		expect(await getRun(p, "RUN-old")).toMatchObject({ status: "active", goal: "again", ended_at: null });
		expect((await allEvents(p)).map((e) => e.type)).toContain("run.resumed");
	});

	test("--resume with nothing to resume, and a bad --max-iterations, are clear errors", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const nothing = await headless(p, "--resume");
		expect([nothing.code, nothing.stderr.includes("there is no run to resume")]).toEqual([1, true]);
		const unknown = await headless(p, "--resume", "--run", "RUN-x");
		expect([unknown.code, unknown.stderr.includes("run RUN-x not found")]).toEqual([1, true]);
		const zero = await headless(p, "--max-iterations", "0");
		expect(zero.code).toBe(2);
		expect(zero.stderr).toContain("--max-iterations must be at least 1");
	});
});

describe("roundtable run beside a live owner", () => {
	test("with `start`, the owner's Chair ticks the run and run --headless waits for N of its ticks", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const proc = await owner(p, ["start", "--interval", "100ms"]);
		const { http_url } = JSON.parse(readFileSync(join(p.root, ".roundtable/owner.json"), "utf8"));
		const health = async () =>
			((await (await fetch(new URL("/healthz", http_url))).json()) as { status: string }).status;
		expect(await health()).toBe("healthy-idle"); // no active run yet
		const r = await headless(p, "--run", "RUN-1", "--max-iterations", "2");
		expect(r.stderr).toContain(`created run RUN-1 (the owner, pid ${proc.pid}, ticks it)`);
		expect(r.code).toBe(0);
		const run = await getRun(p, "RUN-1");
		expect(run.ticks).toBeGreaterThanOrEqual(2);
		expect(r.stdout).toMatch(/^run RUN-1 active after \d+ ticks: awaiting_initial_work\n$/);
		// The owner still runs (run did not take over or stop it) and now has a run to tick.
		expect(proc.exitCode).toBeNull();
		expect(await health()).toBe("ready");
		proc.kill("SIGTERM");
		expect(await proc.exited).toBe(0);
	});

	test("with `mcp serve` (no Chair) it refuses and says why", async () => {
		const p = await makeProject({ config: LOOPBACK_ANY_PORT });
		const proc = await owner(p, ["mcp", "serve"]);
		const r = await headless(p, "--run", "RUN-1");
		expect(r.code).toBe(1);
		expect(r.stderr).toContain(`the owner (pid ${proc.pid}) runs no Chair (mcp serve)`);
		proc.kill("SIGTERM");
		await proc.exited;
	});
});

test("the interactive view without a terminal refuses with a hint (exit 2)", async () => {
	const p = await makeProject({ config: LOOPBACK_ANY_PORT });
	const r = await runCli(["run", "--root", p.root]);
	expect(r.code).toBe(2);
	expect(r.stderr).toContain("pass --headless");
	expect(readFileSync(join(p.root, ".roundtable/config.yaml"), "utf8")).toContain("127.0.0.1:0");
});
