// A project whose every agent is the scripted team member (test/fixtures-scripts/team-agent.ts),
// with a live owner, for the autopilot's tests; and what they read back of it.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Document } from "yaml";
import { REPO, runCli, tempDir, until } from "./helpers.ts";
import { type Owned, operatorCall, ownedProject } from "./launch-helpers.ts";

export const TEAM_AGENT = join(REPO, "test/fixtures-scripts/team-agent.ts");
const ROLES = ["chair", "architect", "tester", "security", "memory_oracle"];

export function teamProject(
	files: Record<string, string>,
	configure: (doc: Document) => void = () => {},
): Promise<Owned> {
	return ownedProject(tempDir("rt-team-"), files, (doc) => {
		const team = `${process.execPath} ${TEAM_AGENT}`;
		doc.setIn(["adapters", "team"], { command: team, headless: team });
		for (const role of ROLES) doc.setIn(["agents", role, "adapter"], "team");
		for (const pool of ["implementers", "reviewers"]) doc.setIn(["agents", pool, "adapter"], "team");
		doc.setIn(["sandbox", "expose"], [dirname(TEAM_AGENT), dirname(process.execPath)]);
		configure(doc);
	});
}

export interface Event {
	id: number;
	type: string;
	task_id: string | null;
	payload: Record<string, unknown>;
}

export const events = async (root: string): Promise<Event[]> =>
	(
		JSON.parse((await runCli(["watch", "--root", root, "--limit", "1000", "--json"])).stdout) as {
			events: Event[];
		}
	).events;

export interface Task {
	id: string;
	status: string;
	assigned_agent_id: string | null;
}

export const tasksWith = async (root: string, status: string): Promise<Task[]> =>
	(
		JSON.parse((await runCli(["tasks", "--root", root, "--status", status, "--json"])).stdout) as {
			tasks: Task[];
		}
	).tasks;

/** An open task of run `run` on `file`, assigned to `agent`, made by the operator. */
export const taskOn = (root: string, run: string, id: string, file: string, agent: string) =>
	operatorCall(root, "task.create", {
		task_id: id,
		title: `Note in ${file}`,
		body_md: `Append a line to ${file}.`,
		run_id: run,
		readable_paths: [file],
		assigned_agent_id: agent,
	});

/** The run `id` made active with the autopilot on, as `roundtable run --autopilot` opens it. */
export const autopilotRun = (root: string, id: string) =>
	operatorCall(root, "run.open", { run_id: id, autopilot: true });

export interface RunState {
	id: string;
	status: string;
	scope: string[];
	autopilot: string;
	autopilot_note: string | null;
	sessions_started: number;
	sessions_live: number;
	sessions_failed: number;
	sessions_given_up: number;
}

/** Run `id` as table.get_state shows it (status, autopilot, its note). */
export const runOf = async (root: string, id: string): Promise<RunState | undefined> =>
	((await operatorCall(root, "table.get_state", {})) as { runs: RunState[] }).runs.find((r) => r.id === id);

/** Edits the project's policy (`from` becomes `to`) and waits for the owner to reload it. */
export async function editPolicy(root: string, from: string, to: string): Promise<void> {
	const policy = join(root, "POLICIES.ROUNDTABLE.md");
	writeFileSync(policy, readFileSync(policy, "utf8").replace(from, to));
	await Bun.sleep(1500); // the owner reloads the policy
}

/** Lets test runs use the project's `check.sh` (what team-agent's Tester runs). */
export function allowCheck(doc: Document): void {
	doc.setIn(["tests", "allowed_commands"], ["sh check.sh"]);
	doc.setIn(["tests", "support_paths"], ["check.sh"]);
}

/** The events of `type` once there is one, waiting up to `ms` for it. */
export const eventsOnce = (root: string, type: string, ms: number, what: string) =>
	until(
		async () => {
			const e = (await events(root)).filter((x) => x.type === type);
			return e.length > 0 && e;
		},
		ms,
		what,
	);
