// test.run with real processes: small `#!/bin/sh` scripts written into each project and allowlisted
// through its config (interpreters with -c are refused by config validation, so a script is the test
// command): argv without a shell, the allowlist, outcomes, timeouts and the process group, the output
// cap, the environment, events and idempotency.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CallContext, operatorContext } from "../../src/context.ts";
import { homeInside, probeSandbox } from "../../src/sandbox/index.ts";
import { TESTLOGS_DIR } from "../../src/test-runs/logs.ts";
import { allEvents, REPO, write } from "../_helpers/helpers.ts";
import {
	ECHO_ARGS,
	eventsOf,
	eventually,
	expectNothingRecorded,
	logFile,
	midCharacter,
	numbered,
	pidIn,
	project,
	result,
	run,
	running,
	withEnv,
} from "../_helpers/test-run-helpers.ts";

describe("test.run: the command is argv, never a shell", () => {
	test("quotes are honoured and shell operators, redirects, $() and globs arrive as plain text", async () => {
		const p = await project({ allow: ["./echo-args.sh"], scripts: { "echo-args.sh": ECHO_ARGS } });
		const out = await run(p, {
			command: `./echo-args.sh 'a b' "c;d" ; | && > out.txt $(whoami) $HOME * "it's"`,
		});
		const args = ["a b", "c;d", ";", "|", "&&", ">", "out.txt", "$(whoami)", "$HOME", "*", "it's"];
		expect(out.test_run.status).toBe("passed");
		expect(out.test_run.exit_code).toBe(0);
		expect(out.test_run.argv).toEqual(["./echo-args.sh", ...args]);
		// The stored command is the canonical quoting of that argv.
		expect(out.test_run.command).toBe(
			`./echo-args.sh 'a b' 'c;d' ';' '|' '&&' '>' out.txt '$(whoami)' '$HOME' '*' 'it'"'"'s'`,
		);
		expect(out.log).toBe(args.map((a) => `<${a}>\n`).join(""));
		expect(existsSync(join(p.root, "out.txt"))).toBe(false);
		// What the caller got is what is stored.
		expect((await result(p, { test_run_id: out.test_run.id })).test_run).toEqual(out.test_run);
	});

	test("the same argv however it was quoted gives the same canonical command", async () => {
		const p = await project({ allow: ["./echo-args.sh"], scripts: { "echo-args.sh": ECHO_ARGS } });
		const a = await run(p, { command: `"./echo-args.sh"   x\\ y` });
		const b = await run(p, { command: `./echo-args.sh 'x y'` });
		expect(a.test_run.argv).toEqual(["./echo-args.sh", "x y"]);
		expect(a.test_run.command).toBe("./echo-args.sh 'x y'");
		expect(b.test_run.command).toBe(a.test_run.command);
		expect(a.log).toBe("<x y>\n");
	});

	test("an unterminated quote is invalid_argument and records nothing", async () => {
		const p = await project({ allow: ["./echo-args.sh"], scripts: { "echo-args.sh": ECHO_ARGS } });
		for (const command of [`./echo-args.sh 'oops`, `./echo-args.sh "half`]) {
			const err = await p.fail("test.run", { command });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toContain("cannot be split into arguments");
			expect(err.details).toMatchObject({ field: "command" });
		}
		expect((await p.fail("test.run", { command: "   " })).code).toBe("invalid_argument");
		await expectNothingRecorded(p);
	});
});

describe("test.run: tests.allowed_commands", () => {
	const scripts = {
		"run-tests.sh": ECHO_ARGS,
		// Leaves a trace if it ever runs.
		"other.sh": "touch other-ran",
	};

	test("a command that does not start with an allowed argv prefix is permission_denied and never runs", async () => {
		const p = await project({ allow: ["./run-tests.sh", "npm test"], scripts });
		for (const command of [
			"node -e 1",
			"./other.sh",
			"./other.sh ./run-tests.sh",
			"npm testx", // a prefix of words, not of characters
			"npm", // shorter than the entry
			"npm run test",
			"run-tests.sh", // not the same word as ./run-tests.sh
			"./run-tests.sh; ./other.sh", // `./run-tests.sh;` is one word, a different program
			"./sub/../run-tests.sh",
		]) {
			const err = await p.fail("test.run", { command });
			expect({ command, code: err.code }).toEqual({ command, code: "permission_denied" });
			expect(err.details).toMatchObject({ field: "command", allowed: ["./run-tests.sh", "npm test"] });
		}
		expect(existsSync(join(p.root, "other-ran"))).toBe(false);
		await expectNothingRecorded(p);
	});

	test("an allowed prefix takes extra arguments, however the prefix is quoted", async () => {
		const p = await project({ allow: ["./run-tests.sh --ci"], scripts });
		const out = await run(p, { command: `'./run-tests.sh' "--ci" --filter 'some test'` });
		expect(out.test_run.status).toBe("passed");
		expect(out.test_run.command).toBe("./run-tests.sh --ci --filter 'some test'");
		expect(out.log).toBe("<--ci>\n<--filter>\n<some test>\n");
		// The entry is a prefix of words: without --ci it is not allowed.
		expect((await p.fail("test.run", { command: "./run-tests.sh --filter x" })).code).toBe(
			"permission_denied",
		);
	});
});

describe("test.run: outcomes", () => {
	const scripts = {
		"pass.sh": `i=1; while [ $i -le 30 ]; do echo "pass line $i"; echo; i=$((i+1)); done`,
		"fail.sh": `echo "to stdout"; echo "to stderr" >&2; echo "3 tests, 1 failure"; exit 3`,
		"signal.sh": `echo "about to die"; kill -TERM $$; sleep 5`,
		"silent.sh": "exit 0",
	};
	const allow = ["./pass.sh", "./fail.sh", "./signal.sh", "./silent.sh", "./missing.sh", "./not-exec.sh"];

	test("a passing command is passed with exit code 0; the summary is the last non-blank lines", async () => {
		const p = await project({ allow, scripts });
		const { test_run, log } = await run(p, { command: "./pass.sh" });
		expect(test_run).toMatchObject({
			status: "passed",
			exit_code: 0,
			signal: null,
			workdir: "project",
			proposal_id: null,
			task_id: null,
			patch_revision: null,
			requested_by: "operator",
			truncated: false,
			revision: 2,
		});
		expect(test_run.summary_md).toBe(Array.from({ length: 10 }, (_, i) => `pass line ${21 + i}`).join("\n"));
		expect(test_run.output_bytes).toBe(Buffer.byteLength(log));
		expect(test_run.duration_ms).toBeGreaterThanOrEqual(0);
		expect(test_run.finished_at).not.toBeNull();
		expect(log.startsWith("pass line 1\n\npass line 2\n")).toBe(true);
		expect(readFileSync(logFile(p, test_run.id), "utf8")).toBe(log);
	});

	test("a failing command is a result (failed, its exit code), not a tool error; stderr is captured", async () => {
		const p = await project({ allow, scripts });
		const { test_run, log } = await run(p, { command: "./fail.sh" });
		expect(test_run).toMatchObject({ status: "failed", exit_code: 3, signal: null });
		expect(log).toContain("to stdout\n");
		expect(log).toContain("to stderr\n");
		expect(test_run.summary_md).toContain("3 tests, 1 failure");
	});

	test("a command killed by a signal is failed, with the signal and no exit code", async () => {
		const p = await project({ allow, scripts });
		const { test_run } = await run(p, { command: "./signal.sh" });
		expect(test_run).toMatchObject({ status: "failed", exit_code: null, signal: "SIGTERM" });
		expect(test_run.summary_md).toBe("about to die");
	});

	test("no output gives a summary that says so", async () => {
		const p = await project({ allow, scripts });
		const { test_run, log } = await run(p, { command: "./silent.sh" });
		expect(test_run).toMatchObject({ status: "passed", output_bytes: 0 });
		expect(test_run.summary_md).toBe("No test output captured.");
		expect(log).toBe("");
	});

	test("a program that does not exist, or is not executable, is status error with a clear summary", async () => {
		const p = await project({ allow, scripts });
		write(p.root, "not-exec.sh", "#!/bin/sh\necho hi\n"); // mode 0644
		for (const [command, why] of [
			["./missing.sh", /no such file|not found/i],
			["./not-exec.sh", /permission denied|EACCES/i],
		] as const) {
			const { test_run, log } = await run(p, { command });
			expect(test_run).toMatchObject({ status: "error", exit_code: null, signal: null, output_bytes: 0 });
			expect(test_run.summary_md).toStartWith(`cannot start ${command}: `);
			expect(test_run.summary_md).toMatch(why);
			expect(log).toBe("");
			// With no output, test.get_result gives the reason as the log.
			const page = await result(p, { test_run_id: test_run.id });
			expect(page.log).toBe(test_run.summary_md);
			expect(page.log_bytes).toBe(0);
		}
		expect((await eventsOf(p, "test.finished")).map((e) => e.payload.status)).toEqual(["error", "error"]);
	});
});

describe("test.run: timeouts, cancellation, progress and the process group", () => {
	const scripts = {
		// A grandchild in the background, then a long sleep.
		"slow.sh": "echo $$ > leader.pid\nsleep 30 &\necho $! > grandchild.pid\necho started\nsleep 30",
		// The leader finishes at once but leaves a child holding the pipes.
		"leaves-child.sh": "sleep 30 &\necho $! > bg.pid\necho done",
		// A child that leaves the process group (setsid) and keeps the pipes open.
		"escapes.sh": "setsid sleep 20 &\necho $! > escaped.pid\necho started\nsleep 30",
		"chatty.sh": "echo 'working on step 1'\ntouch chatty.started\nsleep 30",
		// Half a line on stdout, a line on stderr, then the rest of the stdout line.
		"interleaved.sh":
			"printf 'out-partial'\nsleep 0.3\necho 'err line' >&2\nsleep 0.3\necho ' rest'\nsleep 1.2",
	};
	const allow = Object.keys(scripts).map((s) => `./${s}`);

	test("past timeout_seconds the whole group is killed: timed_out, and the grandchild is gone", async () => {
		// Unsandboxed: the pids the scripts write are the host's (test-run-sandbox.test.ts: in bwrap).
		const p = await project({ allow, scripts, timeout: 20, sandbox: "off" });
		const t0 = Date.now();
		const { test_run } = await run(p, { command: "./slow.sh", timeout_seconds: 1 });
		expect(Date.now() - t0).toBeLessThan(10_000);
		expect(test_run).toMatchObject({ status: "timed_out", exit_code: null, signal: "SIGKILL" });
		expect(test_run.duration_ms).toBeGreaterThanOrEqual(900);
		expect(test_run.summary_md).toBe("started\n(killed after 1s)");
		const leader = pidIn(p.root, "leader.pid");
		const grandchild = pidIn(p.root, "grandchild.pid");
		expect(await eventually(() => !running(leader))).toBe(true);
		expect(await eventually(() => !running(grandchild))).toBe(true);
	});

	test("timeout_seconds above tests.timeout_seconds is invalid_argument and records nothing", async () => {
		const p = await project({ allow, scripts, timeout: 5 });
		const err = await p.fail("test.run", { command: "./slow.sh", timeout_seconds: 6 });
		expect(err.code).toBe("invalid_argument");
		expect(err.message).toContain("at most tests.timeout_seconds (5)");
		expect(err.details).toMatchObject({ field: "timeout_seconds" });
		expect((await p.fail("test.run", { command: "./slow.sh", timeout_seconds: 0 })).code).toBe(
			"invalid_argument",
		);
		await expectNothingRecorded(p);
	});

	test("the config's timeout is the default", async () => {
		const p = await project({ allow, scripts, timeout: 1 });
		const t0 = Date.now();
		const { test_run } = await run(p, { command: "./slow.sh" });
		expect(Date.now() - t0).toBeLessThan(10_000);
		expect(test_run.status).toBe("timed_out");
		expect(test_run.summary_md).toEndWith("(killed after 1s)");
	});

	test("a leader that exits leaving a child on the pipes ends the run at once, and the child is killed", async () => {
		const p = await project({ allow, scripts, timeout: 20, sandbox: "off" });
		const t0 = Date.now();
		const { test_run, log } = await run(p, { command: "./leaves-child.sh" });
		expect(Date.now() - t0).toBeLessThan(10_000);
		expect(test_run).toMatchObject({ status: "passed", exit_code: 0 });
		expect(log).toBe("done\n");
		const bg = pidIn(p.root, "bg.pid");
		expect(await eventually(() => !running(bg))).toBe(true);
	});

	test("a process that left the group and holds the pipes cannot keep the run past its timeout", async () => {
		// Unsandboxed: the pid it writes is the host's, and the tidy-up below kills it by that pid.
		const p = await project({ allow, scripts, timeout: 20, sandbox: "off" });
		const t0 = Date.now();
		const { test_run, log } = await run(p, { command: "./escapes.sh", timeout_seconds: 1 });
		expect(Date.now() - t0).toBeLessThan(10_000); // not the escaped process's 20 s
		expect(test_run.status).toBe("timed_out");
		expect(log).toBe("started\n");
		// It is outside the group, so it is not ours to kill by group: tidy up.
		const escaped = pidIn(p.root, "escaped.pid");
		try {
			process.kill(escaped, "SIGKILL");
		} catch {
			// already gone
		}
	});

	test("cancelling the call kills the group: status cancelled; progress carries the latest line", async () => {
		// Unsandboxed: the marker it writes lands in the project (in bwrap it would land in a scratch copy).
		const p = await project({ allow, scripts, timeout: 20, sandbox: "off" });
		const abort = new AbortController();
		const progress: { done: number; total?: number; message?: string }[] = [];
		const ctx: CallContext = {
			...operatorContext("internal", abort.signal),
			progress: (done, total, message) => progress.push({ done, total, message }),
		};
		const t0 = Date.now();
		const pending = run(p, { command: "./chatty.sh" }, ctx);
		expect(await eventually(() => existsSync(join(p.root, "chatty.started")), 10_000)).toBe(true);
		// The line is read just after it is written; give it a moment to reach the progress callback.
		await eventually(() => progress.some((m) => m.message?.includes("working on step 1")), 3000);
		abort.abort();
		const { test_run } = await pending;
		expect(Date.now() - t0).toBeLessThan(15_000);
		expect(test_run).toMatchObject({ status: "cancelled", exit_code: null, signal: "SIGKILL" });
		expect(test_run.summary_md).toBe("working on step 1\n(cancelled)");
		expect(progress.some((m) => m.message?.includes("working on step 1") && m.total === 20)).toBe(true);
	});

	test("progress lines are whole lines of one stream: stdout and stderr never splice together", async () => {
		const p = await project({ allow, scripts, timeout: 20 });
		const messages: string[] = [];
		const ctx: CallContext = {
			...operatorContext("internal"),
			progress: (_done, _total, message) => messages.push(message ?? ""),
		};
		const { test_run, log } = await run(p, { command: "./interleaved.sh" }, ctx);
		expect(test_run.status).toBe("passed");
		expect(log).toBe("out-partialerr line\n rest\n"); // the log keeps arrival order
		// Each message is "<n>s" or "<n>s: <the latest whole line>".
		const lines = messages.map((m) => m.replace(/^\d+s(: )?/, "")).filter((l) => l !== "");
		expect(lines.length).toBeGreaterThan(0);
		for (const line of lines) expect(["err line", "out-partial rest"]).toContain(line);
	});
});

describe("test.run: the output cap", () => {
	test("past max_output_bytes the log keeps the head, a marker and the tail; output_bytes is the total", async () => {
		const big = numbered(2000); // 64,000 bytes
		const p = await project({ allow: ["./cat.sh"], maxOutput: 1000, scripts: { "cat.sh": "cat big.txt" } });
		write(p.root, "big.txt", big);
		const { test_run, log } = await run(p, { command: "./cat.sh" });
		expect(test_run).toMatchObject({ status: "passed", truncated: true, output_bytes: big.length });
		const expected = `${big.slice(0, 500)}\n[roundtable: ${big.length - 1000} bytes of output omitted here]\n${big.slice(-500)}`;
		const file = logFile(p, test_run.id);
		expect(readFileSync(file, "utf8")).toBe(expected);
		expect(log).toBe(expected);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(statSync(join(p.root, TESTLOGS_DIR)).mode & 0o777).toBe(0o700);
		expect(test_run.summary_md).toEndWith(big.trimEnd().split("\n").at(-1) as string);
		const page = await result(p, { test_run_id: test_run.id });
		expect(page.log_bytes).toBe(Buffer.byteLength(expected));
		expect(page.test_run.output_bytes).toBe(big.length);
	});

	test("the head and the tail around the marker are whole characters", async () => {
		const text = Array.from({ length: 2000 }, (_, i) => `✓ ${i} 🟢\n`).join("");
		// Halves of 502 bytes: both cuts would fall inside a character.
		expect(midCharacter(text, 502)).toBe(true);
		expect(midCharacter(text, Buffer.byteLength(text) - 502)).toBe(true);
		const p = await project({ allow: ["./cat.sh"], maxOutput: 1004, scripts: { "cat.sh": "cat out.txt" } });
		write(p.root, "out.txt", text);
		const { test_run, log } = await run(p, { command: "./cat.sh" });
		expect(test_run).toMatchObject({ truncated: true, output_bytes: Buffer.byteLength(text) });
		expect(log.includes("\uFFFD")).toBe(false);
		const [head, tail, ...rest] = log.split(/\n\[roundtable: \d+ bytes of output omitted here\]\n/);
		expect(rest).toEqual([]);
		expect(text.startsWith(head as string)).toBe(true);
		expect(text.endsWith(tail as string)).toBe(true);
		const omitted = Number(/\[roundtable: (\d+) bytes/.exec(log)?.[1]);
		expect(Buffer.byteLength(head as string) + omitted + Buffer.byteLength(tail as string)).toBe(
			Buffer.byteLength(text),
		);
		expect(Buffer.byteLength(head as string)).toBeLessThanOrEqual(502);
		expect(Buffer.byteLength(tail as string)).toBeLessThanOrEqual(502);
	});

	test("exactly max_output_bytes is kept whole; one byte more is not", async () => {
		const p = await project({
			allow: ["./cat.sh"],
			maxOutput: 1000,
			scripts: { "cat.sh": 'cat "$1"' },
		});
		const exact = numbered(25, 40); // 1000 bytes
		write(p.root, "exact.txt", exact);
		write(p.root, "over.txt", `${exact}!`);
		const whole = await run(p, { command: "./cat.sh exact.txt" });
		expect(whole.test_run).toMatchObject({ truncated: false, output_bytes: 1000 });
		expect(whole.log).toBe(exact);
		const over = await run(p, { command: "./cat.sh over.txt" });
		expect(over.test_run).toMatchObject({ truncated: true, output_bytes: 1001 });
		expect(over.log).toBe(
			`${exact.slice(0, 500)}\n[roundtable: 1 byte of output omitted here]\n${exact.slice(501)}!`,
		);
	});
});

describe("test.run: the environment", () => {
	const scripts = { "env.sh": "env" };

	test("Roundtable's token and variables outside tests.env_allowlist never reach the test", async () => {
		const p = await project({ allow: ["./env.sh"], scripts });
		const { log, test_run } = await withEnv(
			{ ROUNDTABLE_MCP_TOKEN: "tok-7f3a-secret", SECRET_X: "shh-4411", HOME: "/home/tester-home" },
			() => run(p, { command: "./env.sh" }),
		);
		expect(log).not.toContain("tok-7f3a-secret");
		// The one Roundtable variable a test sees is its own run's id.
		expect(log.split("\n").filter((l) => l.startsWith("ROUNDTABLE_"))).toEqual([
			`ROUNDTABLE_TEST_RUN_ID=${test_run.id}`,
		]);
		expect(log).not.toContain("shh-4411");
		expect(log).not.toContain("SECRET_X");
		expect(log.split("\n")).toContain(`PATH=${process.env.PATH}`);
		expect(log.split("\n")).toContain("HOME=/home/tester-home");
	});

	test("an allowlisted variable passes, but a ROUNDTABLE_ one never does, even when allowlisted", async () => {
		const p = await project({
			allow: ["./env.sh"],
			envAllowlist: ["PATH", "SECRET_OK", "ROUNDTABLE_MCP_TOKEN"],
			scripts,
		});
		const { log } = await withEnv(
			{ ROUNDTABLE_MCP_TOKEN: "tok-7f3a-secret", SECRET_OK: "fine-to-see", SECRET_X: "shh-4411" },
			() => run(p, { command: "./env.sh" }),
		);
		const lines = log.split("\n");
		expect(lines).toContain("SECRET_OK=fine-to-see");
		expect(log).not.toContain("tok-7f3a-secret");
		expect(log).not.toContain("shh-4411");
		// HOME is always given (as PATH, LANG, TZ, TERM and CI are): in a sandbox its private, empty one.
		expect(lines.filter((l) => l.startsWith("HOME="))).toEqual([
			`HOME=${probeSandbox().kind === "bwrap" ? homeInside() : process.env.HOME}`,
		]);
	});
});

describe("test.run: events", () => {
	const scripts = { "fail.sh": "echo nope; exit 2" };

	test("test.started and test.finished carry the run, bound to the task given", async () => {
		const p = await project({ allow: ["./fail.sh"], scripts });
		const { task } = (await p.call("task.create", { title: "T", body_md: "B" })) as { task: { id: string } };
		const { test_run } = await run(p, { command: "./fail.sh", task_id: task.id });
		expect(test_run.task_id).toBe(task.id);
		const all = await allEvents(p);
		const started = all.filter((e) => e.type === "test.started");
		const finished = all.filter((e) => e.type === "test.finished");
		expect(started).toHaveLength(1);
		expect(finished).toHaveLength(1);
		expect(started[0]).toMatchObject({
			actor_id: "operator",
			task_id: task.id,
			payload: {
				test_run_id: test_run.id,
				command: "./fail.sh",
				proposal_id: null,
				patch_revision: null,
				workdir: "project",
			},
		});
		expect(finished[0]).toMatchObject({
			actor_id: "operator",
			task_id: task.id,
			payload: {
				test_run_id: test_run.id,
				proposal_id: null,
				patch_revision: null,
				status: "failed",
				exit_code: 2,
				signal: null,
				duration_ms: test_run.duration_ms,
			},
		});
		expect((finished[0] as { id: number }).id).toBeGreaterThan((started[0] as { id: number }).id);
	});

	test("an unknown task or proposal is not_found and records nothing", async () => {
		const p = await project({ allow: ["./fail.sh"], scripts });
		expect((await p.fail("test.run", { command: "./fail.sh", task_id: "T-nope" })).code).toBe("not_found");
		expect((await p.fail("test.run", { command: "./fail.sh", proposal_id: "P-nope" })).code).toBe(
			"not_found",
		);
		await expectNothingRecorded(p);
	});
});

describe("test.run with an idempotency key", () => {
	test("the same key twice returns the first run without running again", async () => {
		// Unsandboxed, so what the runs count lands in the project (a sandboxed run writes a scratch copy).
		const p = await project({
			allow: ["./count.sh"],
			scripts: { "count.sh": "echo run >> runs.txt\necho counted" },
			sandbox: "off",
		});
		const first = await run(p, { command: "./count.sh", idempotency_key: "k-1" });
		const again = await run(p, { command: "./count.sh", idempotency_key: "k-1" });
		expect(again).toEqual(first);
		expect(readFileSync(join(p.root, "runs.txt"), "utf8")).toBe("run\n");
		expect(await eventsOf(p, "test.started")).toHaveLength(1);
		expect(await eventsOf(p, "test.finished")).toHaveLength(1);

		// Another command under the same key is a conflict, and runs nothing.
		const err = await p.fail("test.run", { command: "./count.sh --again", idempotency_key: "k-1" });
		expect(err.code).toBe("conflict");
		expect(readFileSync(join(p.root, "runs.txt"), "utf8")).toBe("run\n");

		// Another key runs again.
		const other = await run(p, { command: "./count.sh", idempotency_key: "k-2" });
		expect(other.test_run.id).not.toBe(first.test_run.id);
		expect(readFileSync(join(p.root, "runs.txt"), "utf8")).toBe("run\nrun\n");
	});

	test("a retry from another process while the first still runs is a conflict; after it, the first result", async () => {
		const p = await project({
			allow: ["./slow.sh"],
			scripts: { "slow.sh": "echo run >> runs.txt\nwhile [ ! -e go ]; do sleep 0.05; done\necho done" },
			sandbox: "off",
		});
		const args = { command: "./slow.sh", idempotency_key: "k-shared" };
		// Another process (like `roundtable mcp call` beside the owner) holds the key first.
		const child = Bun.spawn(
			[
				process.execPath,
				join(REPO, "test/fixtures-scripts/apply-once.ts"),
				p.root,
				"test.run",
				JSON.stringify(args),
			],
			{ cwd: REPO, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
		);
		try {
			expect(await eventually(() => existsSync(join(p.root, "runs.txt")), 15_000)).toBe(true);
			const err = await p.fail("test.run", args);
			expect(err.code).toBe("conflict");
			expect(err.message).toBe("a test.run call with idempotency key 'k-shared' is still running");
			writeFileSync(join(p.root, "go"), "");
			const report = JSON.parse(await new Response(child.stdout).text()) as {
				ok: boolean;
				result: { test_run: { id: string; status: string } };
			};
			expect(report.ok).toBe(true);
			expect(report.result.test_run.status).toBe("passed");
			const again = await run(p, args);
			expect(again.test_run.id).toBe(report.result.test_run.id);
			expect(readFileSync(join(p.root, "runs.txt"), "utf8")).toBe("run\n");
		} finally {
			child.kill("SIGKILL");
		}
	});
});
