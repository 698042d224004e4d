// A scripted member of an autopilot team, started by the owner as an agent CLI would be:
// `bun team-agent.ts PROMPT`. It speaks MCP over its session's socket and does the part of the work
// its binding (which its first message names) calls for:
//   bound to a run       (the Architect)   proposes a task of the run per file of TEAM_FILES
//   bound to a task      (an implementer)  claims its task's file, appends a line to it in its
//                                          workspace, and proposes that change (workspace.propose);
//                                          a file named broken* it fails on, slow* it takes 4 s,
//                                          hang* it works on until stopped
//   bound to a proposal  (any voter)       reads the proposal and approves it; a Tester first runs
//                                          `sh check.sh` on it (test.run), Security first records
//                                          its review (security.review)
// It prints each call's tool and outcome, and exits 1 when a call fails.
import { appendFileSync } from "node:fs";
import { sessionClient } from "./session-client.ts";

const prompt = process.argv.at(-1) ?? "";
const FILES = (process.env.TEAM_FILES ?? "a.txt,b.txt").split(",");

const { request, end } = await sessionClient("team-agent");

/** A tool's structured result; a failure ends the agent with status 1. */
async function use(tool: string, args: object): Promise<Record<string, unknown>> {
	const r = (await request("tools/call", { name: tool, arguments: args })) as {
		result?: { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> };
	};
	const text = r.result?.content[0]?.text ?? JSON.stringify(r);
	console.log(`${role} ${tool}: ${r.result?.isError ? `failed: ${text}` : "ok"}`);
	if (!r.result || r.result.isError) process.exit(1);
	return r.result.structuredContent ?? JSON.parse(text);
}

const bound = (what: string) => new RegExp(`${what} (\\S+?)\\.(\\s|$)`).exec(prompt)?.[1];
const [task, proposal, run] = [
	bound("Your task is"),
	bound("You are here for proposal"),
	bound("You work on run"),
];
const role = proposal ? "voter" : task ? "implementer" : "architect";
const brief = await use("agent.brief", {});

if (proposal) {
	await use("proposal.get", { proposal_id: proposal });
	// A tester runs the project's check on the proposal first.
	if (/^You are \S+ \(Tester\)/.test(prompt))
		await use("test.run", { proposal_id: proposal, command: "sh check.sh" });
	// Security records its review first.
	if (/^You are \S+ \(Security\)/.test(prompt))
		await use("security.review", {
			proposal_id: proposal,
			status: "approved",
			summary_md: "Nothing risky in it.",
		});
	await use("vote.cast", {
		proposal_id: proposal,
		vote: "approve",
		reason_md: "It does what the task says.",
	});
} else if (run && !task) {
	for (const [i, file] of FILES.entries())
		await use("task.create", {
			title: `Note in ${file}`,
			body_md: `Append a line to ${file}.`,
			run_id: run,
			readable_paths: [file],
			assigned_agent_id: `implementer-${i + 1}`,
		});
} else if (task) {
	const mine = brief.task as { id: string; readable_paths: string[] };
	const file = mine.readable_paths[0] as string;
	// The faults a test asks for by the file's name: one it cannot do, one that takes a while.
	if (file.startsWith("broken")) {
		console.log(`implementer: cannot change ${file}`);
		process.exit(1);
	}
	if (file.startsWith("slow")) await Bun.sleep(4000);
	if (file.startsWith("hang")) await new Promise(() => {}); // until it is stopped
	await use("resource.claim", {
		resource_type: "file",
		resource_id: `file:${file}`,
		claim_type: "write",
		task_id: mine.id,
	});
	appendFileSync(file, `noted by ${mine.id}\n`);
	await use("workspace.propose", {
		title: `Note in ${file}`,
		summary_md: `Appends a line to ${file}.`,
		risk: "low",
	});
}
end();
