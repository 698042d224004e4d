// `roundtable agents [list] | enable ID | disable ID` through the real CLI in a subprocess, on
// projects initialized by `roundtable init`; events are read back with `roundtable mcp call`.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliHere as runCli } from "../_helpers/cli.ts";
import { tempDir } from "../_helpers/helpers.ts";

interface Agent {
	id: string;
	role: string;
	adapter: string;
	model: string;
	enabled: boolean;
	disabled_by: "operator" | "config" | null;
	revision: number;
}
interface Event {
	id: number;
	type: string;
	actor_id: string;
	payload: Record<string, unknown>;
}

// Each test runs several CLI subprocesses; under a full parallel run they need room.
setDefaultTimeout(30_000);

const CONFIG = join(".roundtable", "config.yaml");

async function project(): Promise<(...args: string[]) => ReturnType<typeof runCli>> {
	const root = tempDir("rt-agents-cli-");
	expect((await runCli(["init", "--root", root])).code).toBe(0);
	return (...args: string[]) => runCli([...args, "--root", root]);
}

async function agents(cli: Awaited<ReturnType<typeof project>>): Promise<Agent[]> {
	const r = await cli("agents", "list", "--json");
	expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
	return (JSON.parse(r.stdout) as { agents: Agent[] }).agents;
}

async function agent(cli: Awaited<ReturnType<typeof project>>, id: string): Promise<Agent> {
	const found = (await agents(cli)).find((a) => a.id === id);
	if (!found) throw new Error(`no agent ${id}`);
	return found;
}

async function events(cli: Awaited<ReturnType<typeof project>>, after = 0): Promise<Event[]> {
	const r = await cli(
		"mcp",
		"call",
		"--tool",
		"table.watch",
		"--args",
		JSON.stringify({ after_event_id: after, limit: 200 }),
	);
	expect(r.code).toBe(0);
	return (JSON.parse(r.stdout) as { events: Event[] }).events;
}

const lastEventId = async (cli: Awaited<ReturnType<typeof project>>) =>
	(await events(cli)).reduce((n, e) => Math.max(n, e.id), 0);

describe("agents list", () => {
	test("one `<id> <role> <enabled|disabled> <adapter> <model>` line per agent, bare `agents` too", async () => {
		const cli = await project();
		const listed = await cli("agents", "list");
		expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: "" });
		const all = await agents(cli);
		expect(all.map((a) => a.id).sort()).toEqual([
			"architect-1",
			"chair-1",
			"implementer-1",
			"implementer-2",
			"memory-oracle-1",
			"reviewer-1",
			"security-1",
			"tester-1",
		]);
		expect(listed.stdout).toBe(
			`${all.map((a) => `${a.id} ${a.role} enabled ${a.adapter} ${a.model}`).join("\n")}\n`,
		);
		expect(listed.stdout).toContain("tester-1 Tester enabled codex default\n");
		expect((await cli("agents")).stdout).toBe(listed.stdout);
		expect(all.every((a) => a.enabled && a.disabled_by === null)).toBe(true);
	});
});

describe("agents enable|disable", () => {
	test("disable then enable: state, and the agent.disabled / agent.enabled events config sync writes", async () => {
		const cli = await project();
		const start = await lastEventId(cli);
		const before = await agent(cli, "implementer-2");

		const off = await cli("agents", "disable", "implementer-2");
		expect(off).toEqual({ code: 0, stdout: "implementer-2 disabled\n", stderr: "" });
		const disabled = await agent(cli, "implementer-2");
		expect(disabled).toMatchObject({
			enabled: false,
			disabled_by: "operator",
			revision: before.revision + 1,
		});
		expect((await cli("agents")).stdout).toContain("implementer-2 Implementer disabled codex default\n");
		const tool = await cli(
			"mcp",
			"call",
			"--tool",
			"task.create",
			"--args",
			JSON.stringify({ title: "x", body_md: "y", assigned_agent_id: "implementer-2" }),
		);
		expect(tool.code).toBe(1);
		expect(tool.stderr).toContain("agent implementer-2 is disabled");

		const on = await cli("agents", "enable", "--agent", "implementer-2");
		expect(on).toEqual({ code: 0, stdout: "implementer-2 enabled\n", stderr: "" });
		expect(await agent(cli, "implementer-2")).toMatchObject({ enabled: true, disabled_by: null });

		const seen = (await events(cli, start)).filter((e) => e.type !== "task.created");
		expect(seen.map((e) => [e.type, e.actor_id, e.payload])).toEqual([
			["agent.disabled", "operator", { agent_id: "implementer-2", reason: "disabled by the operator" }],
			["agent.enabled", "operator", { agent_id: "implementer-2", reason: "enabled by the operator" }],
		]);
	});

	test("already in that state: says so, exit 0, no event, no new revision", async () => {
		const cli = await project();
		const start = await lastEventId(cli);
		const before = await agent(cli, "reviewer-1");
		expect(await cli("agents", "enable", "reviewer-1")).toEqual({
			code: 0,
			stdout: "reviewer-1 enabled (already enabled; nothing changed)\n",
			stderr: "",
		});
		expect((await cli("agents", "disable", "reviewer-1")).code).toBe(0);
		const mid = await lastEventId(cli);
		const again = await cli("agents", "disable", "reviewer-1", "--json");
		expect(again.code).toBe(0);
		expect(JSON.parse(again.stdout)).toMatchObject({
			changed: false,
			agent: { id: "reviewer-1", enabled: false },
		});
		expect(await events(cli, mid)).toEqual([]);
		expect((await events(cli, start)).length).toBe(1);
		expect((await agent(cli, "reviewer-1")).revision).toBe(before.revision + 1);
	});

	test("an unknown id exits 1 with a did-you-mean and changes nothing", async () => {
		const cli = await project();
		const start = await lastEventId(cli);
		const r = await cli("agents", "disable", "implementr-1");
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		expect(r.stderr).toBe(
			"roundtable agents disable: no agent 'implementr-1' (did you mean 'implementer-1'?)\n",
		);
		const far = await cli("agents", "enable", "nobody-at-all");
		expect(far.code).toBe(1);
		expect(far.stderr).toBe("roundtable agents enable: no agent 'nobody-at-all'\n");
		expect(await events(cli, start)).toEqual([]);
	});

	test("a missing or extra argument is a usage error (exit 2)", async () => {
		const cli = await project();
		const none = await cli("agents", "enable");
		expect(none.code).toBe(2);
		expect(none.stderr).toContain("the agent id is required");
		const two = await cli("agents", "disable", "chair-1", "tester-1");
		expect(two.code).toBe(2);
		expect(two.stderr).toContain("unexpected argument 'tester-1'");
		const both = await cli("agents", "disable", "chair-1", "--agent", "tester-1");
		expect(both.code).toBe(2);
		expect(both.stderr).toContain("--agent given twice");
		expect((await agents(cli)).every((a) => a.enabled)).toBe(true);
	});

	test("an operator's disable survives config sync (init again)", async () => {
		const cli = await project();
		expect((await cli("agents", "disable", "tester-1")).code).toBe(0);
		expect((await cli("init")).code).toBe(0);
		expect(await agent(cli, "tester-1")).toMatchObject({ enabled: false, disabled_by: "operator" });
	});

	test("an agent the config removed cannot be enabled here; back in the config, it can", async () => {
		const root = tempDir("rt-agents-cli-");
		expect((await runCli(["init", "--root", root])).code).toBe(0);
		const cli = (...args: string[]) => runCli([...args, "--root", root]);
		const file = join(root, CONFIG);
		const template = readFileSync(file, "utf8");
		const lowered = template.replace("implementers: { count: 2,", "implementers: { count: 1,");
		expect(lowered).not.toBe(template);
		writeFileSync(file, lowered);
		expect((await cli("init")).code).toBe(0);
		expect(await agent(cli, "implementer-2")).toMatchObject({ enabled: false, disabled_by: "config" });
		const start = await lastEventId(cli);

		const refused = await cli("agents", "enable", "implementer-2");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toBe(
			"roundtable agents enable: agent implementer-2 is not in .roundtable/config.yaml any more, so it stays disabled; add it back to the config (agents.implementers.count) and it is enabled at the next sync (init, start)\n",
		);
		expect(await cli("agents", "disable", "implementer-2")).toEqual({
			code: 0,
			stdout: "implementer-2 disabled (already disabled; the config removed it)\n",
			stderr: "",
		});
		expect(await events(cli, start)).toEqual([]);
		expect(await agent(cli, "implementer-2")).toMatchObject({ enabled: false, disabled_by: "config" });

		// Back in the config (before any sync): the operator may enable it.
		writeFileSync(file, template);
		expect(await cli("agents", "enable", "implementer-2")).toEqual({
			code: 0,
			stdout: "implementer-2 enabled\n",
			stderr: "",
		});
		expect(await agent(cli, "implementer-2")).toMatchObject({ enabled: true, disabled_by: null });
	});
});
