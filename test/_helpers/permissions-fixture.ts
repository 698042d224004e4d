// A project for the permission tests: two runs, a task of each (implementer-1's in RUN-1, readable
// `src`; implementer-2's in RUN-2, readable `other`), a proposal, approval, test run and claims on
// each, and one capability per role, bound the way docs/permissions.md describes. Each role's agent
// holds read claims on src/a.ts (kept) and src/b.ts (to release), so its reads can be tried.

import {
	Client as ModernClient,
	StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { call } from "../../src/dispatch.ts";
import type { ToolName } from "../../src/registry/index.ts";
import { ROLES, type Role } from "../../src/registry/types.ts";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { commitAll, diffOf, makeProject, type Project } from "./helpers.ts";

export const AGENT_OF: Record<Role, string> = {
	Implementer: "implementer-1",
	Reviewer: "reviewer-1",
	Tester: "tester-1",
	Security: "security-1",
	Architect: "architect-1",
	MemoryOracle: "memory-oracle-1",
	Chair: "chair-1",
};

/** What a call names: a task, its proposal and run, a path, and records of theirs. */
export interface Target {
	task: string;
	proposal: string;
	run: string;
	path: string;
	/** A claim to release (the caller's own, when the target is its own). */
	claim: string;
	/** A claim to renew. */
	keep: string;
	/** A proposal to withdraw. */
	spare: string;
	testRun: string;
	approval: string;
}

export interface Fixture {
	p: Project;
	mine: (role: Role) => Target;
	other: Target;
	memory: string;
	/** Mints a capability for a role's agent, bound as the matrix binds it. */
	mint: (role: Role, ttlSeconds?: number) => Promise<{ capability: string; session: string }>;
}

const FILES = {
	"src/a.ts": "export const a = 1; // alpha\n",
	"src/b.ts": "export const b = 2; // beta\n",
	"other/c.ts": "export const secret = 3; // secret\n",
};

export async function permissionsFixture(): Promise<Fixture> {
	const p = await makeProject({
		config: 'tests:\n  allowed_commands: ["true"]\n  sandbox: "off"\n',
	});
	commitAll(p.root, FILES);
	const op = <N extends ToolName>(tool: N, args: Record<string, unknown>) => call(p.rt, tool, args, p.ctx);
	for (const run of ["RUN-1", "RUN-2"]) await op("run.open", { run_id: run });
	const side = async (n: 1 | 2, task: string, run: string, dir: string, path: string) => {
		const agent = `implementer-${n}`;
		await op("task.create", {
			task_id: task,
			title: task,
			body_md: "work",
			assigned_agent_id: agent,
			run_id: run,
			readable_paths: [dir],
		});
		const write = await op("resource.claim", {
			agent_id: agent,
			task_id: task,
			resource_type: "file",
			resource_id: `file:${path}`,
			claim_type: "write",
		});
		const { proposal } = await op("proposal.create", {
			proposal_id: `P-${task}`,
			task_id: task,
			run_id: run,
			agent_id: agent,
			title: "change",
			summary_md: "change",
			affected_resources: [`file:${path}`],
			risk: "low",
			patch: diffOf(p.root, path, `${FILES[path as keyof typeof FILES]}// more\n`),
		});
		const { approval } = await op("human.request_approval", {
			approval_id: `H-${task}`,
			subject: "s",
			reason_md: "r",
			proposal_id: proposal.id,
		});
		const { test_run } = await op("test.run", { command: "true", proposal_id: proposal.id });
		return {
			task,
			proposal: proposal.id,
			run,
			claim: write.claim.id,
			approval: approval.id,
			testRun: test_run.id,
		};
	};
	const mineBase = await side(1, "T-mine", "RUN-1", "src", "src/a.ts");
	const otherBase = await side(2, "T-other", "RUN-2", "other", "other/c.ts");
	const { entry: memory } = await op("memory.record", {
		title: "m",
		body_md: "b",
		kind: "fact",
		scope: "project",
	});

	// A second proposal on T-mine, for withdraw to take (the first stays open for the others).
	const { proposal: spare } = await op("proposal.create", {
		proposal_id: "P-spare",
		task_id: "T-mine",
		run_id: "RUN-1",
		agent_id: "implementer-1",
		title: "spare",
		summary_md: "spare",
		affected_resources: [],
		risk: "low",
		patch: diffOf(p.root, "src/a.ts", `${FILES["src/a.ts"]}// spare\n`),
	});

	// Each claiming role's read claims on its task (the bound proposal's task is T-mine too). The
	// MemoryOracle, with no readable paths, holds claims on a resource that is no path.
	const claims = new Map<Role, { keep: string; release: string }>();
	for (const role of ROLES.filter((r) => r !== "Chair")) {
		const claim = async (path: string) =>
			(
				await op("resource.claim", {
					agent_id: AGENT_OF[role],
					task_id: "T-mine",
					...(role === "MemoryOracle"
						? { resource_type: "endpoint", resource_id: `endpoint:${path}` }
						: { resource_type: "file", resource_id: `file:${path}` }),
					claim_type: "read",
				})
			).claim.id;
		claims.set(role, { keep: await claim("src/a.ts"), release: await claim("src/b.ts") });
	}

	const mine = (role: Role): Target => ({
		...mineBase,
		spare: spare.id,
		path: "src/a.ts",
		claim: claims.get(role)?.release ?? mineBase.claim,
		keep: claims.get(role)?.keep ?? mineBase.claim,
	});
	const other: Target = {
		...otherBase,
		spare: otherBase.proposal,
		path: "other/c.ts",
		keep: otherBase.claim,
	};

	const BINDING: Record<Role, Record<string, string>> = {
		Implementer: { task_id: "T-mine" },
		Reviewer: { proposal_id: mineBase.proposal },
		Tester: { proposal_id: mineBase.proposal },
		Security: { proposal_id: mineBase.proposal },
		Architect: { proposal_id: mineBase.proposal },
		MemoryOracle: {},
		Chair: { run_id: "RUN-1" },
	};
	const mint = async (role: Role, ttlSeconds?: number) => {
		const capability = newCapability();
		const { session } = await op("session.mint", {
			agent_id: AGENT_OF[role],
			capability_sha256: capabilityHash(capability),
			...BINDING[role],
			...(ttlSeconds !== undefined && { ttl_seconds: ttlSeconds }),
		});
		return { capability, session: session.id };
	};
	return { p, mine, other, memory: memory.id, mint };
}

/** An MCP client over HTTP presenting `capability` as its bearer. */
/** The two eras of MCP a client may speak: 2025-11-25 (the 1.x SDK) and 2026-07-28 (the 2.x one). */
export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

/** What a test asks of a client, in either era. */
export interface AnyClient {
	listTools(): Promise<{ tools: { name: string }[] }>;
	callTool(p: {
		name: string;
		arguments: Record<string, unknown>;
	}): Promise<{ content: unknown; isError?: unknown }>;
	close(): Promise<void>;
}

export async function agentClient(
	url: string,
	capability: string,
	era: Era = "2025-11-25",
): Promise<AnyClient> {
	const requestInit = { headers: { Authorization: `Bearer ${capability}` } };
	if (era === "2026-07-28") {
		const client = new ModernClient(
			{ name: "agent", version: "1" },
			{ versionNegotiation: { mode: { pin: "2026-07-28" } } },
		);
		await client.connect(new ModernHttpTransport(new URL(url), { requestInit }));
		return client as unknown as AnyClient;
	}
	const client = new Client({ name: "agent", version: "1" });
	await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
	return client as unknown as AnyClient;
}

export type Outcome =
	| { ok: true; result: Record<string, unknown> }
	| { ok: false; code: string; message: string };

/** A tool call's outcome: its result, or its error's code (a JSON-RPC or HTTP failure as `rpc:<code>`). */
export async function outcome(client: AnyClient, name: string, args: object): Promise<Outcome> {
	try {
		const r = await client.callTool({ name, arguments: args as Record<string, unknown> });
		const text = (r.content as { text: string }[])[0]?.text ?? "{}";
		const body = JSON.parse(text) as { error?: { code: string; message: string } };
		if (r.isError && body.error) return { ok: false, code: body.error.code, message: body.error.message };
		return { ok: true, result: body as Record<string, unknown> };
	} catch (err) {
		const e = err as { code?: number; message: string };
		return { ok: false, code: `rpc:${e.code ?? "?"}`, message: e.message };
	}
}

/** Sample arguments naming a target: valid enough to reach the handler. */
export function argsFor(tool: ToolName, t: Target, me: string, memory: string): Record<string, unknown> {
	const patch =
		"--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 1; // alpha\n+export const a = 9;\n";
	const table: Partial<Record<ToolName, Record<string, unknown>>> = {
		"table.get_state": {},
		"table.watch": { after_event_id: 0, limit: 1 },
		"agent.turn_request": { run_id: t.run, agent_id: me, reason_md: "work" },
		"agent.turn_start": { run_id: t.run, agent_id: me, request_event_id: 1 },
		"agent.turn_complete": { run_id: t.run, agent_id: me, request_event_id: 1 },
		"task.create": { title: "new", body_md: "b", run_id: t.run },
		"task.get": { task_id: t.task },
		"task.list": { limit: 1 },
		"task.update_status": { task_id: t.task, status: "in_progress" },
		"repo.read_file": { path: t.path },
		"repo.search": { query: "const", path: t.path },
		"repo.symbols": { path: t.path },
		"repo.dependency_context": { path: t.path },
		"resource.claim": {
			agent_id: me,
			task_id: t.task,
			resource_type: "file",
			resource_id: `file:${t.path}`,
			claim_type: "read",
		},
		"resource.claim_status": { limit: 1 },
		"resource.get": { resource_id: "file:src/a.ts" },
		"resource.release": { claim_id: t.claim, agent_id: me },
		"resource.search": { query: "src" },
		"resource.renew": { claim_id: t.keep, agent_id: me },
		"proposal.create": {
			task_id: t.task,
			agent_id: me,
			title: "t",
			summary_md: "s",
			affected_resources: [`file:${t.path}`],
			risk: "low",
			patch,
		},
		"proposal.attach_patch": { proposal_id: t.proposal, agent_id: me, patch },
		"proposal.get": { proposal_id: t.proposal },
		// No workspace in this fixture (nothing was launched): failed_precondition once allowed.
		"workspace.diff": {},
		"workspace.propose": { title: "t", summary_md: "s", risk: "low" },
		"workspace.sync": {},
		"proposal.list": { limit: 1 },
		"proposal.request_review": { proposal_id: t.proposal },
		"proposal.withdraw": { proposal_id: t.spare, agent_id: me },
		"vote.cast": { proposal_id: t.proposal, agent_id: me, vote: "approve", reason_md: "ok" },
		"vote.list": { proposal_id: t.proposal },
		"decision.record": { decided_by: me, decision: "d", rationale_md: "r", proposal_id: t.proposal },
		"patch.validate": { proposal_id: t.proposal },
		"patch.apply": { proposal_id: t.proposal },
		"patch.reject": { proposal_id: t.proposal, reason_md: "no" },
		"patch.rollback": { transaction_id: "TX-none" },
		"human.request_approval": { subject: "s", reason_md: "r", proposal_id: t.proposal },
		"human.approval_status": { approval_id: t.approval },
		"security.review": { proposal_id: t.proposal },
		"test.suggest": { proposal_id: t.proposal },
		"test.run": { command: "true", proposal_id: t.proposal },
		"test.get_result": { test_run_id: t.testRun },
		"test.evidence.submit": {
			proposal_id: t.proposal,
			agent_id: me,
			command: "x",
			outcome: "passed",
			summary_md: "ok",
		},
		"memory.query": { query: "m" },
		"memory.record": { title: "t", body_md: "b", kind: "fact", scope: "project", task_id: t.task },
		"memory.summarize": { task_id: t.task },
		"memory.mark_stale": { memory_id: memory, reason_md: "old" },
		"peer.list": {},
		"peer.ask": { agent_id: me, assignee_agent_id: "operator", question_md: "q?" },
		"peer.request": { agent_id: me, request_id: "Q-none" },
		"peer.answer": { agent_id: me, request_id: "Q-none", answer_md: "a" },
		"peer.wait": { agent_id: me, request_id: "Q-none", wait_ms: 0 },
		"peer.cancel": { agent_id: me, request_id: "Q-none", reason_md: "r" },
		"peer.reply_late": { agent_id: me, request_id: "Q-none", answer_md: "a" },
		"message.post": { agent_id: me, to_agent_id: "operator", body_md: "hi" },
		"message.inbox": { agent_id: me },
		"message.mark_read": { agent_id: me, message_ids: ["MSG-none"] },
		"channel.list": {},
		"channel.messages": { agent_id: me, channel: "general" },
		"message.promote": { agent_id: me, message_id: "MSG-none", as: "task" },
		"promotion.list": {},
		"agent.brief": { agent_id: me },
	};
	const args = table[tool];
	if (!args) throw new Error(`no sample arguments for ${tool}`);
	return args;
}

/** A read tool's arguments outside the caller's readable_paths. */
export const OUTSIDE: Partial<Record<ToolName, Record<string, unknown>>> = {
	"repo.read_file": { path: "other/c.ts" },
	"repo.search": { query: "secret", path: "other" },
	"repo.symbols": { path: "other/c.ts" },
	"repo.dependency_context": { path: "other/c.ts" },
	"security.review": { resource_id: "file:other/c.ts" },
};
