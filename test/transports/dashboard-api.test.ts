// The dashboard's JSON API over real HTTP, a real project and a real git repository: the table
// snapshot with every Markdown body rendered inert, one proposal with its diffs, votes, findings,
// test runs and gates, a test log, memory search, and the two changes (a human decision, a
// rollback), each made through call() as the operator and recorded as such.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readOperatorToken } from "../../src/config/operator-token.ts";
import { isInert } from "../../src/dashboard/server/markdown.ts";
import { Browser, type State, serveDashboard } from "../_helpers/dashboard-helpers.ts";
import { type Flow, taskFlow } from "../_helpers/flow-helpers.ts";
import { addRun, allEvents, commitAll, diffOf } from "../_helpers/helpers.ts";
import { project } from "../_helpers/test-run-helpers.ts";

const HOSTILE = [
	"# Plan",
	"",
	"<script>alert('task')</script>",
	"",
	"Inline <img src=x onerror=alert(1)> and <iframe src='https://evil.example'></iframe>.",
	"",
	"[click](javascript:alert(1)) [also](JaVaScRiPt&colon;alert(1)) [fine](https://example.com)",
].join("\n");

const p = await project({ allow: ["./check.sh"], sandbox: "off", scripts: { "check.sh": "echo checked" } });
commitAll(p.root, { "README.md": "one\n", "config.txt": "a = 1\nb = 2\n" });
const { base } = serveDashboard(p);
const browser = new Browser(base);
await browser.login(readOperatorToken(p.root) as string);

/** A high-risk proposal on `path` whose only failing gate is the human approval, with its request. */
async function waitingForHuman(path: string, text: string) {
	const f = await taskFlow(p);
	await f.claim("implementer-1", path);
	const proposal = await f.propose({ risk: "high", patch: diffOf(p.root, path, text) });
	for (const agent of ["architect-1", "reviewer-1", "security-1"]) await f.vote(proposal.id, agent);
	await f.call("security.review", { proposal_id: proposal.id, reviewer_id: "security-1" });
	const { approval } = (await f.call("human.request_approval", {
		subject: "Ship it?",
		reason_md: "High risk: <b>look</b>",
		proposal_id: proposal.id,
	})) as { approval: { id: string } };
	const failing = (await f.validate(proposal.id)).gates.filter((g) => !g.ok).map((g) => g.gate);
	expect(failing).toEqual(["human_approval"]);
	return { f, proposal, approval: approval.id };
}

/** Every `*_html` value in a view, at any depth, with where it is. */
function htmlFields(value: unknown, at = "$"): [string, string][] {
	if (Array.isArray(value)) return value.flatMap((v, i) => htmlFields(v, `${at}[${i}]`));
	if (typeof value !== "object" || value === null) return [];
	return Object.entries(value).flatMap(([k, v]) =>
		k.endsWith("_html") && typeof v === "string" ? [[`${at}.${k}`, v]] : htmlFields(v, `${at}.${k}`),
	);
}

function expectAllInert(view: unknown) {
	const fields = htmlFields(view);
	expect(fields.length).toBeGreaterThan(0);
	for (const [where, html] of fields) {
		expect({ where, inert: isInert(html) }).toEqual({ where, inert: true });
		expect(html).not.toMatch(/<(script|img|iframe)\b|javascript:/i);
	}
}

describe("GET /api/state", () => {
	test("the table, the turn queue, open questions and newest messages, every body rendered inert", async () => {
		const { task } = (await p.call("task.create", { title: "Hostile", body_md: HOSTILE })) as {
			task: { id: string };
		};
		await addRun(p, "RUN-state");
		await p.call("agent.turn_request", {
			run_id: "RUN-state",
			agent_id: "implementer-1",
			reason_md: "my turn",
		});
		await p.call("peer.ask", {
			agent_id: "reviewer-1",
			assignee_agent_id: "operator",
			question_md: "Is <script>alert(2)</script> fine?",
		});
		for (let i = 0; i < 55; i++)
			await p.call("message.post", {
				agent_id: "architect-1",
				channel: "general",
				body_md: `note ${i} <b>x</b>`,
			});
		const f = await taskFlow(p);
		await f.claim("implementer-1", "README.md", { ttl_seconds: 60 });
		await f.claim("implementer-1", "config.txt");

		const state = await browser.state();
		expect(Object.keys(state).sort()).toEqual(
			[
				"csrf_token",
				"last_event_id",
				"now",
				"runs",
				"agents",
				"tasks",
				"turns",
				"claims",
				"proposals",
				"transactions",
				"approvals",
				"security_reviews",
				"questions",
				"messages",
				"sessions",
			].sort(),
		);
		const newest = ((await p.call("table.watch", { limit: 1 })) as { next_after_event_id: number })
			.next_after_event_id;
		expect(state.last_event_id).toBe(newest);
		expect(Date.parse(state.now)).toBeGreaterThan(Date.now() - 60_000);

		const hostile = state.tasks.find((t: State) => t.id === task.id);
		expect(hostile.body_md).toBe(HOSTILE);
		expect(hostile.body_md_html).toContain("&lt;script&gt;");
		expect(hostile.body_md_html).toContain('<a href="https://example.com">fine</a>');
		expect(hostile.body_md_html).toContain("click");

		expect(state.turns).toContainEqual(
			expect.objectContaining({
				run_id: "RUN-state",
				agent_id: "implementer-1",
				status: "requested",
				lease_expires_at: null,
				reason_md_html: "<p>my turn</p>\n",
			}),
		);
		expect(typeof state.turns[0].request_event_id).toBe("number");
		expect(state.questions.map((q: State) => q.question_md)).toContain("Is <script>alert(2)</script> fine?");
		expect(state.messages).toHaveLength(50);
		expect(state.messages[0].body_md).toBe("note 54 <b>x</b>");
		expect(state.messages[0].body_md_html).toBe("<p>note 54 &lt;b&gt;x&lt;/b&gt;</p>\n");

		const claims = Object.fromEntries(state.claims.map((c: State) => [c.path, c.expiring_soon]));
		expect(claims).toMatchObject({ "README.md": true, "config.txt": false });
		expectAllInert(state);
	});
});

describe("GET /api/proposals/:id", () => {
	test("revisions with their diffs, votes with reasons, findings on their lines, test runs and gates", async () => {
		const f: Flow = await taskFlow(p);
		await f.claim("implementer-1", "config.txt");
		const first = diffOf(p.root, "config.txt", "a = 1\nb = 3\n");
		const proposal = await f.propose({ patch: first, summary_md: "Summary with <script>x</script>" });
		const second = diffOf(p.root, "config.txt", "a = 1\nkey = AKIAABCDEFGHIJKLMNOP\n");
		await f.call("proposal.attach_patch", {
			proposal_id: proposal.id,
			agent_id: "implementer-1",
			patch: second,
		});
		await f.call("vote.cast", {
			proposal_id: proposal.id,
			agent_id: "reviewer-1",
			vote: "revise",
			confidence: 0.8,
			reason_md: "A key on **line 2** <img src=x onerror=alert(1)>",
		});
		await f.call("security.review", { proposal_id: proposal.id, reviewer_id: "security-1" });
		await p.call("test.run", { command: "./check.sh", proposal_id: proposal.id });

		const res = await browser.get(`/api/proposals/${proposal.id}`);
		expect(res.status).toBe(200);
		const view = (await res.json()) as State;
		expect(view.proposal.id).toBe(proposal.id);
		expect(view.summary_md_html).toBe("<p>Summary with &lt;script&gt;x&lt;/script&gt;</p>\n");
		expect(view.revisions.map((r: State) => [r.number, r.diff])).toEqual([
			[1, first],
			[2, second],
		]);
		expect(view.revisions[1]).toMatchObject({ sha256: expect.any(String), created_at: expect.any(String) });
		expect(view.votes).toEqual([
			expect.objectContaining({
				agent_id: "reviewer-1",
				vote: "revise",
				confidence: 0.8,
				patch_revision: 2,
				reason_md_html: expect.stringContaining("<strong>line 2</strong>"),
			}),
		]);
		const findings = view.security_reviews.flatMap((r: State) => r.findings);
		expect(findings).toContainEqual(
			expect.objectContaining({
				path: "config.txt",
				line: 2,
				rule: "cloud_access_key",
				severity: "critical",
			}),
		);
		expect(findings[0].message).toEqual(expect.any(String));
		expect(view.test_runs).toEqual([
			expect.objectContaining({
				id: expect.any(String),
				status: "passed",
				patch_revision: 2,
				command: "./check.sh",
				sandbox: "none",
				sandbox_reason: expect.any(String),
				exit_code: 0,
				started_at: expect.any(String),
				finished_at: expect.any(String),
			}),
		]);
		expect(view.gates).toMatchObject({ valid: expect.any(Boolean), approvable: false });
		expect(view.gates.gates).toContainEqual({
			gate: "blockers",
			ok: false,
			reason: expect.stringContaining("reviewer-1: revise"),
		});
		expectAllInert(view);

		const missing = await browser.get("/api/proposals/P-nothing");
		expect(missing.status).toBe(404);
		expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
	});

	test("GET /api/test-runs/:id/log: the stored log as plain text, from an offset", async () => {
		const { test_run } = (await p.call("test.run", { command: "./check.sh" })) as {
			test_run: { id: string };
		};
		const whole = await browser.get(`/api/test-runs/${test_run.id}/log`);
		expect(whole.status).toBe(200);
		expect(whole.headers.get("content-type")).toBe("text/plain; charset=utf-8");
		const log = await whole.text();
		expect(log).toContain("checked");
		expect(whole.headers.get("x-log-bytes")).toBe(String(Buffer.byteLength(log)));
		const rest = await browser.get(`/api/test-runs/${test_run.id}/log?offset=2`);
		expect(await rest.text()).toBe(log.slice(2));
		for (const offset of ["-1", "x", "1.5"]) {
			const bad = await browser.get(`/api/test-runs/${test_run.id}/log?offset=${offset}`);
			expect({ offset, status: bad.status }).toEqual({ offset, status: 400 });
		}
		expect((await browser.get("/api/test-runs/TR-none/log")).status).toBe(404);
	});

	test("GET /api/sessions/:id/transcript: the transcript as plain text, its last line in the state", async () => {
		const minted = (await p.call("session.mint", {
			agent_id: "implementer-1",
			capability_sha256: "a".repeat(64),
		})) as { session: { id: string } };
		const id = minted.session.id;
		const none = await browser.get(`/api/sessions/${id}/transcript`);
		expect(none.status).toBe(200);
		expect(await none.text()).toBe("");
		expect(none.headers.get("x-log-bytes")).toBe("0");
		expect(none.headers.get("x-session-live")).toBe("true");
		const text = "first line\nsecond, the last ✓\n\n";
		mkdirSync(join(p.root, ".roundtable/transcripts"), { recursive: true });
		writeFileSync(join(p.root, ".roundtable/transcripts", `${id}.log`), text);
		const whole = await browser.get(`/api/sessions/${id}/transcript`);
		expect(whole.headers.get("content-type")).toBe("text/plain; charset=utf-8");
		expect(await whole.text()).toBe(text);
		expect(whole.headers.get("x-log-bytes")).toBe(String(Buffer.byteLength(text)));
		expect(await (await browser.get(`/api/sessions/${id}/transcript?offset=6`)).text()).toBe(text.slice(6));
		const listed = ((await browser.state()).sessions as State[]).find((s) => s.id === id);
		expect(listed).toMatchObject({ last_line: "second, the last ✓", attempt: 0, status: "active" });
		for (const offset of ["-1", "x"])
			expect((await browser.get(`/api/sessions/${id}/transcript?offset=${offset}`)).status).toBe(400);
		expect((await browser.get("/api/sessions/S-none/transcript")).status).toBe(404);
		expect((await browser.get(`/api/sessions/${id}/log`)).status).toBe(404);
	});

	test("POST /api/tasks/:id/status opens or cancels a task, and nothing else", async () => {
		const { message } = (await p.call("message.post", { channel: "ideas", body_md: "Proposed\nwhy" })) as {
			message: { id: string };
		};
		const { task } = (await p.call("message.promote", { message_id: message.id, as: "task" })) as {
			task: { id: string; status: string };
		};
		expect(task.status).toBe("proposed");
		const done = await browser.post(`/api/tasks/${task.id}/status`, { status: "done" });
		expect(done.status).toBe(400);
		const opened = await browser.post(`/api/tasks/${task.id}/status`, { status: "open" });
		expect(opened.status).toBe(200);
		expect(((await opened.json()) as State).task.status).toBe("open");
		expect((await browser.post("/api/tasks/T-none/status", { status: "open" })).status).toBe(404);
	});

	test("GET /api/memory?q=: memory.query's entries, bodies rendered", async () => {
		await p.call("memory.record", {
			scope: "project",
			kind: "fact",
			title: "Deploys",
			body_md: "Deploys run on *Fridays* <script>no</script>",
		});
		const res = await browser.get("/api/memory?q=deploys");
		expect(res.status).toBe(200);
		const out = (await res.json()) as State;
		expect(out.entries).toHaveLength(1);
		expect(out.entries[0].body_md_html).toBe(
			"<p>Deploys run on <em>Fridays</em> &lt;script&gt;no&lt;/script&gt;</p>\n",
		);
		expect((await browser.get("/api/memory?q=")).status).toBe(400);
	});
});

describe("the changes, as the operator", () => {
	test("POST /api/approvals/:id is recorded as the operator's and makes patch.validate pass", async () => {
		const { f, proposal, approval } = await waitingForHuman("README.md", "two\n");
		const res = await browser.post(`/api/approvals/${approval}`, {
			status: "approved",
			decision_md: "Looks right.",
		});
		expect(res.status).toBe(200);
		const out = (await res.json()) as State;
		expect(out.approval).toMatchObject({ id: approval, status: "approved", decided_by: "operator" });
		const decided = (await allEvents(p)).filter((e) => e.type === "approval.decided").at(-1);
		expect(decided).toMatchObject({ actor_id: "operator", payload: { approval_id: approval } });
		const v = await f.validate(proposal.id);
		expect(v.gates.filter((g) => !g.ok)).toEqual([]);
		expect(v).toMatchObject({ valid: true, approvable: true });

		// A later rejection revokes it.
		const reject = await browser.post(`/api/approvals/${approval}`, { status: "rejected" });
		expect(reject.status).toBe(200);
		expect(f.gate(await f.validate(proposal.id), "human_approval").ok).toBe(false);
	});

	test("POST /api/approvals/:id refuses what human.decide refuses, in the tools' error shape", async () => {
		const { approval } = await waitingForHuman("README.md", "three\n");
		const cases: [string, unknown, number, string][] = [
			["/api/approvals/H-none", { status: "approved" }, 404, "not_found"],
			[`/api/approvals/${approval}`, { status: "maybe" }, 400, "invalid_argument"],
			[`/api/approvals/${approval}`, {}, 400, "invalid_argument"],
			[`/api/approvals/${approval}`, { status: "approved", decided_by: "someone" }, 400, "invalid_argument"],
			[`/api/approvals/${approval}`, [1], 400, "invalid_argument"],
		];
		for (const [path, body, status, code] of cases) {
			const res = await browser.post(path, body);
			expect({ body, status: res.status }).toEqual({ body, status });
			expect(await res.json()).toMatchObject({ error: { code, message: expect.any(String) } });
		}
		const notJson = await browser.fetch(`/api/approvals/${approval}`, {
			method: "POST",
			headers: { origin: base, "x-csrf-token": (await browser.csrf()) as string },
			body: "{nope",
		});
		expect(notJson.status).toBe(400);
		const huge = await browser.post(`/api/approvals/${approval}`, {
			status: "approved",
			decision_md: "x".repeat(70 * 1024),
		});
		expect(huge.status).toBe(413);
		expect(
			((await p.call("human.approval_status", { approval_id: approval })) as State).approval.status,
		).toBe("requested");
		expect((await browser.get(`/api/approvals/${approval}`)).status).toBe(405);
	});

	test("POST /api/transactions/:id/rollback undoes an apply through patch.rollback", async () => {
		const { proposal, approval } = await waitingForHuman("README.md", "applied\n");
		expect((await browser.post(`/api/approvals/${approval}`, { status: "approved" })).status).toBe(200);
		const applied = (await p.call("patch.apply", { proposal_id: proposal.id })) as {
			transaction: { id: string };
		};
		expect(readFileSync(join(p.root, "README.md"), "utf8")).toBe("applied\n");

		const res = await browser.post(`/api/transactions/${applied.transaction.id}/rollback`, {
			reason_md: "Not today.",
		});
		expect(res.status).toBe(200);
		const out = (await res.json()) as State;
		expect(out.rolled_back.id).toBe(applied.transaction.id);
		expect(out.proposal.status).toBe("rolled_back");
		expect(readFileSync(join(p.root, "README.md"), "utf8")).toBe("one\n");
		const event = (await allEvents(p)).filter((e) => e.type === "patch.rolled_back").at(-1);
		expect(event?.actor_id).toBe("operator");

		const twice = await browser.post(`/api/transactions/${applied.transaction.id}/rollback`, {});
		expect(twice.status).toBeGreaterThanOrEqual(400);
		expect(twice.status).toBeLessThan(500);
		expect((await browser.post("/api/transactions/TX-none/rollback", {})).status).toBe(404);
	});
});
