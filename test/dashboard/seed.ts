// A table worth looking at, for the dashboard's browser tests and screenshots: a run, tasks (one
// with hostile Markdown), claims, a low-risk proposal applied (a transaction to roll back), a
// high-risk proposal in two revisions (security findings on r1's lines, a clean r2 with a test
// run, votes and a human approval requested, so only the human gate fails), an open question to
// the operator, messages and a memory entry. Every step is a tool call through `call`.
export type Call = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** The files the project's git repository starts with. */
export const FILES: Record<string, string> = {
	"README.md": "# Demo\n\nA small project.\n",
	"auth/login.ts": 'export function check(user: string): boolean {\n\treturn user !== "";\n}\n',
	"src/app.ts": 'export const greet = (name: string) => "hello " + name;\n',
	Makefile: "test:\n\t@echo all 3 checks passed\n",
};

/** Markdown that would run script if rendered carelessly; every variant must stay inert. */
export const HOSTILE_MD = [
	"Hostile body: <script>window.__pwned = 'script'</script>",
	"",
	"<img src=x onerror=\"window.__pwned = 'img'\">",
	"",
	"[click me](javascript:window.__pwned='link')",
	"",
	'<div onclick="window.__pwned = \'div\'" id="injected">raw html</div>',
	"",
	'<iframe src="javascript:alert(1)"></iframe> and **bold** text.',
].join("\n");

/** A unified diff of `path` from `before` to `after` (whole-file hunks; enough for these files). */
export function wholeFileDiff(path: string, before: string, after: string): string {
	const a = before.split("\n").slice(0, -1);
	const b = after.split("\n").slice(0, -1);
	return [
		`diff --git a/${path} b/${path}`,
		`--- a/${path}`,
		`+++ b/${path}`,
		`@@ -1,${a.length} +1,${b.length} @@`,
		...a.map((l) => `-${l}`),
		...b.map((l) => `+${l}`),
		"",
	].join("\n");
}

const LOGIN_R1 =
	'import { execSync } from "node:child_process";\n\nconst adminPassword = "correct-horse-battery-staple";\n\nexport function check(user: string, password: string): boolean {\n\texecSync("rm -rf /tmp/login-cache");\n\treturn user !== "" && password === adminPassword;\n}\n';
const LOGIN_R2 =
	'export function check(user: string, password: string, stored: string): boolean {\n\treturn user !== "" && password.length >= 12 && password === stored;\n}\n';

export interface Seeded {
	run: string;
	hostileTask: string;
	auth: string;
	authApproval: string;
	docs: string;
	docsTx: string;
}

export async function seedTable(call: Call): Promise<Seeded> {
	const id = (out: Record<string, unknown>, key: string) => (out[key] as { id: string }).id;
	const run = id(await call("run.open", { goal: "Harden the login check and tidy the docs" }), "run");
	const docsTask = id(
		await call("task.create", {
			title: "Tidy the README",
			body_md: "Say what the project is in **one** line.\n\n- keep it short\n- link `docs/`",
			assigned_agent_id: "implementer-1",
			priority: 1,
		}),
		"task",
	);
	const authTask = id(
		await call("task.create", {
			title: "Harden the login check",
			body_md: "`check()` accepts any non-empty user. Require a password of **12+** characters.",
			assigned_agent_id: "implementer-1",
			risk: "high",
			priority: 3,
		}),
		"task",
	);
	const hostileTask = id(
		await call("task.create", { title: "A task with a hostile body", body_md: HOSTILE_MD }),
		"task",
	);
	await call("task.create", { title: "Add a health check", body_md: "`GET /healthz` answers `ok`." });
	await call("task.create", { title: "Cache the symbol index", body_md: "Only after the login work lands." });

	const claim = (task: string, path: string, extra: Record<string, unknown> = {}) =>
		call("resource.claim", {
			resource_type: "file",
			resource_id: `file:${path}`,
			path,
			claim_type: "write",
			task_id: task,
			agent_id: "implementer-1",
			...extra,
		});
	await claim(docsTask, "README.md");
	await claim(authTask, "auth/login.ts", { rationale: "the login check" });
	await claim(authTask, "src/app.ts", { ttl_seconds: 120, rationale: "may need a helper" });

	// The docs change: two votes, applied; a transaction the page can roll back.
	const docs = id(
		await call("proposal.create", {
			task_id: docsTask,
			agent_id: "implementer-1",
			title: "One-line README",
			summary_md: "Replaces the README's body with one line.",
			affected_resources: ["file:README.md"],
			risk: "low",
			patch: wholeFileDiff(
				"README.md",
				FILES["README.md"] as string,
				"# Demo\n\nDemo: a small project that greets people.\n",
			),
		}),
		"proposal",
	);
	for (const agent of ["reviewer-1", "architect-1"])
		await call("vote.cast", {
			proposal_id: docs,
			agent_id: agent,
			vote: "approve",
			confidence: 0.9,
			reason_md: "Clear and short.",
		});
	const docsTx = id(await call("patch.apply", { proposal_id: docs }), "transaction");

	// The login change: r1 trips the security scan, r2 is clean, tested and voted on.
	const auth = id(
		await call("proposal.create", {
			task_id: authTask,
			agent_id: "implementer-1",
			title: "Require a real password",
			summary_md: "Checks the password against the stored one and **requires 12+ characters**.",
			affected_resources: ["file:auth/login.ts"],
			risk: "high",
			patch: wholeFileDiff("auth/login.ts", FILES["auth/login.ts"] as string, LOGIN_R1),
		}),
		"proposal",
	);
	await call("security.review", { proposal_id: auth });
	await call("vote.cast", {
		proposal_id: auth,
		agent_id: "reviewer-1",
		vote: "revise",
		confidence: 0.8,
		reason_md: "Do not hardcode the password, and why `rm -rf`?",
	});
	await call("proposal.attach_patch", {
		proposal_id: auth,
		agent_id: "implementer-1",
		patch: wholeFileDiff("auth/login.ts", FILES["auth/login.ts"] as string, LOGIN_R2),
	});
	await call("security.review", { proposal_id: auth });
	await call("test.run", { command: "make test", proposal_id: auth });
	for (const [agent, confidence, reason] of [
		["reviewer-1", 0.85, "Better: the stored password is passed in."],
		["security-1", 0.95, "No secret in the code, no shell. Fine."],
		["architect-1", 0.7, "The signature change ripples to two callers; acceptable."],
	] as const)
		await call("vote.cast", {
			proposal_id: auth,
			agent_id: agent,
			vote: "approve",
			confidence,
			reason_md: reason,
		});
	const authApproval = id(
		await call("human.request_approval", {
			subject: "Ship the stricter login check",
			reason_md: "High risk: it changes who can log in.",
			proposal_id: auth,
		}),
		"approval",
	);

	await call("peer.ask", {
		agent_id: "implementer-1",
		assignee_agent_id: "operator",
		question_md: "Should the minimum be **12** or 16 characters?",
		task_id: authTask,
	});
	await call("message.post", {
		agent_id: "reviewer-1",
		channel: "general",
		body_md: "Reviewing the login change now.",
	});
	await call("message.post", {
		agent_id: "implementer-1",
		to_agent_id: "operator",
		body_md: "r2 is up: no shell, no secret.",
	});
	await call("memory.record", {
		scope: "project",
		kind: "convention",
		title: "Passwords are never stored in code",
		body_md: "Credentials come from the environment or the secret store; the scan flags hardcoded ones.",
	});
	return { run, hostileTask, auth, authApproval, docs, docsTx };
}
