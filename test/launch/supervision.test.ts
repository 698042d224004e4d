// The owner's supervision of headless sessions, from the operator's side: what the events say and
// what is on disk. A failed agent is started again after a backoff, in the same workspace and home,
// resuming its CLI's conversation; a missing command gives up at once, naming it; an agent that dies
// at once every time is started max_attempts times and no more; one that hangs is cut at its wall
// time and retried. Scripted CLIs stand in for the real ones (test/launch/real-agents.test.ts runs
// those), named codex so Codex's adapter module reads their output.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { runCli, tempDir, until } from "../_helpers/helpers.ts";
import { type Owned, operatorCall, ownedProject, PROBE } from "../_helpers/launch-helpers.ts";
import { brief, closed, type Event, startSession } from "../_helpers/session-life.ts";

const sandboxed = probeSandbox().kind === "bwrap";

let owned: Owned | undefined;
let root = "";
let scripts = "";

/** A scripted CLI for adapter `name` (its headless form and its resumed form run `body`). */
function cli(name: string, body: string): Record<string, unknown> {
	const file = join(scripts, `${name}.sh`);
	writeFileSync(file, body);
	return {
		command: `/bin/sh ${file}`,
		headless: `/bin/sh ${file}`,
		headless_resume: `/bin/sh ${file} resume {{external_session_id}}`,
	};
}

const start = (...args: string[]) => startSession(root, ...args);

describe.skipIf(!sandboxed)("a headless session's attempts", () => {
	beforeAll(async () => {
		scripts = tempDir("rt-supervised-cli-");
		const adapters = {
			// Names its conversation, leaves a file in its home and one in its workspace, and fails; resumed,
			// it says what it found of them and succeeds.
			codex: cli(
				"codex",
				[
					'if [ "$1" = resume ]; then',
					'  echo "resumed $2; home: $(cat "$HOME/state" 2>&1); workspace: $(cat notes.txt 2>&1)"',
					"  exit 0",
					"fi",
					`echo '{"type":"thread.started","thread_id":"conv-1"}'`,
					'echo kept > "$HOME/state"; echo draft > notes.txt',
					"echo 'model unreachable' >&2; exit 3",
					"",
				].join("\n"),
			),
			dies: cli("dies", "echo dying; exit 1\n"),
			hangs: cli("hangs", "trap 'exit 0' TERM; echo waiting; while :; do sleep 0.1; done\n"),
			// First run: claims a.ts (released when its session ends) and fails. Retried: reads the table.
			claimer: cli(
				"claimer",
				[
					'if [ -e "$HOME/claimed" ]; then',
					`  ARGS_CALLS='[["table.get_state",{}]]' exec ${process.execPath} ${PROBE}`,
					"fi",
					'touch "$HOME/claimed"',
					`ARGS_CALLS='[["resource.claim",{"resource_type":"file","resource_id":"file:src/a.ts","claim_type":"write","task_id":"T-3","resume_policy":"release"}]]' ${process.execPath} ${PROBE}`,
					"exit 1",
					"",
				].join("\n"),
			),
			missing: {
				command: "roundtable-no-such-cli",
				headless: "roundtable-no-such-cli --json",
			},
		};
		owned = await ownedProject(tempDir("rt-supervised-"), { "src/a.ts": "export const a = 1;\n" }, (doc) => {
			doc.setIn(["sandbox", "expose"], [scripts, dirname(PROBE)]);
			for (const [name, a] of Object.entries(adapters))
				for (const [k, v] of Object.entries(a)) doc.setIn(["adapters", name, k], v);
			doc.setIn(["sessions", "max_attempts"], 3);
			doc.setIn(["sessions", "retry_backoff_ms"], 300);
			doc.setIn(["sessions", "max_wall_seconds"], 2);
		});
		root = owned.root;
		for (const [id, agent] of [
			["T-1", "implementer-1"],
			["T-2", "implementer-2"],
			["T-3", "implementer-1"],
		])
			await operatorCall(root, "task.create", {
				task_id: id,
				title: id,
				body_md: "b",
				assigned_agent_id: agent,
				readable_paths: ["src"],
			});
	}, 60_000);

	afterAll(async () => {
		owned?.owner.kill("SIGTERM");
		await owned?.owner.exited;
	});

	test("a failed attempt is retried after the backoff, resuming its conversation in the same workspace and home", async () => {
		const id = await start("--agent", "implementer-1", "--task", "T-1", "--adapter", "codex");
		const events = await closed(root, id);
		expect(brief(events)).toEqual([
			"started 1",
			"exited 1 3",
			"retrying 2",
			"started 2",
			"exited 2 0",
			"closed",
		]);
		const [, exited, retrying, second] = events as Event[];
		expect(exited?.payload).toMatchObject({ reason: "exit 3", interrupted: false });
		expect(retrying?.payload).toMatchObject({ delay_ms: 300, why: "exit 3" });
		expect(second?.payload).toMatchObject({ resumes: "conv-1", supervised: true, adapter: "codex" });
		const log = readFileSync(join(root, ".roundtable/transcripts", `${id}.log`), "utf8");
		expect(log).toContain("model unreachable\n[roundtable] attempt 2, resuming conv-1\n");
		expect(log).toContain("resumed conv-1; home: kept; workspace: draft\n");
		// The home is kept for the next session of this agent on this task; the workspace's change is a draft.
		const home = join(root, ".roundtable/agent-state/implementer-1@task-T-1");
		expect(readFileSync(join(home, "state"), "utf8")).toBe("kept\n");
		expect(statSync(home).mode & 0o777).toBe(0o700);
		expect(statSync(dirname(home)).mode & 0o777).toBe(0o700);
		const diff = await operatorCall(root, "workspace.diff", { session_id: id });
		expect(JSON.stringify(diff)).toContain("notes.txt");
		const listed = JSON.parse((await runCli(["sessions", "list", "--root", root, "--json"])).stdout) as {
			sessions: {
				id: string;
				attempt: number;
				external_session_id: string | null;
				resume_command: string | null;
			}[];
		};
		expect(listed.sessions.find((s) => s.id === id)).toMatchObject({
			attempt: 2,
			external_session_id: "conv-1",
			resume_command: "codex resume conv-1",
		});
	}, 60_000);

	test("a command that does not exist gives up at once, naming it", async () => {
		const id = await start("--agent", "reviewer-1", "--adapter", "missing");
		const events = await closed(root, id);
		expect(brief(events)).toEqual(["exited 1 127", "gave_up", "closed"]);
		expect(events[1]?.payload.why).toContain("roundtable-no-such-cli is not on PATH");
	}, 60_000);

	test("an agent that dies at once every time is started max_attempts times, further apart each time, then given up", async () => {
		const id = await start("--agent", "implementer-2", "--task", "T-2", "--adapter", "dies");
		const events = await closed(root, id);
		expect(brief(events)).toEqual([
			"started 1",
			"exited 1 1",
			"retrying 2",
			"started 2",
			"exited 2 1",
			"retrying 3",
			"started 3",
			"exited 3 1",
			"gave_up",
			"closed",
		]);
		expect(events.filter((e) => e.type === "session.retrying").map((e) => e.payload.delay_ms)).toEqual([
			300, 600,
		]);
		expect(events[8]?.payload.why).toBe("3 attempt(s) failed; the last: exit 1");
		// What `roundtable watch` says of them.
		const watched = (await runCli(["watch", "--root", root, "--limit", "1000"])).stdout;
		expect(watched).toMatch(
			new RegExp(`session\\.exited implementer-2 T-2 ${id} attempt 1 status 1 after [\\d.]+ s: exit 1\n`),
		);
		expect(watched).toContain(`session.retrying implementer-2 T-2 ${id} attempt 3 in 0.6 s: exit 1\n`);
		expect(watched).toContain(
			`session.gave_up implementer-2 T-2 ${id}: 3 attempt(s) failed; the last: exit 1\n`,
		);
		expect(readFileSync(join(root, ".roundtable/transcripts", `${id}.log`), "utf8")).toBe(
			"dying\n[roundtable] attempt 2, started afresh\ndying\n[roundtable] attempt 3, started afresh\ndying\n",
		);
	}, 60_000);

	test("an agent that hangs is stopped at its wall time and retried", async () => {
		const id = await start("--agent", "reviewer-1", "--adapter", "hangs");
		const events = await closed(root, id, 40_000);
		expect(brief(events)).toEqual([
			"started 1",
			"exited 1 124",
			"retrying 2",
			"started 2",
			"exited 2 124",
			"retrying 3",
			"started 3",
			"exited 3 124",
			"gave_up",
			"closed",
		]);
		expect(events[1]?.payload.reason).toBe("stopped at sessions.max_wall_seconds (2 s)");
		expect(events[1]?.payload.duration_ms as number).toBeGreaterThanOrEqual(2000);
	}, 60_000);

	test("a stopped session is not retried", async () => {
		const id = await start("--agent", "reviewer-1", "--adapter", "hangs");
		// Stopped once it is at work (its trap for SIGTERM set, as "waiting" says).
		const transcript = join(root, ".roundtable/transcripts", `${id}.log`);
		await until(
			() => existsSync(transcript) && readFileSync(transcript, "utf8").includes("waiting"),
			15_000,
			"its start",
		);
		expect((await runCli(["sessions", "stop", id, "--root", root])).code).toBe(0);
		const events = await closed(root, id);
		expect(brief(events)).toEqual(["started 1", "exited 1 0", "closed"]);
		expect(events[1]?.payload.reason).toBe("stopped");
		expect(existsSync(join(root, ".roundtable/sessions", id))).toBe(false);
	}, 60_000);

	test("a retried agent keeps its claims; they follow their resume_policy only when its session closes", async () => {
		const id = await start("--agent", "implementer-1", "--task", "T-3", "--adapter", "claimer");
		const events = await closed(root, id);
		expect(brief(events)).toEqual([
			"started 1",
			"exited 1 1",
			"retrying 2",
			"started 2",
			"exited 2 0",
			"closed",
		]);
		// The second run saw its claim still active.
		const log = readFileSync(join(root, ".roundtable/transcripts", `${id}.log`), "utf8");
		const second = JSON.parse(log.split("\n").filter((l) => l.startsWith('{"tries"'))[1] as string) as {
			results: { claims: { resource_id: string; status: string; session_id: string }[] }[];
			home: string;
		};
		// Its home is its own, for this task: not implementer-1's home for T-1 (which holds `state`).
		expect(second.home.split(",")).toContain("claimed");
		expect(second.home.split(",")).not.toContain("state");
		expect(second.results[0]?.claims.find((c) => c.session_id === id)).toMatchObject({
			resource_id: "file:src/a.ts",
			status: "active",
		});
		const all = JSON.parse((await runCli(["watch", "--root", root, "--limit", "1000", "--json"])).stdout) as {
			events: { id: number; type: string; payload: Record<string, unknown> }[];
		};
		const released = all.events.find(
			(e) => e.type === "claim.released" && e.payload.resource_id === "file:src/a.ts",
		);
		const retried = all.events.find((e) => e.type === "session.retrying" && e.payload.session_id === id);
		const lastExit = all.events.findLast((e) => e.type === "session.exited" && e.payload.session_id === id);
		expect(released && retried && lastExit && released.id > lastExit.id && lastExit.id > retried.id).toBe(
			true,
		);
	}, 60_000);
});
