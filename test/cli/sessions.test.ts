// `roundtable sessions [list]|register|heartbeat|end` and `roundtable resume` through the real CLI in
// a subprocess, on a project made by makeProject; the setup (runs, tasks, claims, proposals,
// decisions) goes through the dispatcher in this process; questions and messages through the store.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResumeBriefing as Briefing } from "../../src/briefing/resume.ts";
import type { SessionRow } from "../../src/store/sessions.ts";
import { nowIso } from "../../src/vocabulary/ids.ts";
import { cliHere as runCli } from "../_helpers/cli.ts";
import { allEvents, makeProject, type Project, RFC3339_MS_UTC } from "../_helpers/helpers.ts";

// Each test runs the CLI several times; on a busy machine a spawn takes most of a second.
setDefaultTimeout(30_000);

const p: Project = await makeProject();
await p.rt.store.withTransaction("write", (tx) =>
	tx.runs.insert({ id: "RUN-1", goal: "Ship sessions", status: "active" }, nowIso()),
);
const cli = (...args: string[]) => runCli([...args, "--root", p.root]);

/** A command that must succeed: its stdout. */
async function ok(...args: string[]): Promise<string> {
	const r = await cli(...args);
	expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
	return r.stdout;
}

/** A command that must fail with this exit code: its stderr. */
async function fails(code: number, ...args: string[]): Promise<string> {
	const r = await cli(...args);
	expect({ code: r.code, stdout: r.stdout }).toEqual({ code, stdout: "" });
	return r.stderr;
}

const register = (id: string, agent: string, ...extra: string[]) =>
	ok("sessions", "register", "--id", id, "--agent", agent, "--run", "RUN-1", "--cwd", p.root, ...extra);

async function session(id: string): Promise<SessionRow> {
	const out = JSON.parse(await ok("sessions", "--json")) as { sessions: SessionRow[] };
	const s = out.sessions.find((x) => x.id === id);
	if (!s) throw new Error(`no session ${id}`);
	return s;
}

const eventsOf = async (type: string, sessionId: string) =>
	(await allEvents(p)).filter((e) => e.type === type && e.payload.session_id === sessionId);

async function createTask(
	title: string,
	agent: string,
	extra: Record<string, unknown> = {},
): Promise<string> {
	const { task } = (await p.call("task.create", {
		title,
		body_md: "Do it.",
		assigned_agent_id: agent,
		...extra,
	})) as { task: { id: string } };
	return task.id;
}

async function claimFile(agent: string, taskId: string, path: string, text: string): Promise<string> {
	writeFileSync(join(p.root, path), text);
	const { claim } = (await p.call("resource.claim", {
		resource_type: "file",
		resource_id: `file:${path}`,
		claim_type: "write",
		task_id: taskId,
		agent_id: agent,
	})) as { claim: { id: string } };
	return claim.id;
}

describe("roundtable sessions", () => {
	test("with no sessions, lists nothing", async () => {
		expect(await ok("sessions")).toBe("");
		expect(JSON.parse(await ok("sessions", "list", "--json"))).toEqual({ sessions: [], drafts: {} });
	});

	test("register fills the resume command from the adapter's resume_pattern and records an event", async () => {
		const out = await register(
			"S-codex",
			"implementer-1",
			"--adapter",
			"codex",
			"--external-session-id",
			"ext-123",
		);
		expect(out).toBe("S-codex implementer-1 active codex resume ext-123\n");
		const [event, ...more] = await eventsOf("session.registered", "S-codex");
		expect(more).toEqual([]);
		expect(event).toMatchObject({
			actor_id: "implementer-1",
			run_id: "RUN-1",
			payload: { agent_id: "implementer-1", adapter: "codex", external_session_id: "ext-123" },
		});
	});

	test("register: a given --resume-command wins; no external id or no pattern means no resume command", async () => {
		expect(
			await register(
				"S-hand",
				"implementer-2",
				"--adapter",
				"claude",
				"--external-session-id",
				"abc",
				"--resume-command",
				"claude --resume abc --verbose",
				"--status",
				"idle",
			),
		).toBe("S-hand implementer-2 idle claude --resume abc --verbose\n");
		expect(await register("S-noext", "tester-1", "--adapter", "codex")).toBe("S-noext tester-1 active -\n");
		expect(await register("S-sh", "tester-1", "--adapter", "generic", "--external-session-id", "x1")).toBe(
			"S-sh tester-1 active -\n",
		);
	});

	test("sessions and sessions list print `<id> <agent> <status> <adapter> <resume command or ->`", async () => {
		await register("S-list", "reviewer-1", "--adapter", "gemini", "--external-session-id", "g-9");
		const lines = (await ok("sessions")).trimEnd().split("\n");
		expect(lines).toContain("S-list reviewer-1 active gemini gemini resume g-9");
		expect(lines).toContain("S-noext tester-1 active codex -");
		expect(await ok("sessions", "list")).toBe(await ok("sessions"));
		const s = await session("S-list");
		expect(s).toMatchObject({ agent_id: "reviewer-1", run_id: "RUN-1", cwd: p.root, ended_at: null });
	});

	test("register again under the same id replaces the session but keeps when it started", async () => {
		const before = await session("S-list");
		expect(
			await register(
				"S-list",
				"reviewer-1",
				"--adapter",
				"gemini",
				"--external-session-id",
				"g-10",
				"--model",
				"m2",
			),
		).toBe("S-list reviewer-1 active gemini resume g-10\n");
		const after = await session("S-list");
		expect(after).toMatchObject({ external_session_id: "g-10", model: "m2", started_at: before.started_at });
		expect((await eventsOf("session.registered", "S-list")).map((e) => e.payload.reregistered)).toEqual([
			false,
			true,
		]);
	});

	test("register: missing flags are a usage error naming them", async () => {
		const err = await fails(2, "sessions", "register", "--id", "S-x", "--agent", "implementer-1");
		expect(err).toContain("--run, --adapter and --cwd are required");
		expect(await fails(2, "sessions", "register")).toContain(
			"--id, --agent, --run, --adapter and --cwd are required",
		);
	});

	test("register: bad values are refused and record nothing", async () => {
		const args = (agent: string, run: string, adapter: string, ...extra: string[]) => [
			"sessions",
			"register",
			"--agent",
			agent,
			"--run",
			run,
			"--adapter",
			adapter,
			"--cwd",
			".",
			...(extra.includes("--id") ? extra : ["--id", "S-bad", ...extra]),
		];
		expect(await fails(1, ...args("implementer-9", "RUN-1", "codex"))).toContain(
			"agent implementer-9 not found (did you mean 'implementer-1'?)",
		);
		expect(await fails(1, ...args("implementer-1", "RUN-404", "codex"))).toContain("run RUN-404 not found");
		expect(await fails(1, ...args("implementer-1", "RUN-1", "codx"))).toContain(
			"unknown adapter 'codx' (did you mean 'codex'?)",
		);
		expect(await fails(2, ...args("implementer-1", "RUN-1", "codex", "--status", "ended"))).toContain(
			"use roundtable sessions end",
		);
		expect(
			await fails(2, ...args("implementer-1", "RUN-1", "codex", "--external-session-id", "x; rm -rf ~")),
		).toContain("--external-session-id may hold only");
		// S-codex is implementer-1's session: another agent cannot take it over.
		expect(await fails(1, ...args("implementer-2", "RUN-1", "codex", "--id", "S-codex"))).toContain(
			"session S-codex belongs to implementer-1",
		);
		expect((await ok("sessions")).includes("S-bad")).toBe(false);
		expect(await eventsOf("session.registered", "S-bad")).toEqual([]);
	});
});

describe("roundtable sessions heartbeat", () => {
	test("a plain heartbeat moves last_seen_at and records no event", async () => {
		await register("S-hb", "architect-1", "--adapter", "claude", "--external-session-id", "c-1");
		const before = await session("S-hb");
		const out = await ok("sessions", "heartbeat", "--session", "S-hb");
		const [id, status, seen] = out.trimEnd().split(" ");
		expect([id, status]).toEqual(["S-hb", "active"]);
		expect(seen).toMatch(RFC3339_MS_UTC);
		expect((seen as string) > before.last_seen_at).toBe(true);
		expect(await eventsOf("session.heartbeat", "S-hb")).toEqual([]);
	});

	test("a new status or external id is an event, and the derived resume command follows the id", async () => {
		expect(await ok("sessions", "heartbeat", "--session", "S-hb", "--status", "idle")).toMatch(
			/^S-hb idle \S+\n$/,
		);
		await ok("sessions", "heartbeat", "--session", "S-hb", "--external-session-id", "c-2");
		expect(await session("S-hb")).toMatchObject({
			status: "idle",
			external_session_id: "c-2",
			resume_command: "claude --resume c-2",
		});
		const events = await eventsOf("session.heartbeat", "S-hb");
		expect(events.map((e) => [e.actor_id, e.payload.previous_status, e.payload.status])).toEqual([
			["architect-1", "active", "idle"],
			["architect-1", "idle", "idle"],
		]);
		expect(events[1]?.payload).toMatchObject({
			previous_external_session_id: "c-1",
			external_session_id: "c-2",
		});
		// A resume command given by hand is the operator's: a new external id leaves it alone.
		await ok("sessions", "heartbeat", "--session", "S-hand", "--external-session-id", "def");
		expect((await session("S-hand")).resume_command).toBe("claude --resume abc --verbose");
	});

	test("errors: no --session, an unknown session, status ended", async () => {
		expect(await fails(2, "sessions", "heartbeat")).toContain("--session is required");
		expect(await fails(1, "sessions", "heartbeat", "--session", "S-nope")).toContain(
			"session S-nope not found",
		);
		expect(await fails(2, "sessions", "heartbeat", "--session", "S-hb", "--status", "ended")).toContain(
			"use roundtable sessions end",
		);
	});
});

describe("roundtable sessions end", () => {
	test("ends a session once, with an event; ending again or a heartbeat after it are errors", async () => {
		await register("S-end", "security-1", "--adapter", "claude");
		const out = await ok("sessions", "end", "--session", "S-end");
		const s = await session("S-end");
		expect(out).toBe(`S-end ended ${s.ended_at}\n`);
		expect(s.ended_at).toMatch(RFC3339_MS_UTC);
		const events = await eventsOf("session.ended", "S-end");
		expect(events.map((e) => [e.actor_id, e.payload.previous_status, e.payload.ended_at])).toEqual([
			["security-1", "active", s.ended_at],
		]);
		expect(await fails(1, "sessions", "end", "--session", "S-end")).toContain(
			`session S-end already ended at ${s.ended_at}`,
		);
		expect(await fails(1, "sessions", "heartbeat", "--session", "S-end")).toContain("register it again");
		expect(await fails(1, "sessions", "end", "--session", "S-nope")).toContain("session S-nope not found");
		expect(await fails(2, "sessions", "end")).toContain("--session is required");
		expect(await eventsOf("session.ended", "S-end")).toHaveLength(1);
		// Registering it again reopens it.
		expect(await register("S-end", "security-1", "--adapter", "claude")).toBe("S-end security-1 active -\n");
		expect((await session("S-end")).ended_at).toBeNull();
	});
});

describe("roundtable resume", () => {
	let current: string;
	let proposal: string;
	let readmeClaim: string;

	beforeAll(async () => {
		// implementer-1 (session S-codex): an in-progress task, a higher-priority open one, a done one,
		// two claims, a pending proposal, and four decisions in the project.
		const done = await createTask("Already done", "implementer-1", { priority: 0 });
		await p.call("task.update_status", { task_id: done, status: "done" });
		await createTask("Open but not started", "implementer-1", { priority: 5 });
		current = await createTask("Refresh tokens", "implementer-1", { priority: 50 });
		await p.call("task.update_status", { task_id: current, status: "in_progress" });
		readmeClaim = await claimFile("implementer-1", current, "README.md", "one\n");
		await claimFile("implementer-1", current, "AUTH.md", "auth\n");
		const out = (await p.call("proposal.create", {
			task_id: current,
			agent_id: "implementer-1",
			title: "Edit README",
			summary_md: "One becomes two.",
			affected_resources: [],
			risk: "normal",
			patch: "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-one\n+two\n",
		})) as { proposal: { id: string } };
		proposal = out.proposal.id;
		for (const [id, decision] of [
			["D-1", "Use SQLite"],
			["D-2", "Tokens are never logged"],
			["D-3", "Keep the login response"],
			["D-4", "Rotate refresh tokens"],
		] as const) {
			await p.call("decision.record", {
				decision_id: id,
				decision,
				rationale_md: `Because\n${decision.toLowerCase()} matters.`,
				decided_by: "chair-1",
			});
		}
	});

	test("the briefing lists the task, claims, pending proposal and latest decisions, and says what to do", async () => {
		const out = await ok("resume", "--session", "S-codex");
		expect(out).toStartWith(
			"# Roundtable Resume Briefing\n\nYou are resuming as implementer-1.\n\nRun: RUN-1\nExternal session: ext-123\n\n",
		);
		// The in-progress task beats the higher-priority open one; done tasks never come back.
		expect(out).toContain(`Current task:\n${current} Refresh tokens (in_progress)\n`);
		const auth = out.indexOf("- file:AUTH.md (");
		const readme = out.indexOf(`- file:README.md (${readmeClaim}, write)`);
		expect(out).toContain("Your active claims:\n- file:AUTH.md (");
		expect(auth).toBeGreaterThan(0);
		expect(readme).toBeGreaterThan(auth);
		// Each with its gates: no one has voted yet, so only the quorum fails.
		expect(out).toContain(
			`Pending proposals:\n- ${proposal} from you: pending — Edit README\n  Gates: failing quorum\n\nQuestions to you:\n- none\n`,
		);
		expect(out).toContain(
			"Latest decisions:\n- D-4: Rotate refresh tokens — Because rotate refresh tokens matters.\n- D-3: Keep the login response",
		);
		expect(out).not.toContain("D-1:");
		expect(out).toEndWith(
			`Required next action:\nReview proposal ${proposal} (Edit README) and address any blocking feedback before revising or resubmitting it.\n`,
		);
		expect(out).not.toContain("Stale claims");
	});

	test("--agent picks the agent's session; --json gives the same briefing as structured JSON", async () => {
		expect(await ok("resume", "--agent", "implementer-1")).toBe(await ok("resume", "--session", "S-codex"));
		const b = JSON.parse(await ok("resume", "--agent", "implementer-1", "--json")) as Briefing;
		expect(b.session.id).toBe("S-codex");
		expect(b.task?.id).toBe(current);
		expect(b.claims.map((c) => c.resource_id)).toEqual(["file:AUTH.md", "file:README.md"]);
		expect(b.pending_proposals).toMatchObject([
			{ proposal: { id: proposal }, valid: true, approvable: false, failing_gates: ["quorum"] },
		]);
		expect(b.latest_decisions.map((d) => d.id)).toEqual(["D-4", "D-3", "D-2"]);
		expect(b.required_next_action).toStartWith(`Review proposal ${proposal}`);
		expect(b.suspended_claims).toEqual([]);
	});

	test("--agent prefers an active session over an ended one seen later", async () => {
		await register("S-rev-old", "reviewer-1", "--adapter", "gemini", "--external-session-id", "old");
		await ok("sessions", "end", "--session", "S-rev-old");
		// S-list (reviewer-1) is active, seen before S-rev-old ended.
		const out = await ok("resume", "--agent", "reviewer-1");
		expect(out).toContain("External session: g-10\n");
	});

	test("with only a task the next action is to resume it; with nothing, to query and wait", async () => {
		const task = await createTask("Write the tests", "tester-1");
		const out = await ok("resume", "--session", "S-noext");
		expect(out).not.toContain("External session:");
		expect(out).toContain(`Current task:\n${task} Write the tests (open)\n`);
		expect(out).toContain("Your active claims:\n- none\n\nPending proposals:\n- none\n");
		expect(out).toEndWith(`Required next action:\nResume task ${task}: Write the tests\n`);
		const idle = await ok("resume", "--session", "S-end");
		expect(idle).toContain("Current task:\n(no assigned task)\n");
		expect(idle).toEndWith(
			"Required next action:\nQuery the table and memory, then wait for task assignment or claim work.\n",
		);
	});

	test("claims whose file changed are suspended on resume and listed after the briefing", async () => {
		const task = await createTask("Touch the stale file", "architect-1");
		const stale = await claimFile("architect-1", task, "stale.md", "before\n");
		const kept = await claimFile("architect-1", task, "kept.md", "same\n");
		writeFileSync(join(p.root, "stale.md"), "after\n");
		const out = await ok("resume", "--agent", "architect-1");
		expect(out).toContain(`Your active claims:\n- file:kept.md (${kept}, write)\n\n`);
		expect(out).toEndWith(`\n\nStale claims suspended on resume:\n- file:stale.md (${stale})\n`);
		expect(await ok("claims", "list", "--agent", "architect-1", "--status", "suspended")).toBe(
			`${stale} architect-1 write suspended file:stale.md\n`,
		);
		const suspended = (await allEvents(p)).filter(
			(e) => e.type === "claim.suspended" && e.payload.claim_id === stale,
		);
		expect(suspended).toHaveLength(1);
		// Already suspended: the next resume has nothing new to report.
		expect(await ok("resume", "--agent", "architect-1")).not.toContain("Stale claims");
	});

	test("errors: neither or both of --session and --agent, no session, an unknown session", async () => {
		expect(await fails(2, "resume")).toContain("resume requires --session or --agent");
		expect(await fails(2, "resume", "--session", "S-codex", "--agent", "implementer-1")).toContain(
			"--session or --agent, not both",
		);
		expect(await fails(1, "resume", "--agent", "chair-1")).toBe(
			"roundtable resume: no agent session found for chair-1\n",
		);
		expect(await fails(1, "resume", "--agent", "implementr-1")).toContain(
			"no agent session found for implementr-1 (did you mean 'implementer-1'?)",
		);
		expect(await fails(1, "resume", "--session", "S-nope")).toContain("session S-nope not found");
	});
});

describe("roundtable resume: peers", () => {
	test("questions, unread messages and gates: the facts and next action agent.brief gives, from the same code", async () => {
		await register("S-imp2", "implementer-2", "--adapter", "codex");
		const task = await createTask("Answer first", "implementer-2");
		const now = nowIso();
		await p.rt.store.withTransaction("write", async (tx) => {
			const q = { task_id: task, proposal_id: null };
			await tx.peers.insert(
				{
					id: "Q-r1",
					requester_id: "reviewer-1",
					assignee_id: "implementer-2",
					question_md: "Why\nthis way?",
					...q,
				},
				now,
			);
			await tx.peers.insert(
				{ id: "Q-r2", requester_id: "implementer-2", assignee_id: "operator", question_md: "May I?", ...q },
				now,
			);
			await tx.messages.insert(
				{
					id: "M-r1",
					sender_id: "architect-1",
					to_agent_id: "implementer-2",
					channel: null,
					thread_id: null,
					body_md: "Note\nmore",
				},
				now,
			);
		});
		const out = await ok("resume", "--agent", "implementer-2");
		const brief = (await p.call("agent.brief", { agent_id: "implementer-2" })) as {
			required_next_action: string;
		};
		expect(out).toContain(
			"Questions to you:\n- Q-r1 from reviewer-1: Why\n\nYour open questions:\n- Q-r2 to operator: May I?\n\nUnread messages (1):\n- M-r1 from architect-1: Note\n\n",
		);
		expect(brief.required_next_action).toBe(
			"Answer Q-r1 from reviewer-1 with peer.answer: Why. You have 1 unread message: read it with message.inbox.",
		);
		expect(out).toEndWith(`Required next action:\n${brief.required_next_action}\n`);
		const json = JSON.parse(await ok("resume", "--agent", "implementer-2", "--json"));
		const { session, suspended_claims, ...facts } = json;
		expect([session.id, suspended_claims]).toEqual(["S-imp2", []]);
		expect(facts).toEqual(await p.call("agent.brief", { agent_id: "implementer-2" }));
	});
});
