// The registry is the single source of truth: every seed tool is declared once, with schemas and
// hints, the dispatcher's switch mirrors it, and everything generated from it is current.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { route } from "../../src/dispatch.ts";
import { toolsMarkdown } from "../../src/init/mcp-assets.ts";
import { permissionsMarkdown } from "../../src/init/permissions-doc.ts";
import {
	AGENT_TOOLS,
	argNames,
	buildJsonSchemas,
	jsonSchemas,
	SCHEMAS_FILE,
	schemasJson,
	TOOLS,
	type ToolName,
} from "../../src/registry/index.ts";
import { ROLES } from "../../src/registry/types.ts";
import { REPO } from "../_helpers/helpers.ts";

const SEED_TOOLS = [
	"table.get_state",
	"table.watch",
	"agent.turn_request",
	"agent.turn_start",
	"agent.turn_complete",
	"task.create",
	"task.get",
	"task.list",
	"task.update_status",
	"repo.read_file",
	"repo.search",
	"repo.symbols",
	"repo.dependency_context",
	"resource.claim",
	"resource.claim_status",
	"resource.get",
	"resource.release",
	"resource.search",
	"proposal.create",
	"proposal.attach_patch",
	"proposal.get",
	"proposal.list",
	"proposal.request_review",
	"vote.cast",
	"vote.list",
	"decision.record",
	"patch.validate",
	"patch.apply",
	"patch.reject",
	"human.request_approval",
	"human.approval_status",
	"security.review",
	"test.suggest",
	"test.run",
	"test.get_result",
	"test.evidence.submit",
	"memory.query",
	"memory.record",
	"memory.summarize",
	"memory.mark_stale",
];
const ADDITIONS = ["resource.renew", "patch.rollback", "proposal.withdraw"];
/** Issue 31: what an agent changed in its workspace, that change proposed, and catching up. */
const WORKSPACE = ["workspace.diff", "workspace.propose", "workspace.sync"];
/** SPEC §9: peer questions, messages, channels, promotion and the briefing. */
const PEERS = [
	"peer.list",
	"peer.ask",
	"peer.request",
	"peer.answer",
	"peer.wait",
	"peer.cancel",
	"peer.reply_late",
	"message.post",
	"message.inbox",
	"message.mark_read",
	"channel.list",
	"channel.messages",
	"message.promote",
	"promotion.list",
	"agent.brief",
];
/** What the CLI changes that no agent tool covers. */
const OPERATOR = [
	"session.register",
	"session.heartbeat",
	"session.end",
	"agent.enable",
	"agent.disable",
	"session.mint",
	"session.revoke",
	"session.start",
	"session.stop",
	"session.close",
	"resource.revoke",
	"resource.expire",
	"human.decide",
	"run.open",
	"run.stop",
];
/** What the dashboard reads that no agent tool covers: read-only operator entries. */
const OPERATOR_READS = [
	"turn.queue",
	"proposal.revisions",
	"test.list",
	"peer.questions",
	"message.list",
	"session.list",
	"session.transcript",
];
/** The Chair's batch steps and the owner's own upkeep. */
const INTERNAL = [
	"chair.expire",
	"chair.assign_tasks",
	"chair.schedule_turn",
	"chair.request_reviews",
	"chair.report_error",
	"run.converge",
	"run.tick_failed",
	"config.sync_agents",
	"config.record_reload",
	"patch.recover",
	"test.sweep_interrupted",
	"session.record_denial",
	"session.supervision",
	"session.touch",
	"session.egress_refused",
	"chair.launch_sessions",
];

const names = TOOLS.map((t) => t.name as string);
const visible = (v: string) => TOOLS.filter((t) => t.visibility === v).map((t) => t.name as string);

test("declares the seed's 40 tools, the 3 additions, the 15 peer tools and the 3 workspace tools for agents, each once", () => {
	expect(SEED_TOOLS.length).toBe(40);
	expect([...visible("agent")].sort()).toEqual([...SEED_TOOLS, ...ADDITIONS, ...PEERS, ...WORKSPACE].sort());
	expect(AGENT_TOOLS.map((t) => t.name)).toEqual(visible("agent") as (typeof AGENT_TOOLS)[number]["name"][]);
	expect(new Set(names).size).toBe(names.length);
});

test("what the CLI, the Chair and the owner's upkeep change are operator and internal entries", () => {
	expect([...visible("operator")].sort()).toEqual([...OPERATOR, ...OPERATOR_READS].sort());
	expect([...visible("internal")].sort()).toEqual([...INTERNAL].sort());
	expect(names.length).toBe(
		SEED_TOOLS.length +
			ADDITIONS.length +
			PEERS.length +
			WORKSPACE.length +
			OPERATOR.length +
			OPERATOR_READS.length +
			INTERNAL.length,
	);
	// Each is there to carry a change through call(), but for the dashboard's reads, which change nothing.
	for (const t of TOOLS.filter((t) => t.visibility !== "agent"))
		expect({ name: t.name, mutates: t.mutates }).toEqual({
			name: t.name,
			mutates: !OPERATOR_READS.includes(t.name),
		});
});

// The switch itself is held by the compiler: its `never` default fails tsc when a registry name has
// no case, a case naming anything else is not comparable to ToolName, and biome refuses a duplicate.
test("the dispatcher routes every registry name, and nothing else", () => {
	for (const t of TOOLS) expect(["tx", "direct", "mutation", "prepared"]).toContain(route(t.name).kind);
	expect(() => route("task.nope" as ToolName)).toThrow("no handler for tool task.nope");
});

test("a tool that manages its own transactions is a mutation (given its key) exactly when it mutates", () => {
	const kinds = TOOLS.filter((t) => ["direct", "mutation"].includes(route(t.name).kind)).map((t) => [
		t.name,
		route(t.name).kind === "mutation",
		t.mutates,
	]);
	for (const [name, routedAsMutation, mutates] of kinds)
		expect({ name, routedAsMutation }).toEqual({ name, routedAsMutation: mutates });
	expect(kinds.filter(([, m]) => m).map(([n]) => n)).toEqual([
		"patch.apply",
		"patch.rollback",
		"patch.recover",
		"test.run",
		"test.sweep_interrupted",
		"session.start",
		"session.stop",
		"run.stop",
	]);
});

describe.each(TOOLS.map((t) => [t.name, t] as const))("%s", (_name, tool) => {
	test("is described for agents", () => {
		expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
		expect(tool.title.length).toBeGreaterThan(3);
		expect(tool.description.length).toBeGreaterThan(20);
	});

	test("has object JSON schemas that refuse unknown arguments", () => {
		const { input, output } = jsonSchemas(tool);
		expect(input.type).toBe("object");
		expect(input.additionalProperties).toBe(false);
		expect(output.type).toBe("object");
		expect(Object.keys((input.properties as object | undefined) ?? {}).sort()).toEqual(argNames(tool).sort());
	});

	test("takes idempotency_key exactly when it mutates and expected_revision exactly when it updates", () => {
		const args = argNames(tool);
		expect(args.includes("idempotency_key")).toBe(tool.mutates);
		expect(args.includes("expected_revision")).toBe(tool.updates);
		if (tool.updates) expect(tool.mutates).toBe(true);
	});

	test("carries MCP hints that match what it does", () => {
		expect(tool.annotations.readOnlyHint).toBe(!tool.mutates);
		expect(tool.annotations.openWorldHint).toBe(false);
		if (!tool.mutates) expect(tool.annotations.destructiveHint).toBe(false);
		expect(tool.annotations.title).toBe(tool.title);
	});
});

test("docs/tools.md is current (regenerate with `npm run docs`)", () => {
	expect(readFileSync(join(REPO, "docs/tools.md"), "utf8")).toBe(toolsMarkdown());
});

test("src/registry/schemas.json is current (regenerate with `npm run docs`)", () => {
	expect(readFileSync(join(REPO, "src/registry", SCHEMAS_FILE), "utf8")).toBe(schemasJson());
	// What processes read is what arktype builds.
	for (const t of TOOLS) expect(jsonSchemas(t)).toEqual(buildJsonSchemas(t));
});

test("docs/permissions.md is current (regenerate with `npm run docs`)", () => {
	expect(readFileSync(join(REPO, "docs/permissions.md"), "utf8")).toBe(permissionsMarkdown());
});

test("every access grant names a role, arguments the tool has, and nothing for operator or internal entries", () => {
	for (const t of TOOLS) {
		if (t.visibility !== "agent")
			expect({ tool: t.name, access: t.access }).toEqual({ tool: t.name, access: {} });
		const args = argNames(t);
		for (const actor of t.actors)
			expect({ tool: t.name, actor, has: args.includes(actor) }).toMatchObject({ has: true });
		if (t.ownId)
			expect({ tool: t.name, ownId: t.ownId, has: args.includes(t.ownId) }).toMatchObject({ has: true });
		if (t.access === "every") continue;
		for (const [role, grant] of Object.entries(t.access)) {
			expect(ROLES as readonly string[]).toContain(role);
			for (const field of [...(grant?.needs ?? []), ...Object.keys(grant?.only ?? {})])
				expect({ tool: t.name, role, field, has: args.includes(field) }).toMatchObject({ has: true });
		}
	}
});

test("package.json and the CLI agree on the version", async () => {
	const { VERSION } = await import("../../src/version.ts");
	expect(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version).toBe(VERSION);
});
