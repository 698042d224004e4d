// docs/permissions.md: who may call what with a capability, generated from the registry's `access`,
// `actors` and `reads` (the same declarations call() enforces). Regenerated with `npm run docs`.
import { AGENT_TOOLS, TOOLS, type Tool } from "../registry/index.ts";
import { type Grant, ROLES } from "../registry/types.ts";

function cell(grant: Grant | undefined): string {
	if (!grant) return "—";
	const parts = [grant.bound ? `✓ ${grant.bound}` : "✓"];
	for (const field of grant.needs ?? []) parts.push(`needs \`${field}\``);
	for (const [field, allowed] of Object.entries(grant.only ?? {}))
		parts.push(allowed.length === 0 ? `no \`${field}\`` : `\`${field}\`: ${allowed.join(", ")}`);
	return parts.join("; ");
}

function row(t: Tool): string {
	const { access } = t;
	const cells =
		access === "every"
			? ROLES.map(() => "✓")
			: ROLES.map((r) => cell(Object.hasOwn(access, r) ? access[r] : undefined));
	const notes = [
		t.actors.length > 0 ? `actor: ${t.actors.map((a) => `\`${a}\``).join(", ")}` : "",
		t.reads === "claimed" ? "reads: claimed ∩ readable" : t.reads === "readable" ? "reads: readable" : "",
	].filter(Boolean);
	return `| \`${t.name}\` | ${cells.join(" | ")} | ${notes.join("; ")} |`;
}

export function permissionsMarkdown(): string {
	const nobody = AGENT_TOOLS.filter((t) => t.access !== "every" && Object.keys(t.access).length === 0);
	const hidden = TOOLS.filter((t) => t.visibility !== "agent");
	return [
		"# Permissions",
		"",
		"Generated from the registry (`src/registry/`: each tool's `access`, `actors` and `reads`) by `npm run docs`;",
		"a test fails when this file is out of date. `call()` enforces exactly these declarations on every call.",
		"",
		"## Who is calling",
		"",
		"- **The operator**: the CLI, the legacy Unix socket, direct database access, and HTTP with the operator's",
		"  token (`.roundtable/operator.token`, or `ROUNDTABLE_MCP_TOKEN`). Nothing below limits the operator.",
		"- **An agent**: HTTP (or a launched session's socket) with a capability from `roundtable sessions mint`. It",
		"  acts in its agent's role, for its session, bound to what it was minted for: its assigned task, one",
		"  proposal, or a run. An unknown, expired or revoked capability is `unauthenticated` (HTTP 401); a",
		"  disabled agent, an ended session or a run no longer active is `permission_denied` on every call.",
		"",
		"## The rules, on every call",
		"",
		"- A role may call only the tools marked for it below (`✓`); its `tools/list` shows only those.",
		"- **Bound**: `✓ task`, `✓ proposal`, `✓ run` mean the capability must be bound to one. Whatever it is bound",
		"  to, a call stays inside it: naming another task, proposal, run, claim, test run or approval is",
		"  `permission_denied`. An implementer's task must still be assigned to it.",
		"- **Arguments**: `needs` an argument the role must give; `no x` an argument it may not give; `x: a, b` the",
		"  values it may give.",
		"- **Actors** (`agent_id`, `decided_by`, `reviewer_id`, `requested_by`, `applied_by`): with a capability they",
		"  must be the caller (`permission_denied` otherwise); left out where optional, they are filled in.",
		"- **Reads**: a repository read shows only paths inside the `readable_paths` of the task (the bound task,",
		"  or the bound proposal's task) that the agent holds an active claim on (`claimed ∩ readable`); a claim",
		"  may name only readable paths (`readable`). Empty `readable_paths` (the default) means no repository",
		"  reads. Credential and configuration locations (`.git`, `.roundtable`, `.env*`, keys, …) are never",
		"  readable. Only the operator sets `readable_paths` (`task.create`).",
		"- Every refusal is a `call.denied` event (tool, reason, agent, session; at most one per session, tool and",
		"  reason a minute, with the `count` folded in), which `roundtable watch` shows.",
		"",
		"## Tools by role",
		"",
		`| tool | ${ROLES.join(" | ")} | notes |`,
		`|---|${ROLES.map(() => "---").join("|")}|---|`,
		...AGENT_TOOLS.map(row),
		"",
		"## Nobody with a capability",
		"",
		`Deciding a human approval (\`human.request_approval\` with \`status\`), ${nobody.map((t) => `\`${t.name}\``).join(", ")}, and every`,
		`operator and internal entry: ${hidden.map((t) => `\`${t.name}\``).join(", ")}.`,
		"",
	].join("\n");
}
