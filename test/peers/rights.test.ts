// Who may do what to a request, each tool called by agents through minted sessions: its requester,
// its assignee, a third agent, and the operator (as itself: every right; naming an agent to act as:
// that agent's rights). Every refusal is permission_denied and writes nothing but its call.denied event.
import { describe, expect, test } from "bun:test";
import type { CallContext } from "../../src/context.ts";
import type { PeerRequestRecord } from "../../src/vocabulary/records.ts";
import { type Peers, peersProject, REQUESTER, readRequest, THIRD } from "../_helpers/peer-helpers.ts";

type Who = "requester" | "assignee" | "third" | "operator" | "operator as third";

/** The caller's context and the agent_id it gives (the operator may name one). */
function caller(f: Peers, who: Who): { ctx: CallContext; agent?: Record<string, string> } {
	if (who === "operator") return { ctx: f.p.ctx };
	if (who === "operator as third") return { ctx: f.p.ctx, agent: { agent_id: THIRD } };
	return { ctx: f[who] };
}

/** Each tool, from a fresh open request (or cancelled, for a late reply), and who may call it. */
const RULES: { tool: string; args: Record<string, unknown>; cancelled?: true; allowed: Who[] }[] = [
	{
		tool: "peer.request",
		args: {},
		allowed: ["requester", "assignee", "operator"],
	},
	{
		tool: "peer.wait",
		args: { wait_ms: 0 },
		allowed: ["requester", "assignee", "operator"],
	},
	{ tool: "peer.answer", args: { answer_md: "a" }, allowed: ["assignee", "operator"] },
	{ tool: "peer.cancel", args: { reason_md: "r" }, allowed: ["requester", "operator"] },
	{
		tool: "peer.reply_late",
		args: { answer_md: "late" },
		cancelled: true,
		allowed: ["assignee", "operator"],
	},
];
const EVERYONE: Who[] = ["requester", "assignee", "third", "operator"];

describe("the rights on a request", () => {
	for (const rule of RULES) {
		test(`${rule.tool}: ${rule.allowed.join(", ")}; nobody else`, async () => {
			const f = await peersProject();
			for (const who of EVERYONE) {
				const r = await f.ask();
				if (rule.cancelled) await f.as(f.requester, "peer.cancel", { request_id: r.id, reason_md: "moot" });
				const before = await readRequest(f.p, r.id);
				const { ctx, agent } = caller(f, who);
				const args = { request_id: r.id, ...rule.args, ...agent };
				if (rule.allowed.includes(who)) {
					await f.as(ctx, rule.tool, args);
					continue;
				}
				const err = await f.failAs(ctx, rule.tool, args);
				expect({ who, code: err.code, details: err.details }).toEqual({
					who,
					code: "permission_denied",
					details: { request_id: r.id },
				});
				expect(await readRequest(f.p, r.id)).toEqual(before);
			}
		});
	}

	test("the operator's own answer and cancellation are recorded as the operator's, or as the agent it names", async () => {
		const f = await peersProject();
		const r = await f.ask();
		const { answer } = (await f.p.call("peer.answer", { request_id: r.id, answer_md: "a" })) as {
			answer: { author_id: string };
		};
		expect(answer.author_id).toBe("operator");
		const { request } = (await f.p.call("peer.cancel", {
			request_id: r.id,
			reason_md: "r",
			agent_id: REQUESTER,
		})) as {
			request: PeerRequestRecord;
		};
		expect(request.cancelled_by).toBe(REQUESTER);
	});

	test("a request addressed to the operator: the operator answers it, no agent but the requester reads it", async () => {
		const f = await peersProject();
		const r = await f.ask({ assignee_agent_id: "operator" });
		expect((await f.failAs(f.assignee, "peer.request", { request_id: r.id })).code).toBe("permission_denied");
		expect((await f.failAs(f.assignee, "peer.answer", { request_id: r.id, answer_md: "a" })).code).toBe(
			"permission_denied",
		);
		await f.p.call("peer.answer", { request_id: r.id, answer_md: "yes" });
		expect((await f.as(f.requester, "peer.request", { request_id: r.id })).answers).toMatchObject([
			{ author_id: "operator", answer_md: "yes" },
		]);
	});

	test("a capability names only itself as agent_id, on every peer tool", async () => {
		const f = await peersProject();
		const r = await f.ask();
		for (const [tool, args] of [
			["peer.request", {}],
			["peer.wait", { wait_ms: 0 }],
			["peer.answer", { answer_md: "a" }],
			["peer.cancel", { reason_md: "r" }],
			["peer.reply_late", { answer_md: "a" }],
		] as const) {
			// The third agent claiming to be the assignee (or requester) is refused before anything is read.
			const err = await f.failAs(f.third, tool, { request_id: r.id, agent_id: "implementer-2", ...args });
			expect({ tool, code: err.code, field: err.details?.field }).toEqual({
				tool,
				code: "permission_denied",
				field: "agent_id",
			});
		}
		expect((await readRequest(f.p, r.id)).request).toEqual(r);
	});
});
