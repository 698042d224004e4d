// test.run against a proposal (a real git repository, a real proposal and its patch), test.get_result,
// test.evidence.submit and the start-up sweep (test.sweep_interrupted), whose crash case SIGKILLs a real
// child process (test/fixtures-scripts/apply-once.ts, which makes one tool call) mid-run.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { systemContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import type { Runtime } from "../../src/runtime.ts";
import type { TestEvidenceRecord } from "../../src/vocabulary/records.ts";
import type { Proposal } from "../_helpers/flow-helpers.ts";
import { commitAll, diffOf, expectDeclaredOutput, git, REPO, tempDir, write } from "../_helpers/helpers.ts";
import {
	eventsOf,
	eventually,
	logFile,
	midCharacter,
	numbered,
	pidIn,
	project,
	propose,
	type ResultPage,
	result,
	run,
	running,
	withEnv,
	withPrivateTmp,
} from "../_helpers/test-run-helpers.ts";

/** The owner's start-up sweep: the runs it marked interrupted. */
const markInterrupted = async (rt: Runtime) =>
	(await call(rt, "test.sweep_interrupted", {}, systemContext())).test_run_ids;

describe("test.run with proposal_id: a scratch copy with the patch applied", () => {
	const CHECK = [
		'echo "greeting: $(cat greeting.txt)"',
		'echo "dep: $(cat node_modules/dep/index.js)"',
		'echo "cwd: $(pwd)"',
		"ls -A",
		'if [ -n "$1" ]; then touch "$1"; fi', // leaves a trace where asked
	].join("\n");

	async function repo() {
		const p = await project({ allow: ["./check.sh"], scripts: { "check.sh": CHECK } });
		commitAll(p.root, { "greeting.txt": "hello\n", ".gitignore": "node_modules/\n" });
		// Installed dependencies: ignored by git, never copied, but reachable from the copy.
		write(p.root, "node_modules/dep/index.js", "module.exports = 'the dep';\n");
		return p;
	}

	test("the command sees the patched tree, and the project root is left as it was", async () => {
		const p = await repo();
		const proposal = await propose(p, "greeting.txt", "hello, patched\n");
		const statusBefore = git(p.root, "status", "--porcelain");
		const { value: out, tmp } = await withPrivateTmp(() =>
			run(p, { command: "./check.sh", proposal_id: proposal.id }),
		);
		expect(out.test_run).toMatchObject({
			status: "passed",
			workdir: "proposal",
			proposal_id: proposal.id,
			task_id: proposal.task_id,
			patch_revision: proposal.patch_revision,
		});
		expect(out.log).toContain("greeting: hello, patched\n");
		expect(out.log).toContain("dep: module.exports = 'the dep';\n");
		const cwd = /cwd: (.*)\n/.exec(out.log)?.[1] ?? "";
		expect(cwd.startsWith(join(tmp, "roundtable-test-"))).toBe(true);
		// Neither .git/ nor .roundtable/ is copied.
		const listing = out.log.split("\n");
		expect(listing).toContain("greeting.txt");
		expect(listing).not.toContain(".git");
		expect(listing).not.toContain(".roundtable");
		// The root is untouched and the scratch copy is gone.
		expect(readFileSync(join(p.root, "greeting.txt"), "utf8")).toBe("hello\n");
		expect(git(p.root, "status", "--porcelain")).toBe(statusBefore);
		expect(readdirSync(tmp)).toEqual([]);
		const [started] = await eventsOf(p, "test.started");
		expect(started?.payload).toMatchObject({
			proposal_id: proposal.id,
			patch_revision: 1,
			workdir: "proposal",
		});
		expect(started?.task_id).toBe(proposal.task_id);
	});

	test("what a test writes or deletes in node_modules stays in the copy (a farm of hard links)", async () => {
		const MESS = [
			"mkdir -p node_modules/.cache && echo built > node_modules/.cache/out",
			"rm node_modules/dep/index.js",
			'echo "linked: $(test -L node_modules && echo yes || echo no)"',
		].join("\n");
		const p = await project({ allow: ["./mess.sh"], scripts: { "mess.sh": MESS } });
		commitAll(p.root, { "greeting.txt": "hello\n", ".gitignore": "node_modules/\n" });
		write(p.root, "node_modules/dep/index.js", "module.exports = 'the dep';\n");
		const proposal = await propose(p, "greeting.txt", "hello, patched\n");
		const { value: out } = await withPrivateTmp(() =>
			run(p, { command: "./mess.sh", proposal_id: proposal.id }),
		);
		expect(out.test_run.status).toBe("passed");
		expect(out.log).toContain("linked: no");
		expect(readFileSync(join(p.root, "node_modules/dep/index.js"), "utf8")).toBe(
			"module.exports = 'the dep';\n",
		);
		expect(existsSync(join(p.root, "node_modules/.cache"))).toBe(false);

		// On another filesystem, where hard links cannot go, the folder is linked instead.
		const shm = "/dev/shm";
		if (existsSync(shm) && statSync(shm).dev !== statSync(p.root).dev) {
			const tmp = mkdtempSync(join(shm, "rt-scratch-"));
			try {
				const other = await withEnv({ TMPDIR: tmp }, () =>
					run(p, { command: "./mess.sh", proposal_id: proposal.id }),
				);
				expect(other.log).toContain("linked: yes");
				expect(readdirSync(tmp)).toEqual([]);
			} finally {
				rmSync(tmp, { recursive: true, force: true });
			}
		}
	});

	test("it runs the proposal's current patch revision", async () => {
		const p = await repo();
		const proposal = await propose(p, "greeting.txt", "revision one\n");
		await p.call("proposal.attach_patch", {
			proposal_id: proposal.id,
			agent_id: "implementer-1",
			patch: diffOf(p.root, "greeting.txt", "revision two\n"),
		});
		const { value: out } = await withPrivateTmp(() =>
			run(p, { command: "./check.sh", proposal_id: proposal.id }),
		);
		expect(out.test_run.patch_revision).toBe(2);
		expect(out.log).toContain("greeting: revision two\n");
		const finished = (await eventsOf(p, "test.finished"))[0];
		expect(finished?.payload).toMatchObject({
			proposal_id: proposal.id,
			patch_revision: 2,
			status: "passed",
		});
	});

	test("a patch that no longer applies is status error with the reason; no scratch copy is left", async () => {
		const p = await repo();
		const proposal = await propose(p, "greeting.txt", "hello, patched\n");
		// The line the patch changes is no longer there.
		write(p.root, "greeting.txt", "something else entirely\n");
		const marker = join(tempDir(), "ran");
		const { value: out, tmp } = await withPrivateTmp(() =>
			run(p, { command: `./check.sh ${marker}`, proposal_id: proposal.id }),
		);
		expect(out.test_run).toMatchObject({
			status: "error",
			exit_code: null,
			workdir: "proposal",
			patch_revision: 1,
			output_bytes: 0,
		});
		expect(out.test_run.summary_md).toStartWith("the proposal's patch does not apply: ");
		expect(out.test_run.summary_md).toContain("greeting.txt");
		expect(out.log).toBe(out.test_run.summary_md);
		expect(readdirSync(tmp)).toEqual([]);
		expect(existsSync(marker)).toBe(false); // the command never ran
		expect(existsSync(logFile(p, out.test_run.id))).toBe(false);
		const page = await result(p, { test_run_id: out.test_run.id });
		expect(page.log).toBe(out.test_run.summary_md);
		expect((await eventsOf(p, "test.finished"))[0]?.payload).toMatchObject({ status: "error" });
		expect(readFileSync(join(p.root, "greeting.txt"), "utf8")).toBe("something else entirely\n");
	});
});

describe("test.get_result", () => {
	test("an unknown id is not_found", async () => {
		const p = await project({ allow: ["./x.sh"] });
		const err = await p.fail("test.get_result", { test_run_id: "TR-nope" });
		expect(err.code).toBe("not_found");
		expect(err.details).toMatchObject({ test_run_id: "TR-nope" });
	});

	test("pages of a big log chain through next_offset to the whole file; the default is the last page", async () => {
		const big = numbered(6250); // 200,000 bytes
		const p = await project({ allow: ["./cat.sh"], scripts: { "cat.sh": "cat big.txt" } });
		write(p.root, "big.txt", big);
		const out = await run(p, { command: "./cat.sh" });
		expect(out.test_run).toMatchObject({ status: "passed", truncated: false, output_bytes: big.length });
		expect(out.log).toBe(big.slice(-65536)); // the call returns the last 64 KiB
		const id = out.test_run.id;

		const last = await result(p, { test_run_id: id });
		expect(last).toMatchObject({
			offset: big.length - 65536,
			next_offset: null,
			log_bytes: big.length,
			log: big.slice(-65536),
		});

		const pages: ResultPage[] = [];
		let offset: number | null = 0;
		while (offset !== null) {
			const page = await result(p, { test_run_id: id, offset, max_bytes: 30_000 });
			expect(page.offset).toBe(offset);
			pages.push(page);
			offset = page.next_offset;
		}
		expect(pages).toHaveLength(Math.ceil(big.length / 30_000));
		expect(pages.map((x) => x.log).join("")).toBe(big);
		expect(pages.map((x) => x.log).join("")).toBe(readFileSync(logFile(p, id), "utf8"));

		expect(await result(p, { test_run_id: id, max_bytes: 10 })).toMatchObject({
			log: big.slice(-10),
			offset: big.length - 10,
			next_offset: null,
		});
		expect(await result(p, { test_run_id: id, offset: big.length + 5 })).toMatchObject({
			log: "",
			offset: big.length,
			next_offset: null,
		});
		for (const bad of [{ max_bytes: 0 }, { max_bytes: 1048577 }, { offset: -1 }]) {
			expect((await p.fail("test.get_result", { test_run_id: id, ...bad })).code).toBe("invalid_argument");
		}
	});

	test("pages of non-ASCII output start and end on whole characters, so they join losslessly", async () => {
		// 3- and 4-byte characters, so byte-sized pages would fall inside them.
		const text = Array.from({ length: 12_001 }, (_, i) => `✓ test ${i} 🟢\n`).join("");
		const size = Buffer.byteLength(text);
		expect(midCharacter(text, size - 65536)).toBe(true); // the default last page would start inside one
		const p = await project({ allow: ["./cat.sh"], scripts: { "cat.sh": "cat out.txt" } });
		write(p.root, "out.txt", text);
		const out = await run(p, { command: "./cat.sh" });
		expect(out.test_run.output_bytes).toBe(size);
		// The call's last 64 KiB and the default last page begin on a character.
		expect(out.log.includes("\uFFFD")).toBe(false);
		expect(text.endsWith(out.log)).toBe(true);
		const last = await result(p, { test_run_id: out.test_run.id });
		expect(last.log.includes("\uFFFD")).toBe(false);
		expect(text.endsWith(last.log)).toBe(true);
		expect(last.offset + Buffer.byteLength(last.log)).toBe(size);

		for (const max_bytes of [1000, 4097, 30_001]) {
			const pages: string[] = [];
			let offset: number | null = 0;
			while (offset !== null) {
				const page = await result(p, { test_run_id: out.test_run.id, offset, max_bytes });
				expect(page.offset).toBe(offset);
				pages.push(page.log);
				offset = page.next_offset;
			}
			expect(pages.join("")).toBe(text);
			for (const page of pages) {
				expect(Buffer.byteLength(page)).toBeLessThanOrEqual(max_bytes);
				expect(Buffer.byteLength(page)).toBeGreaterThan(0);
			}
		}
		// Even a page smaller than one character moves on.
		const tiny = await result(p, { test_run_id: out.test_run.id, offset: 0, max_bytes: 2 });
		expect(tiny.next_offset).toBeGreaterThan(0);
	});
});

describe("test.evidence.submit", () => {
	async function repo() {
		const p = await project({ allow: ["./x.sh"] });
		commitAll(p.root, { "greeting.txt": "hello\n" });
		const proposal = await propose(p, "greeting.txt", "hello, patched\n");
		return { p, proposal };
	}
	const evidence = (proposal: Proposal, extra: Record<string, unknown> = {}) => ({
		proposal_id: proposal.id,
		agent_id: "tester-1",
		command: "cargo test",
		outcome: "passed",
		summary_md: "all green here",
		...extra,
	});

	test("a Tester's report is stored as reported, on the proposal's current revision, with an event", async () => {
		const { p, proposal } = await repo();
		const out = await p.call("test.evidence.submit", evidence(proposal, { command: "  cargo test  " }));
		expectDeclaredOutput("test.evidence.submit", out);
		const first = out.evidence as TestEvidenceRecord;
		expect(first).toMatchObject({
			proposal_id: proposal.id,
			patch_revision: 1,
			agent_id: "tester-1",
			session_id: null,
			command: "cargo test",
			outcome: "passed",
			summary_md: "all green here",
			status: "reported",
		});
		const [ev] = await eventsOf(p, "test.evidence_submitted");
		expect(ev).toMatchObject({
			actor_id: "tester-1",
			task_id: proposal.task_id,
			payload: {
				evidence_id: first.id,
				proposal_id: proposal.id,
				patch_revision: 1,
				outcome: "passed",
				command: "cargo test",
			},
		});

		await p.call("proposal.attach_patch", {
			proposal_id: proposal.id,
			agent_id: "implementer-1",
			patch: diffOf(p.root, "greeting.txt", "hello again\n"),
		});
		const second = (await p.call("test.evidence.submit", evidence(proposal, { outcome: "inconclusive" })))
			.evidence as TestEvidenceRecord;
		expect(second).toMatchObject({ patch_revision: 2, outcome: "inconclusive", status: "reported" });
		// Evidence is not a test run: nothing was run or recorded as one.
		expect(await eventsOf(p, "test.started")).toEqual([]);
	});

	test("only an agent with the Tester role may submit; others are refused and nothing is stored", async () => {
		const { p, proposal } = await repo();
		for (const agent of ["implementer-1", "reviewer-1", "chair-1", "security-1"]) {
			const err = await p.fail("test.evidence.submit", evidence(proposal, { agent_id: agent }));
			expect({ agent, code: err.code }).toEqual({ agent, code: "permission_denied" });
			expect(err.details).toMatchObject({ agent_id: agent });
		}
		expect((await p.fail("test.evidence.submit", evidence(proposal, { agent_id: "nobody-9" }))).code).toBe(
			"not_found",
		);
		expect((await p.fail("test.evidence.submit", evidence({ ...proposal, id: "P-nope" }))).code).toBe(
			"not_found",
		);
		expect(await eventsOf(p, "test.evidence_submitted")).toEqual([]);
	});

	test("the outcome, the command's size and the summary's size are validated", async () => {
		const { p, proposal } = await repo();
		const fail = async (extra: Record<string, unknown>) =>
			p.fail("test.evidence.submit", evidence(proposal, extra));
		expect((await fail({ outcome: "green" })).code).toBe("invalid_argument");
		expect((await fail({ outcome: "error" })).code).toBe("invalid_argument");
		const longCommand = await fail({ command: "x".repeat(4097) });
		expect(longCommand.code).toBe("invalid_argument");
		expect(longCommand.details).toMatchObject({ field: "command" });
		const longSummary = await fail({ summary_md: "y".repeat(16 * 1024 + 1) });
		expect(longSummary.code).toBe("invalid_argument");
		expect(longSummary.details).toMatchObject({ field: "summary_md" });
		// Sizes are bytes, not characters: 8,193 two-byte characters are over 16 KiB.
		expect((await fail({ summary_md: "é".repeat(8193) })).code).toBe("invalid_argument");
		expect((await fail({ summary_md: "  " })).code).toBe("invalid_argument");
		expect(await eventsOf(p, "test.evidence_submitted")).toEqual([]);
		// Exactly at the limits is fine.
		const ok = await p.call(
			"test.evidence.submit",
			evidence(proposal, { command: "c".repeat(4096), summary_md: "é".repeat(8192), outcome: "failed" }),
		);
		expect((ok.evidence as TestEvidenceRecord).outcome).toBe("failed");
	});
});

describe("test.sweep_interrupted (the owner's start-up sweep)", () => {
	/** A `running` row as a crashed runner in this process's pid would have left it. */
	async function leftRunning(p: Awaited<ReturnType<typeof project>>, id: string, group?: number) {
		const now = new Date().toISOString();
		await p.rt.store.withTransaction("write", async (tx) => {
			await tx.testRuns.insert(
				{
					id,
					proposal_id: null,
					task_id: null,
					command: "./x.sh",
					argv: ["./x.sh"],
					sandbox: "none",
					sandbox_reason: "inserted by the test",
					patch_revision: null,
					workdir: "project",
					requested_by: "operator",
					started_at: now,
				},
				now,
			);
			if (group !== undefined) await tx.testRuns.setProcessGroup(id, group);
		});
	}

	const CHILD = join(REPO, "test/fixtures-scripts/apply-once.ts");

	test("a run whose runner was SIGKILLed becomes interrupted and its test is stopped; one whose runner lives is left alone", async () => {
		// Unsandboxed: under bwrap the test dies with its runner (test-run-sandbox.test.ts).
		const p = await project({
			allow: ["./slow.sh"],
			scripts: { "slow.sh": "echo $$ > slow.pid\nsleep 60" },
			sandbox: "off",
		});
		// A separate process (like `roundtable mcp call`) runs the test: it is the run's runner.
		const child = Bun.spawn(
			[process.execPath, CHILD, p.root, "test.run", JSON.stringify({ command: "./slow.sh" })],
			{ cwd: REPO, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
		);
		let slow: number | undefined;
		try {
			expect(await eventually(() => existsSync(join(p.root, "slow.pid")), 15_000)).toBe(true);
			slow = pidIn(p.root, "slow.pid");
			const [started] = await eventsOf(p, "test.started");
			const id = started?.payload.test_run_id as string;
			expect((await result(p, { test_run_id: id })).test_run.status).toBe("running");

			// The runner is alive: the sweep leaves its run alone.
			expect(await markInterrupted(p.rt)).toEqual([]);
			expect((await result(p, { test_run_id: id })).test_run.status).toBe("running");

			child.kill("SIGKILL");
			await child.exited;
			expect(child.signalCode).toBe("SIGKILL");

			// The test outlived its runner (it writes nothing, so no SIGPIPE ends it).
			expect(running(slow)).toBe(true);
			expect(await markInterrupted(p.rt)).toEqual([id]);
			const linux = process.platform === "linux";
			if (linux) expect(await eventually(() => !running(slow as number))).toBe(true);
			const { test_run, log } = await result(p, { test_run_id: id });
			expect(test_run).toMatchObject({
				status: "interrupted",
				exit_code: null,
				signal: null,
				duration_ms: null,
				summary_md: `The process running this test stopped before it finished.${
					linux ? " The test's processes it left behind were stopped." : ""
				}`,
			});
			expect(test_run.finished_at).not.toBeNull();
			expect(log).toBe("");
			const finished = await eventsOf(p, "test.finished");
			expect(finished).toHaveLength(1);
			expect(finished[0]).toMatchObject({
				actor_id: "system",
				payload: { test_run_id: id, status: "interrupted", exit_code: null },
			});
			// A second sweep has nothing left to do.
			expect(await markInterrupted(p.rt)).toEqual([]);
			expect(await eventsOf(p, "test.finished")).toHaveLength(1);
		} finally {
			child.kill("SIGKILL");
			// The test command leads its own process group, which outlives its runner: end it.
			if (slow !== undefined) {
				try {
					process.kill(-slow, "SIGKILL");
				} catch {
					// already gone
				}
			}
		}
	});

	test("a run left by an earlier process with the sweeper's own pid is interrupted (pid reuse)", async () => {
		// The owner sweeps before it runs anything, so a running row with its own pid is not its own.
		const p = await project({ allow: ["./x.sh"] });
		await leftRunning(p, "TR-left-behind");
		expect(await markInterrupted(p.rt)).toEqual(["TR-left-behind"]);
		expect((await result(p, { test_run_id: "TR-left-behind" })).test_run.status).toBe("interrupted");
	});

	test("a process group without the run's mark is never killed (its id may have been reused)", async () => {
		const p = await project({ allow: ["./x.sh"] });
		// Someone else's process group, now holding the id the dead run recorded.
		const stranger = Bun.spawn(["sleep", "30"], { detached: true, stdin: "ignore", stdout: "ignore" });
		try {
			await leftRunning(p, "TR-reused-group", stranger.pid);
			expect(await markInterrupted(p.rt)).toEqual(["TR-reused-group"]);
			const { test_run } = await result(p, { test_run_id: "TR-reused-group" });
			expect(test_run.summary_md).toBe("The process running this test stopped before it finished.");
			expect(running(stranger.pid)).toBe(true);
		} finally {
			stranger.kill("SIGKILL");
		}
	});
});
