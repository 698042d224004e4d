// The terminal view of interactive `run`: rendering from a snapshot of a real project, then the real
// thing in a pseudo-terminal (tmux): it shows the run, picks up an event another process commits,
// follows a resize, and quits on q, Ctrl-C or SIGTERM with the terminal restored.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fit, isInteractive, readRunSnapshot, renderRunView } from "../../src/tui/run-view.ts";
import { nowIso } from "../../src/vocabulary/ids.ts";
import { MAIN, makeProject, type Project, REPO, tempDir } from "../_helpers/helpers.ts";

const DRIVER = join(REPO, "test", "fixtures-scripts", "run-view.ts");
const width = (line: string) => Bun.stringWidth(line);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function projectWithRun(goal: string): Promise<{ p: Project; runId: string }> {
	const p = await makeProject();
	const runId = `RUN-view-${Math.random().toString(36).slice(2, 8)}`;
	await p.rt.store.withTransaction("write", (tx) =>
		tx.runs.insert({ id: runId, goal, status: "active" }, nowIso()),
	);
	return { p, runId };
}

const newestEvent = (p: Project, runId: string) =>
	p.rt.store.withTransaction("read", async (tx) => (await tx.events.newest(runId, 1))[0]);

/** `<id> <type> <actor> <task or ->` as the view prints it (columns padded). */
const eventLineRe = (e: { id: number; type: string; actor_id: string; task_id: string | null }) =>
	new RegExp(
		`^\\s*${e.id} ${escapeRe(e.type)}\\s+${escapeRe(e.actor_id)}\\s+${escapeRe(e.task_id ?? "-")}\\s*$`,
	);

describe("renderRunView", () => {
	test("shows the run, its counts, turn queue and newest events, within the size", async () => {
		const { p, runId } = await projectWithRun("Ship the health check \x1b[31mnow\x1b[0m\nplease");
		const tasks: string[] = [];
		for (let i = 0; i < 25; i++) {
			const out = await p.call("task.create", { title: `Task ${i}`, body_md: "Do it.", run_id: runId });
			tasks.push((out.task as { id: string }).id);
		}
		await p.call("task.update_status", { task_id: tasks[0], status: "in_progress" });
		await p.call("task.update_status", { task_id: tasks[1], status: "blocked" });
		await p.call("task.update_status", { task_id: tasks[2], status: "done" });
		const turn = await p.call("agent.turn_request", {
			run_id: runId,
			agent_id: "implementer-1",
			reason_md: "ready",
		});
		// Another run's event must not show.
		await p.call("task.create", { title: "Elsewhere", body_md: "Not this run." });

		const snapshot = await readRunSnapshot(p.rt.store, runId, 30);
		const events = snapshot.events;
		expect(events.length).toBe(29); // 25 created, 3 updated, 1 turn request
		expect(events.every((e) => e.run_id === runId)).toBe(true);

		const lines = renderRunView(snapshot, { width: 100, height: 30, status: "owner: this process" });
		const text = lines.join("\n");
		expect(lines.length).toBe(30); // the events fill the screen
		for (const line of lines) expect(width(line)).toBeLessThanOrEqual(100);
		expect(lines[0]).toBe(`Roundtable run ${runId} [active]`);
		// The goal's escape sequence and newline are neutralized.
		expect(lines[1]).toBe("goal       Ship the health check  [31mnow [0m please");
		expect(text).not.toContain("\x1b");
		expect(lines[2]).toBe("chair      ticks 0, last -, convergence -");
		expect(lines[3]).toBe("tasks      open 22 | in progress 1 | review 0 | blocked 1 | done 1");
		expect(lines[4]).toBe("proposals  pending 0 | in review 0");
		expect(lines[5]).toMatch(/^table {6}agents enabled [1-9]\d* \| claims live 0 \| approvals requested 0$/);
		expect(text).toContain("proposal  - (none in this run)");
		expect(text).toContain("test      - (none)");
		expect(text).toMatch(/-- turn queue \(1\) -+/);
		expect(lines).toContainEqual(
			expect.stringMatching(new RegExp(`^1 implementer-1 requested\\s+request ${turn.request_event_id}$`)),
		);
		// As many of the newest events as fit, newest last, just above the footer.
		const eventRows = lines.filter((l) => events.some((e) => eventLineRe(e).test(l)));
		expect(eventRows.length).toBe(30 - 6 - 5 - 2 - 1 - 1); // header, latest, turns, rule, footer
		expect(lines[28]).toMatch(eventLineRe(events.at(-1) as (typeof events)[number]));
		expect(lines[29]).toMatch(
			new RegExp(
				`^q quit \\| owner: this process \\| updated \\d\\d:\\d\\d:\\d\\d \\| last event ${snapshot.lastEventId}$`,
			),
		);

		// Every size fits, down to one line; the footer stays.
		for (const [w, h] of [
			[100, 30],
			[60, 15],
			[40, 8],
			[20, 5],
			[10, 2],
			[80, 1],
		] as const) {
			const small = renderRunView(snapshot, { width: w, height: h });
			expect(small.length).toBeLessThanOrEqual(h);
			for (const line of small) expect(width(line)).toBeLessThanOrEqual(w);
			expect(small.at(-1)).toStartWith(fit("q quit", w).slice(0, 4));
		}
		// At 10 rows the latest records give way and the events still show.
		const tight = renderRunView(snapshot, { width: 100, height: 10 });
		expect(tight.join("\n")).not.toContain("-- latest");
		expect(tight.some((l) => eventLineRe(events.at(-1) as (typeof events)[number]).test(l))).toBe(true);
		expect(renderRunView(snapshot, { width: 0, height: 10 })).toEqual([]);
	});

	test("open questions: counted in the header, the oldest listed (id, from → to, first line)", async () => {
		const { p, runId } = await projectWithRun("Questions");
		await p.call("task.create", { title: "Work", body_md: "Do it.", run_id: runId });
		await p.rt.store.withTransaction("write", async (tx) => {
			for (let i = 1; i <= 5; i++) {
				const at = new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString();
				await tx.peers.insert(
					{
						id: `Q-${i}`,
						requester_id: i === 2 ? "operator" : "reviewer-1",
						assignee_id: i === 2 ? "implementer-1" : "operator",
						question_md: `\nQuestion ${i}?\nDetails \x1b[31m.`,
						task_id: null,
						proposal_id: null,
					},
					at,
				);
			}
			await tx.peers.markAnswered("Q-1", nowIso());
		});
		const snapshot = await readRunSnapshot(p.rt.store, runId, 10);
		expect(snapshot.questions.open).toBe(4);
		const lines = renderRunView(snapshot, { width: 100, height: 30 });
		expect(lines[5]).toMatch(
			/^table {6}agents enabled \d+ \| claims live 0 \| approvals requested 0 \| questions open 4$/,
		);
		const at = lines.findIndex((l) => l.startsWith("-- open questions (4, oldest first) --"));
		expect(lines.slice(at + 1, at + 5)).toEqual([
			"Q-2 operator → implementer-1: Question 2?",
			"Q-3 reviewer-1 → operator: Question 3?",
			"Q-4 reviewer-1 → operator: Question 4?",
			"(+1 more)",
		]);
		expect(lines[at + 5]).toStartWith("-- turn queue");
		// Short of room the latest records go, then the turn queue; the oldest question stays, with
		// the count, above the events. Shorter still, the questions go too.
		const tight = renderRunView(snapshot, { width: 100, height: 12 });
		expect(tight.slice(6, 9)).toEqual([
			expect.stringMatching(/^-- open questions \(4, oldest first\) -+$/),
			"Q-2 operator → implementer-1: Question 2?",
			expect.stringMatching(/^-- events of the run \(newest last, 1 shown\) -+$/),
		]);
		expect(renderRunView(snapshot, { width: 100, height: 9 }).join("\n")).not.toContain("open questions");
	});

	test("a missing run says so", async () => {
		const p = await makeProject();
		const snapshot = await readRunSnapshot(p.rt.store, "RUN-missing", 10);
		const lines = renderRunView(snapshot, { width: 80, height: 20 });
		expect(lines[0]).toBe("Roundtable run RUN-missing: no such run");
		expect(lines.join("\n")).toContain("events of the run (newest last, none yet)");
	});

	test("fit truncates by display width and drops control characters", () => {
		expect(fit("abcdef", 4)).toBe("abc~");
		expect(fit("abcd", 4)).toBe("abcd");
		expect(fit("日本語です", 6)).toBe("日本~");
		expect(fit("a\tb\u009bc", 10)).toBe("a b c");
		expect(fit("x", 0)).toBe("");
	});

	test("isInteractive needs two terminals and a TERM that can address the cursor", () => {
		const tty = { isTTY: true, setRawMode: () => {} } as unknown as NodeJS.ReadStream;
		const out = { isTTY: true } as unknown as NodeJS.WriteStream;
		const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;
		expect(isInteractive(tty, out, { TERM: "xterm-256color" })).toBe(true);
		expect(isInteractive(tty, pipe, { TERM: "xterm-256color" })).toBe(false);
		expect(isInteractive(pipe as unknown as NodeJS.ReadStream, out, {})).toBe(false);
		expect(isInteractive(tty, out, { TERM: "dumb" })).toBe(false);
	});
});

// --- In a real terminal -------------------------------------------------------------------------

const TMUX = Bun.which("tmux");
if (!TMUX) console.warn("run-view.test.ts: tmux is not installed; skipping the real-terminal tests");

// A private server (its own socket), killed when the file ends whatever happened; tmux leaves the
// socket file behind, so it goes too.
const SOCKET = `rt-view-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
let socketPath: string | undefined;
afterAll(() => {
	if (!TMUX) return;
	Bun.spawnSync([TMUX, "-L", SOCKET, "kill-server"], { stdout: "ignore", stderr: "ignore" });
	if (socketPath) rmSync(socketPath, { force: true });
});
// The machine may be busy (other suites in parallel): generous bounds where speed is not the point.
const SLOW_MS = 15_000;

function tmux(...args: string[]): string {
	const r = Bun.spawnSync([TMUX as string, "-L", SOCKET, "-f", "/dev/null", ...args], {
		stdout: "pipe",
		stderr: "pipe",
	});
	if (r.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr.toString().trim()}`);
	return r.stdout.toString();
}

const capture = (session: string) => tmux("capture-pane", "-p", "-t", session).replace(/\n+$/, "");
/** The pane's modes: whether it shows the alternate screen, whether the cursor is visible. */
const paneModes = (session: string) => {
	const [alternate, cursor] = tmux("display-message", "-p", "-t", session, "#{alternate_on} #{cursor_flag}")
		.trim()
		.split(" ");
	return { alternate: alternate === "1", cursor: cursor === "1" };
};

/** Polls until `ok` holds; returns the milliseconds it took, or throws showing the pane. */
async function waitFor(session: string, what: string, ms: number, ok: () => boolean): Promise<number> {
	const start = performance.now();
	for (;;) {
		if (ok()) return performance.now() - start;
		if (performance.now() - start > ms) {
			throw new Error(`waited ${ms} ms for ${what}; the pane shows:\n${capture(session)}`);
		}
		await Bun.sleep(20);
	}
}

/**
 * Runs `argv` in a fresh 100×30 tmux session. A shell in the pane waits for it and prints
 * `<label>: exit=<status>`, then stays: tmux 3.3a was seen to take over 15 s to reap an exited pane
 * process on a busy machine, so `pane_dead_status` is not relied on.
 */
function newSession(session: string, label: string, argv: string[]) {
	const script = `"$@"; echo "${label}: exit=$?"; exec sleep 600`;
	tmux(
		"new-session",
		"-d",
		"-s",
		session,
		"-x",
		"100",
		"-y",
		"30",
		"-c",
		REPO,
		"sh",
		"-c",
		script,
		"sh",
		...argv,
	);
	socketPath ??= tmux("display-message", "-p", "#{socket_path}").trim();
}

/** Starts the driver in a fresh tmux session; returns its pid file. */
function startDriver(session: string, root: string, runId: string, refreshMs: number): string {
	const pidFile = join(tempDir("rt-view-pid-"), "pid");
	newSession(session, "driver", [process.execPath, DRIVER, root, runId, String(refreshMs), pidFile]);
	return pidFile;
}

/** After the view ended: the driver's lines on the main screen, modes restored, a clean exit. */
async function expectRestoredExit(session: string, result: "quit" | "aborted"): Promise<number> {
	const line = `driver: result=${result} raw=false tty=cooked`;
	const exitMs = await waitFor(session, "the driver to exit", SLOW_MS, () =>
		capture(session).includes("driver: exit="),
	);
	const text = capture(session);
	expect(text).toContain(line);
	expect(text).toContain("driver: exit=0"); // by itself: nothing the view set up kept it alive
	expect(text).toContain("driver: before the view"); // the main screen, as it was
	expect(text).not.toContain("Roundtable run"); // the view left with the alternate screen
	// Only the view writes these modes (Bun's exit does not), and it restored them.
	expect(paneModes(session)).toEqual({ alternate: false, cursor: true });
	return exitMs;
}

describe.skipIf(!TMUX)("runView in a real terminal (tmux)", () => {
	test("shows the run live, follows a resize, quits on q and restores the terminal", async () => {
		const { p, runId } = await projectWithRun("Live view");
		await p.call("task.create", { title: "First", body_md: "Before the view.", run_id: runId });
		const refreshMs = 500;
		const session = "live";
		startDriver(session, p.root, runId, refreshMs);

		const first = await newestEvent(p, runId);
		const firstRe = eventLineRe(first as NonNullable<typeof first>);
		const shown = await waitFor(session, "the run on screen", SLOW_MS, () => {
			const lines = capture(session).split("\n");
			return lines[0]?.includes(runId) === true && lines.some((l) => firstRe.test(l));
		});
		expect(paneModes(session)).toEqual({ alternate: true, cursor: false });
		for (const line of capture(session).split("\n")) expect(width(line)).toBeLessThanOrEqual(100);

		// A commit from this process (another connection to the same SQLite file) shows within two refreshes.
		const out = await p.call("task.create", { title: "Second", body_md: "During the view.", run_id: runId });
		const committed = performance.now();
		const event = await newestEvent(p, runId);
		expect(event?.task_id).toBe((out.task as { id: string }).id);
		const re = eventLineRe(event as NonNullable<typeof event>);
		await waitFor(session, `event ${event?.id} within two refreshes`, 2 * refreshMs + 1000, () =>
			capture(session)
				.split("\n")
				.some((l) => re.test(l)),
		);
		const eventMs = performance.now() - committed;

		// Resize: the view redraws to the new size.
		tmux("resize-window", "-t", session, "-x", "60", "-y", "15");
		const resizeMs = await waitFor(session, "the 60-column view", SLOW_MS, () => {
			const lines = capture(session).split("\n");
			return (
				lines.some((l) => l.startsWith("-- events") && l.length === 60) && lines.every((l) => width(l) <= 60)
			);
		});

		tmux("send-keys", "-t", session, "q");
		const exitMs = await expectRestoredExit(session, "quit");
		console.info(
			`run-view tmux: on screen ${Math.round(shown)} ms after the session started, ` +
				`new event after ${Math.round(eventMs)} ms (refresh ${refreshMs} ms), resize after ${Math.round(resizeMs)} ms, ` +
				`q to exited ${Math.round(exitMs)} ms`,
		);
	}, 60_000);

	test("wakes on another process's commit long before its interval; SIGTERM restores the terminal", async () => {
		const { p, runId } = await projectWithRun("Wake");
		const session = "wake";
		const pidFile = startDriver(session, p.root, runId, 20_000);
		await waitFor(session, "the run on screen", SLOW_MS, () => capture(session).includes(runId));
		await Bun.sleep(200); // past the first read's 100 ms floor

		await p.call("task.create", { title: "Wake up", body_md: "A commit.", run_id: runId });
		const committed = performance.now();
		const event = await newestEvent(p, runId);
		const re = eventLineRe(event as NonNullable<typeof event>);
		await waitFor(session, `event ${event?.id} well before the 20 s refresh`, 2000, () =>
			capture(session)
				.split("\n")
				.some((l) => re.test(l)),
		);
		const wakeMs = performance.now() - committed;

		process.kill(Number(readFileSync(pidFile, "utf8")), "SIGTERM");
		await expectRestoredExit(session, "aborted");
		console.info(`run-view tmux: woken by a commit after ${Math.round(wakeMs)} ms (refresh 20000 ms)`);
	}, 60_000);

	test("Ctrl-C quits cleanly", async () => {
		const { p, runId } = await projectWithRun("Ctrl-C");
		const session = "ctrlc";
		startDriver(session, p.root, runId, 1000);
		await waitFor(session, "the run on screen", SLOW_MS, () => capture(session).includes(runId));
		tmux("send-keys", "-t", session, "C-c");
		await expectRestoredExit(session, "quit");
	}, 60_000);
});

describe.skipIf(!TMUX)("interactive `roundtable run` in a real terminal (tmux)", () => {
	test("it owns the project, shows the Chair's work within two refreshes, and q stops it all", async () => {
		const p = await makeProject({ config: "mcp:\n  http_address: 127.0.0.1:0\n" });
		const session = "cli";
		newSession(session, "cli", [
			process.execPath,
			MAIN,
			"run",
			"--root",
			p.root,
			"--run",
			"RUN-tty",
			"--interval",
			"300ms",
		]);
		await waitFor(session, "the view", SLOW_MS, () => capture(session).includes("Roundtable run RUN-tty"));
		// It is the owner (it publishes itself once it listens, just after the view is up).
		await waitFor(session, "owner.json", SLOW_MS, () => existsSync(join(p.root, ".roundtable/owner.json")));

		// A task created from outside: the Chair (this process) assigns it on its next tick.
		await p.call("task.create", { title: "From outside", body_md: "b", run_id: "RUN-tty", task_id: "T-tty" });
		const ms = await waitFor(session, "the Chair's task.assigned", 2 * 300 + 1000, () =>
			/task\.assigned\s+chair-1\s+T-tty/.test(capture(session)),
		);
		console.info(
			`run tmux: the Chair's assignment on screen ${Math.round(ms)} ms after the task was created`,
		);

		tmux("send-keys", "-t", session, "q");
		await waitFor(session, "the command to exit", SLOW_MS, () => capture(session).includes("cli: exit="));
		expect(capture(session)).toContain("cli: exit=0");
		expect(paneModes(session)).toEqual({ alternate: false, cursor: true });
		expect(existsSync(join(p.root, ".roundtable/owner.json"))).toBe(false);
	}, 60_000);
});
