// The first message of a headless session's agent: who it is and what it is bound to, how it works
// (its workspace, claims, workspace.propose), its briefing as agent.brief gives it now, the project's
// rules for agents (AGENTS.ROUNDTABLE.md), then the operator's own words (`--prompt`). Nobody is at
// a terminal to tell it any of this, and it is one message, so a CLI's argument can carry it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { operatorContext } from "../context.ts";
import { call } from "../dispatch.ts";
import type { Result } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import { principalOf } from "../sessions/capability.ts";
import type { SessionRow } from "../store/sessions.ts";

/** How much of AGENTS.ROUNDTABLE.md goes in; the operator's words are bounded by their tool (32 KiB). */
const RULES_BYTES = 16 * 1024;
export const MAX_OPERATOR_PROMPT = 32 * 1024;

type Briefing = Result<"agent.brief">;

/** The briefing in a few lines: the task, claims, proposals, what waits, and the required next action. */
export function briefingLines(b: Briefing): string[] {
	const lines: string[] = [];
	if (b.task) lines.push(`- Task ${b.task.id} (${b.task.status}): ${b.task.title}`);
	if (b.claims.length > 0)
		lines.push(
			`- Your claims: ${b.claims.map((c) => `${c.resource_id} (${c.claim_type}, ${c.status})`).join(", ")}`,
		);
	for (const p of b.pending_proposals)
		lines.push(
			`- Your proposal ${p.proposal.id} (${p.proposal.status})${p.failing_gates.length > 0 ? `, gates failing: ${p.failing_gates.join(", ")}` : ""}`,
		);
	if (b.questions_to_me.length > 0) lines.push(`- Questions to you: ${b.questions_to_me.length}`);
	if (b.unread_count > 0) lines.push(`- Unread messages: ${b.unread_count}`);
	lines.push(`- Required next action: ${b.required_next_action}`);
	return lines;
}

/** The project's rules for agents, at most RULES_BYTES (cut at a line, and said so); none without the file. */
function rules(root: string): string | undefined {
	let text: string;
	try {
		text = readFileSync(join(root, "AGENTS.ROUNDTABLE.md"), "utf8").trim();
	} catch {
		return undefined;
	}
	if (Buffer.byteLength(text) <= RULES_BYTES) return text;
	const cut = Buffer.from(text).subarray(0, RULES_BYTES).toString("utf8");
	return `${cut.slice(0, Math.max(0, cut.lastIndexOf("\n")))}\n[… the rest of AGENTS.ROUNDTABLE.md is in the repository]`;
}

/** A session bound to a run: the run, its goal, and the scope its tasks' readable paths keep to. */
async function runLine(rt: Runtime, runId: string): Promise<string> {
	const run = await rt.store.withTransaction("read", (tx) => tx.runs.get(runId));
	const g = run?.goal.trim() ?? "";
	const goal = g ? ` Its goal: ${g}${/[.!?]$/.test(g) ? "" : "."}` : "";
	const scope = run?.scope.length
		? ` Its scope (every task's readable_paths stay inside it): ${run.scope.join(", ")}.`
		: "";
	return `You work on run ${runId}.${goal}${scope}`;
}

/** The first message of a headless session (a fresh start of its agent). */
export async function headlessPrompt(
	rt: Runtime,
	session: SessionRow,
	sandboxed: boolean,
	operator: string | undefined,
): Promise<string> {
	const who = `You are ${session.agent_id}${session.role ? ` (${session.role})` : ""}, working through Roundtable's MCP tools (the server named roundtable).`;
	const binding = session.task_id
		? `Your task is ${session.task_id}.`
		: session.proposal_id
			? `You are here for proposal ${session.proposal_id}.`
			: session.run_id
				? await runLine(rt, session.run_id)
				: "";
	const how = sandboxed
		? session.task_id
			? "The files your task may read are in your working folder, a git repository of its own: claim a file before you change it (resource.claim), edit with your own tools, then propose what you changed with workspace.propose."
			: "Read the project through the repository tools (repo.read_file, repo.search)."
		: "Read the project through the repository tools; claim what you will change, then propose it with proposal.create.";
	// The briefing as the agent itself would get it: its own principal, its binding.
	const brief = await call(
		rt,
		"agent.brief",
		{},
		{ ...operatorContext("internal"), principal: principalOf(session) },
	)
		.then((b) => [
			"Your briefing now (agent.brief; call it again whenever you are unsure what is next):",
			...briefingLines(b),
		])
		.catch(() => [
			"Call agent.brief first: it gives your task, claims, proposals and the required next action.",
		]);
	const project = rules(rt.root);
	return [
		[who, binding, how].filter(Boolean).join(" "),
		brief.join("\n"),
		...(project ? [`The project's rules for agents (AGENTS.ROUNDTABLE.md):\n\n${project}`] : []),
		...(operator ? [`From the operator:\n\n${operator}`] : []),
	].join("\n\n");
}
