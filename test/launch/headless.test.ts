// Headless sessions in the owner (`roundtable sessions start` / `stop`, behind them session.start
// and session.stop): a scripted agent started by a real owner works in its sandbox while the CLI has
// long returned; its output is its transcript; stop ends it (SIGTERM, which it may answer), and the
// session closes as at any end. Without an owner the tools refuse, and an unknown adapter is clear.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../src/sandbox/index.ts";
import { makeProject, runCli, tempDir, until } from "../_helpers/helpers.ts";
import { type Owned, operatorCall, ownedProject } from "../_helpers/launch-helpers.ts";

const sandboxed = probeSandbox().kind === "bwrap";

let owned: Owned | undefined;
let root = "";

/** `roundtable sessions start` in the project with these arguments. */
const start = (...args: string[]) => runCli(["sessions", "start", "--root", root, ...args]);

describe.skipIf(!sandboxed)("sessions start and stop", () => {
	beforeAll(async () => {
		const scripts = tempDir("rt-headless-agent-");
		const agent = join(scripts, "agent.sh");
		// The agent: says what it was asked last (its first message ends with the operator's words),
		// keeps the whole message, answers a stop, and otherwise works until stopped.
		writeFileSync(
			agent,
			'trap \'echo "stopping, as asked"; exit 0\' TERM\nprintf "%s" "$1" > "$HOME/asked"\necho "asked: $(printf \'%s\\n\' "$1" | tail -n 1)"\nwhile :; do sleep 0.1; done\n',
		);
		owned = await ownedProject(tempDir("rt-headless-"), { "src/a.ts": "export const a = 1;\n" }, (doc) => {
			doc.setIn(["sandbox", "expose"], [scripts]);
			doc.setIn(["adapters", "scripted"], { command: `/bin/sh ${agent}`, headless: `/bin/sh ${agent}` });
		});
		root = owned.root;
		await operatorCall(root, "task.create", {
			task_id: "T-1",
			title: "t",
			body_md: "b",
			assigned_agent_id: "implementer-1",
			readable_paths: ["src"],
		});
	}, 60_000);

	afterAll(async () => {
		owned?.owner.kill("SIGTERM");
		await owned?.owner.exited;
	});

	test("start returns at once with the id; the agent runs in the owner; stop ends it, and it closes", async () => {
		const started = await start(
			"--agent",
			"implementer-1",
			"--task",
			"T-1",
			"--adapter",
			"scripted",
			"--prompt",
			"Do T-1.",
		);
		expect(started.code, started.stderr).toBe(0);
		const id = started.stdout.trim();
		expect(id).toMatch(/^S-/);
		const transcript = join(root, ".roundtable/transcripts", `${id}.log`);
		await until(
			() => existsSync(transcript) && readFileSync(transcript, "utf8").includes("asked:"),
			15_000,
			"its output",
		);
		expect(readFileSync(transcript, "utf8")).toBe("asked: Do T-1.\n");
		// Its whole first message: who it is, its briefing, the project's rules, then the operator's words.
		const asked = readFileSync(join(root, ".roundtable/agent-state/implementer-1@task-T-1/asked"), "utf8");
		expect(asked).toStartWith("You are implementer-1 (Implementer), working through Roundtable's MCP tools");
		expect(asked).toContain("Your task is T-1.");
		expect(asked).toContain("- Required next action: Resume task T-1");
		expect(asked).toContain(
			"The project's rules for agents (AGENTS.ROUNDTABLE.md):\n\n# Working in this repository",
		);
		expect(asked).toEndWith("From the operator:\n\nDo T-1.");
		const listed = await runCli(["sessions", "list", "--root", root]);
		expect(listed.stdout).toMatch(new RegExp(`^${id} implementer-1 active `, "m"));

		const stopped = await runCli(["sessions", "stop", id, "--root", root]);
		expect(stopped.code, stopped.stderr).toBe(0);
		await until(
			async () =>
				(await runCli(["sessions", "list", "--root", root])).stdout.includes(`${id} implementer-1 ended`),
			20_000,
			"the session to close",
		);
		expect(readFileSync(transcript, "utf8")).toBe("asked: Do T-1.\nstopping, as asked\n");
		const log = await runCli(["sessions", "log", id, "--root", root]);
		expect(log.stdout).toBe("asked: Do T-1.\nstopping, as asked\n");
		const watched = JSON.parse(
			(await runCli(["watch", "--root", root, "--limit", "100", "--json"])).stdout,
		) as {
			events: { type: string; payload: { session_id?: string; reason?: string } }[];
		};
		expect(
			watched.events.find((e) => e.type === "session.closed" && e.payload.session_id === id)?.payload.reason,
		).toBe("stopped");
		// Stopping it again: nothing of that id runs.
		const again = await runCli(["sessions", "stop", id, "--root", root]);
		expect(again.code).toBe(1);
		expect(again.stderr).toContain(`no headless session ${id} runs`);
	}, 60_000);

	test("an unknown adapter is a clear failed_precondition, and nothing is left running", async () => {
		const r = await start("--agent", "reviewer-1", "--adapter", "nope");
		expect(r.code).toBe(1);
		expect(r.stderr).toContain('"code":"failed_precondition"');
		expect(r.stderr).toContain("unknown adapter nope");
		// No session was minted for it.
		const listed = await runCli(["sessions", "list", "--root", root]);
		expect(listed.stdout).not.toMatch(/ reviewer-1 /);
	});

	test("a binding session.mint refuses keeps the mint's own code and message", async () => {
		const unknown = await start("--agent", "nobody-1", "--adapter", "scripted");
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain('"code":"not_found"');
		const notTheirs = await start("--agent", "reviewer-1", "--task", "T-1", "--adapter", "scripted");
		expect(notTheirs.code).toBe(1);
		expect(notTheirs.stderr).not.toContain("ToolError");
		expect(notTheirs.stderr).toMatch(/"code":"(failed_precondition|permission_denied|invalid_argument)"/);
		expect(notTheirs.stderr).toContain("T-1");
	});
});

test("without an owner, session.start is refused: only the owner runs headless sessions", async () => {
	const p = await makeProject();
	const err = await p.fail("session.start", { agent_id: "implementer-1" });
	expect(err.code).toBe("failed_precondition");
	expect(err.message).toContain("only the owner runs headless sessions");
	expect((await p.fail("session.stop", { session_id: "S-x" })).code).toBe("failed_precondition");
});
