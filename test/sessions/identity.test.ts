// Who is calling, end to end: the attack that used to work (one client voting as every reviewer,
// approving its own security review and human approval, then applying) replayed with a capability,
// refused at every step; the same proposal then applied with the right agents' own votes and one
// operator decision. Then a real owner: loopback HTTP needs a credential, the operator's token file
// and the CLI, the bridge and a capability all work, and the raw capability is stored nowhere.
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { call } from "../../src/dispatch.ts";
import type { ToolName } from "../../src/registry/index.ts";
import { AGENT_TOOLS } from "../../src/registry/index.ts";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import {
	agentContext,
	commitAll,
	diffOf,
	MAIN,
	makeProject,
	readyLine,
	runCli,
	tempDir,
} from "../_helpers/helpers.ts";
import { stdioSession } from "../_helpers/install-helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";
import { agentClient, outcome } from "../_helpers/permissions-fixture.ts";

const OPERATOR_TOKEN = "operator-token-for-the-attack-test";

/** An MCP initialize request over plain fetch, with `authorization` when given. */
const initialize = (url: string, authorization?: string) =>
	fetch(url, {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			...(authorization && { authorization }),
		},
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
		}),
	});

describe("the attack, replayed with capabilities", async () => {
	const p = await makeProject();
	commitAll(p.root, { "auth/login.ts": "export const check = () => true;\n" });
	const op = <N extends ToolName>(tool: N, args: Record<string, unknown>) => call(p.rt, tool, args, p.ctx);
	const server = loopbackHttp(p.rt, { loopbackAuth: "token", operatorTokens: [OPERATOR_TOKEN] });
	const clients: { close(): Promise<void> }[] = [];
	afterAll(async () => {
		for (const c of clients) await c.close().catch(() => {});
		await server.close();
	});
	const capability = async (agent: string, binding: Record<string, string>) => {
		const raw = newCapability();
		await op("session.mint", { agent_id: agent, capability_sha256: capabilityHash(raw), ...binding });
		const client = await agentClient(server.url, raw);
		clients.push(client);
		return client;
	};

	await op("task.create", {
		task_id: "T-auth",
		title: "Harden login",
		body_md: "b",
		assigned_agent_id: "implementer-1",
		readable_paths: ["auth"],
	});
	const implementer = await capability("implementer-1", { task_id: "T-auth" });
	const as = (client: typeof implementer) => (tool: string, args: object) => outcome(client, tool, args);
	const impl = as(implementer);

	test("the implementer claims and proposes; every step past that is refused", async () => {
		expect(
			await impl("resource.claim", {
				agent_id: "implementer-1",
				task_id: "T-auth",
				resource_type: "file",
				resource_id: "file:auth/login.ts",
				claim_type: "write",
			}),
		).toMatchObject({ ok: true });
		const patch = diffOf(p.root, "auth/login.ts", "export const check = (u: string) => u.length > 0;\n");
		expect(
			await impl("proposal.create", {
				proposal_id: "P-auth",
				task_id: "T-auth",
				agent_id: "implementer-1",
				title: "Check the user",
				summary_md: "s",
				affected_resources: ["file:auth/login.ts"],
				risk: "high",
				patch,
			}),
		).toMatchObject({ ok: true });

		const refused = { ok: false, code: "permission_denied" };
		for (const voter of ["reviewer-1", "architect-1", "security-1", "tester-1", "implementer-1"]) {
			const vote = { proposal_id: "P-auth", agent_id: voter, vote: "approve", reason_md: "lgtm" };
			expect({ voter, got: await impl("vote.cast", vote) }).toMatchObject({ got: refused });
		}
		expect(
			await impl("security.review", { proposal_id: "P-auth", status: "approved", reviewer_id: "security-1" }),
		).toMatchObject(refused);
		expect(await impl("security.review", { proposal_id: "P-auth", status: "approved" })).toMatchObject(
			refused,
		);
		const asked = await impl("human.request_approval", {
			subject: "ship it",
			reason_md: "r",
			proposal_id: "P-auth",
		});
		expect(asked).toMatchObject({ ok: true });
		const approval = (asked as unknown as { result: { approval: { id: string } } }).result.approval.id;
		expect(
			await impl("human.request_approval", {
				approval_id: approval,
				subject: "ship it",
				reason_md: "r",
				status: "approved",
			}),
		).toMatchObject(refused);
		expect(await impl("patch.apply", { proposal_id: "P-auth" })).toMatchObject(refused);
		// The operator's own tools do not exist for it; nor does a way to mint itself more.
		for (const tool of ["human.decide", "session.mint", "agent.enable"])
			expect(await impl(tool, { approval_id: approval, status: "approved" })).toMatchObject({
				ok: false,
				code: "rpc:-32602",
			});
		// The operator's door over HTTP needs the operator's token: the implementer has none.
		expect((await initialize(server.url)).status).toBe(401);

		const gates = (await op("patch.validate", { proposal_id: "P-auth" })) as { approvable: boolean };
		expect(gates.approvable).toBe(false);
		const votes = await op("vote.list", { proposal_id: "P-auth" });
		expect(votes.votes).toEqual([]);
	});

	test("with the right agents' own votes and one operator decision, the same proposal applies", async () => {
		const bound = { proposal_id: "P-auth" };
		for (const agent of ["reviewer-1", "security-1"]) {
			const client = await capability(agent, bound);
			expect(
				await outcome(client, "vote.cast", {
					proposal_id: "P-auth",
					agent_id: agent,
					vote: "approve",
					reason_md: "ok",
				}),
			).toMatchObject({ ok: true });
			if (agent === "security-1") {
				const review = await outcome(client, "security.review", { proposal_id: "P-auth" });
				expect(review).toMatchObject({
					ok: true,
					result: { review: { status: "approved", reviewer_id: "security-1" } },
				});
			}
		}
		const state = await op("table.get_state", {});
		const request = state.human_approvals.find((a) => a.proposal_id === "P-auth");
		await op("human.decide", { approval_id: request?.id as string, status: "approved", decision_md: "yes" });
		const validation = (await op("patch.validate", { proposal_id: "P-auth" })) as {
			approvable: boolean;
			gates: { gate: string; ok: boolean; reason: string }[];
		};
		expect(validation.gates.filter((g) => !g.ok)).toEqual([]);
		expect(validation.approvable).toBe(true);
		await op("patch.apply", { proposal_id: "P-auth" });
		expect(readFileSync(join(p.root, "auth/login.ts"), "utf8")).toContain("u.length > 0");
	});
});

describe("a real owner: the operator's token, the CLI, the bridge, and a capability", () => {
	test("loopback HTTP wants a credential; the token file, the bridge and a capability work; nothing stores the capability", async () => {
		const root = tempDir("rt-identity-");
		commitAll(root, { "src/a.ts": "export const a = 1;\n" });
		expect((await runCli(["init", "--root", root])).code).toBe(0);
		const tokenFile = join(root, ".roundtable/operator.token");
		expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
		const operatorToken = readFileSync(tokenFile, "utf8").trim();
		expect(operatorToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
		const config = join(root, ".roundtable/config.yaml");
		Bun.write(
			config,
			readFileSync(config, "utf8").replace("http_address: 127.0.0.1:7117", "http_address: 127.0.0.1:0"),
		);

		const proc = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
		});
		const stderr = new Response(proc.stderr).text();
		try {
			const { ready } = await readyLine(proc, 20_000, () => stderr);
			const url = /http=(\S+)/.exec(ready)?.[1] as string;
			const init = (auth?: string) => initialize(url, auth);
			expect((await init()).status).toBe(401);
			expect((await init("Bearer not-a-token")).status).toBe(401);
			expect((await init(`Bearer ${operatorToken}`)).status).toBe(200);

			// The CLI (through the socket) and the bridge (which reads the token file) need nothing.
			const task = await runCli([
				"mcp",
				"call",
				"--root",
				root,
				"--tool",
				"task.create",
				"--args",
				JSON.stringify({
					task_id: "T-1",
					title: "t",
					body_md: "b",
					assigned_agent_id: "implementer-1",
					readable_paths: ["src"],
				}),
			]);
			expect(task.code).toBe(0);
			const bridged = await stdioSession([process.execPath, MAIN, "mcp", "stdio", "--root", root], root, {
				...process.env,
			} as Record<string, string>);
			expect(bridged.toolNames).toEqual(AGENT_TOOLS.map((t) => t.name).sort());
			expect(bridged.state.error).toBeUndefined();

			// A capability, minted by the CLI, works over HTTP as its agent; revoked, it is 401.
			const minted = await runCli([
				"sessions",
				"mint",
				"--root",
				root,
				"--agent",
				"implementer-1",
				"--task",
				"T-1",
			]);
			expect(minted.code).toBe(0);
			const capability = minted.stdout.trim();
			expect(capability).toMatch(/^[A-Za-z0-9_-]{43}$/);
			const session = /session (S-\S+) for implementer-1: Implementer task:T-1 capability until /.exec(
				minted.stderr,
			)?.[1];
			expect(session).toBeDefined();
			const client = await agentClient(url, capability);
			expect(await outcome(client, "task.get", { task_id: "T-1" })).toMatchObject({ ok: true });
			expect(
				await outcome(client, "vote.cast", {
					proposal_id: "P-1",
					agent_id: "implementer-1",
					vote: "approve",
					reason_md: "x",
				}),
			).toMatchObject({ ok: false, code: "permission_denied" });
			const listed = await runCli(["sessions", "list", "--root", root]);
			expect(listed.stdout).toMatch(
				new RegExp(`^${session} implementer-1 active codex - Implementer task:T-1 capability until `, "m"),
			);
			expect((await runCli(["sessions", "revoke", session as string, "--root", root])).stdout).toMatch(
				/ revoked /,
			);
			expect(await outcome(client, "task.get", { task_id: "T-1" })).toMatchObject({
				ok: false,
				code: "rpc:401",
			});
			await client.close().catch(() => {});
			expect((await runCli(["sessions", "list", "--root", root])).stdout).toMatch(
				/ ended .* capability revoked /,
			);
			const watched = await runCli(["watch", "--root", root, "--limit", "200"]);
			expect(watched.stdout).toMatch(
				/call\.denied implementer-1 - vote\.cast: an Implementer may not call vote\.cast/,
			);

			// The raw capability (and the operator's token) is in no file of .roundtable but the token's own.
			const files = readdirSync(join(root, ".roundtable"), { recursive: true, withFileTypes: true })
				.filter((e) => e.isFile())
				.map((e) => join(e.parentPath, e.name));
			for (const file of files) {
				const bytes = readFileSync(file).toString("latin1");
				expect({ file, capability: bytes.includes(capability) }).toEqual({ file, capability: false });
				if (file !== tokenFile)
					expect({ file, token: bytes.includes(operatorToken) }).toEqual({ file, token: false });
			}
		} finally {
			proc.kill("SIGTERM");
			await proc.exited;
		}
		expect(await stderr).not.toContain(operatorToken);
	}, 90_000);
});

describe("what a capability is minted for, and what ends it", async () => {
	const p = await makeProject();
	const op = <N extends ToolName>(tool: N, args: Record<string, unknown>) => call(p.rt, tool, args, p.ctx);
	await op("run.open", { run_id: "RUN-a" });
	await op("task.create", {
		task_id: "T-a",
		title: "t",
		body_md: "b",
		assigned_agent_id: "implementer-1",
		run_id: "RUN-a",
	});
	const mint = (args: Record<string, unknown>) =>
		op("session.mint", { capability_sha256: capabilityHash(newCapability()), ...args });

	test("a task must be assigned to the agent, a proposal open, a run active; the agent enabled", async () => {
		await expect(mint({ agent_id: "implementer-2", task_id: "T-a" })).rejects.toMatchObject({
			code: "failed_precondition",
			message: "task T-a is assigned to implementer-1, not implementer-2",
		});
		await expect(mint({ agent_id: "reviewer-1", proposal_id: "P-none" })).rejects.toMatchObject({
			code: "not_found",
		});
		await expect(mint({ agent_id: "chair-1", run_id: "RUN-none" })).rejects.toMatchObject({
			code: "not_found",
		});
		await expect(mint({ agent_id: "nobody-1" })).rejects.toMatchObject({ code: "not_found" });
		const ok = await mint({ agent_id: "implementer-1", task_id: "T-a" });
		// Bound to the task, and to its run.
		expect(ok.session).toMatchObject({
			role: "Implementer",
			task_id: "T-a",
			run_id: "RUN-a",
			revoked_at: null,
		});
		// One capability opens one session.
		const hash = capabilityHash(newCapability());
		await op("session.mint", { agent_id: "reviewer-1", capability_sha256: hash });
		await expect(
			op("session.mint", { agent_id: "reviewer-1", capability_sha256: hash }),
		).rejects.toMatchObject({
			code: "failed_precondition",
		});
	});

	test("an ended session, a run no longer active, a task given to another: permission_denied", async () => {
		const ended = await agentContext(p, "implementer-1", { task_id: "T-a" });
		await op("session.end", { session_id: (ended.principal as { session_id: string }).session_id });
		await expect(call(p.rt, "task.get", { task_id: "T-a" }, ended)).rejects.toMatchObject({
			code: "permission_denied",
			message: expect.stringContaining("has ended"),
		});

		const reassigned = await agentContext(p, "implementer-1", { task_id: "T-a" });
		await op("task.update_status", { task_id: "T-a", assigned_agent_id: "implementer-2" });
		await expect(
			call(p.rt, "task.update_status", { task_id: "T-a", status: "blocked" }, reassigned),
		).rejects.toMatchObject({
			code: "permission_denied",
			message: "task T-a is no longer assigned to implementer-1",
		});
		await op("task.update_status", { task_id: "T-a", assigned_agent_id: "implementer-1" });

		const live = await agentContext(p, "implementer-1", { task_id: "T-a" });
		expect(await call(p.rt, "task.get", { task_id: "T-a" }, live)).toMatchObject({ task: { id: "T-a" } });
		await p.rt.store.withTransaction("write", (tx) =>
			tx.runs.finish("RUN-a", "completed", new Date().toISOString()),
		);
		await expect(call(p.rt, "task.get", { task_id: "T-a" }, live)).rejects.toMatchObject({
			code: "permission_denied",
			message: "run RUN-a is completed, not active",
		});
	});

	test("an agent cannot set readable_paths, nor create a task outside its run", async () => {
		await op("run.open", { run_id: "RUN-b" });
		const chair = await agentContext(p, "chair-1", { run_id: "RUN-b" });
		await expect(
			call(
				p.rt,
				"task.create",
				{ title: "t", body_md: "b", run_id: "RUN-b", readable_paths: ["src"] },
				chair,
			),
		).rejects.toMatchObject({
			code: "permission_denied",
			message: "a Chair may not give readable_paths to task.create",
		});
		await expect(call(p.rt, "task.create", { title: "t", body_md: "b" }, chair)).rejects.toMatchObject({
			code: "permission_denied",
		});
		const made = await call(p.rt, "task.create", { title: "t", body_md: "b", run_id: "RUN-b" }, chair);
		expect(made.task).toMatchObject({ run_id: "RUN-b", readable_paths: [] });
	});
});

test("loopback_auth none: a request without a credential is the operator, and start says so", async () => {
	const root = tempDir("rt-identity-none-");
	expect((await runCli(["init", "--root", root])).code).toBe(0);
	const config = join(root, ".roundtable/config.yaml");
	await Bun.write(
		config,
		readFileSync(config, "utf8")
			.replace("http_address: 127.0.0.1:7117", "http_address: 127.0.0.1:0")
			.replace("loopback_auth: token", "loopback_auth: none"),
	);
	const proc = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const stderr = new Response(proc.stderr).text();
	try {
		const { ready } = await readyLine(proc, 20_000, () => stderr);
		const url = /http=(\S+)/.exec(ready)?.[1] as string;
		expect((await initialize(url)).status).toBe(200);
	} finally {
		proc.kill("SIGTERM");
		await proc.exited;
	}
	expect(await stderr).toContain(
		"mcp.loopback_auth is none: any local process that reaches the HTTP port acts as the operator",
	);
}, 60_000);
