// message.promote and promotion.list, and what a proposed task may become: a message made into a
// proposed task or decision with its provenance, at most once per kind; who may promote; the Chair
// ticking past a proposed task without assigning, starting or adopting it; task.update_status
// letting only the operator open one, and nobody make one; events and an idempotent retry.
import { describe, expect, test } from "bun:test";
import { type CallContext, chairContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import type {
	DecisionRecord,
	MessageRecord,
	PromotionRecord,
	TaskRecord,
} from "../../src/vocabulary/records.ts";
import { chairTick } from "../_helpers/chair-helpers.ts";
import {
	addRun,
	agentContext,
	allEvents,
	expectDeclaredOutput,
	makeProject,
	type Project,
	UUID7,
} from "../_helpers/helpers.ts";

const I1 = "implementer-1";
const ARCHITECT = "architect-1";

type Promoted = { promotion: PromotionRecord; task: TaskRecord | null; decision: DecisionRecord | null };

async function as<T>(p: Project, ctx: CallContext, tool: string, args: Record<string, unknown>): Promise<T> {
	const out = await call(p.rt, tool, args, ctx);
	expectDeclaredOutput(tool, out);
	return out as T;
}

const post = (p: Project, ctx: CallContext, args: Record<string, unknown>) =>
	as<{ message: MessageRecord }>(p, ctx, "message.post", args).then((o) => o.message);
const promote = (p: Project, ctx: CallContext, args: Record<string, unknown>) =>
	as<Promoted>(p, ctx, "message.promote", args);
const taskOf = async (p: Project, id: string) =>
	(await as<{ task: TaskRecord }>(p, p.ctx, "task.get", { task_id: id })).task;

const IDEA = "\n  Cache the symbol index  \nIt is rebuilt on every call; keep it per revision.";

describe("message.promote", () => {
	test("as a task: proposed, unassigned, of no run, the message under a provenance line", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const m = await post(p, i1, { channel: "ideas", body_md: IDEA });
		const architect = await agentContext(p, ARCHITECT);
		const out = await promote(p, architect, { message_id: m.id, as: "task", risk: "low" });

		expect(out.decision).toBeNull();
		const task = out.task as TaskRecord;
		expect(task.id).toMatch(new RegExp(`^T-${UUID7}$`));
		expect(task).toMatchObject({
			title: "Cache the symbol index",
			status: "proposed",
			run_id: null,
			assigned_agent_id: null,
			risk: "low",
			priority: 100,
			readable_paths: [],
		});
		expect(task.body_md).toStartWith(
			`> Promoted by ${ARCHITECT} from message ${m.id}, posted by ${I1} in channel ideas`,
		);
		expect(task.body_md).toEndWith(IDEA);
		expect(out.promotion).toMatchObject({
			message_id: m.id,
			kind: "task",
			task_id: task.id,
			decision_id: null,
			promoted_by: ARCHITECT,
		});
		expect(out.promotion.id).toMatch(new RegExp(`^PR-${UUID7}$`));

		const events = (await allEvents(p)).filter((e) => ["task.created", "message.promoted"].includes(e.type));
		expect(events.map((e) => [e.type, e.actor_id, e.task_id])).toEqual([
			["task.created", ARCHITECT, task.id],
			["message.promoted", ARCHITECT, task.id],
		]);
		expect(events[0]?.payload).toMatchObject({
			status: "proposed",
			assigned_agent_id: null,
			message_id: m.id,
		});
		expect(events[1]?.payload).toEqual({
			promotion_id: out.promotion.id,
			message_id: m.id,
			kind: "task",
			task_id: task.id,
			decision_id: null,
			promoted_by: ARCHITECT,
		});
	});

	test("as a decision: proposed, the title as the decision, the message as its rationale", async () => {
		const p = await makeProject();
		const m = await post(p, p.ctx, { to_agent_id: I1, body_md: "Use SQLite only.\nNo second store." });
		const out = await promote(p, p.ctx, { message_id: m.id, as: "decision" });
		expect(out.task).toBeNull();
		expect(out.decision).toMatchObject({
			decision: "Use SQLite only.",
			rationale_md: m.body_md,
			decided_by: "operator",
			status: "proposed",
			proposal_id: null,
			task_id: null,
			run_id: null,
		});
		expect(out.promotion).toMatchObject({ kind: "decision", decision_id: out.decision?.id, task_id: null });

		const titled = await post(p, p.ctx, { channel: "arch", body_md: "long discussion" });
		const named = await promote(p, p.ctx, { message_id: titled.id, as: "decision", title: "Keep one store" });
		expect(named.decision?.decision).toBe("Keep one store");

		const types = (await allEvents(p)).map((e) => e.type);
		expect(types.filter((t) => t === "decision.proposed")).toHaveLength(2);
		expect(types).not.toContain("decision.recorded");
		expect(types.filter((t) => t === "message.promoted")).toHaveLength(2);
		expect(types).not.toContain("task.created");
	});

	test("a default title is the first non-blank line, at most 200 characters", async () => {
		const p = await makeProject();
		const m = await post(p, p.ctx, { channel: "ideas", body_md: `${"é".repeat(250)}\nmore` });
		const { task } = await promote(p, p.ctx, { message_id: m.id, as: "task" });
		expect(task?.title).toBe("é".repeat(200));
	});

	test("once per kind: a second promotion of the same kind names the first; the other kind is fine", async () => {
		const p = await makeProject();
		const m = await post(p, p.ctx, { channel: "ideas", body_md: "Do the thing" });
		const first = await promote(p, p.ctx, { message_id: m.id, as: "task" });
		const e = await p.fail("message.promote", { message_id: m.id, as: "task", title: "again" });
		expect(e.code).toBe("failed_precondition");
		expect(e.message).toContain(first.promotion.id);
		expect(e.details).toMatchObject({ promotion_id: first.promotion.id, task_id: first.task?.id });
		await promote(p, p.ctx, { message_id: m.id, as: "decision" });
		const list = await as<{ promotions: PromotionRecord[] }>(p, p.ctx, "promotion.list", {
			message_id: m.id,
		});
		expect(list.promotions.map((x) => x.kind)).toEqual(["task", "decision"]);
	});

	test("a retry with the same key returns the first promotion and makes nothing twice", async () => {
		const p = await makeProject();
		const m = await post(p, p.ctx, { channel: "ideas", body_md: "Do the thing" });
		const args = { message_id: m.id, as: "task", idempotency_key: "promote-1" };
		const first = await promote(p, p.ctx, args);
		expect(await promote(p, p.ctx, args)).toEqual(first);
		const state = await p.call("table.get_state");
		expect((state.tasks as TaskRecord[]).map((t) => t.id)).toEqual([first.task?.id as string]);
	});

	test("errors: an unknown message, risk for a decision, a role without the tool, another's direct message", async () => {
		const p = await makeProject();
		expect((await p.fail("message.promote", { message_id: "MSG-none", as: "task" })).code).toBe("not_found");
		const m = await post(p, p.ctx, { to_agent_id: I1, body_md: "private idea" });
		const risk = await p.fail("message.promote", { message_id: m.id, as: "decision", risk: "high" });
		expect(risk.code).toBe("invalid_argument");
		expect(risk.details).toMatchObject({ field: "risk" });
		const i1 = await agentContext(p, I1);
		expect((await p.fail("message.promote", { message_id: m.id, as: "task" }, i1)).code).toBe(
			"permission_denied",
		);
		// The Architect may promote what it can read: not a direct message between others.
		const architect = await agentContext(p, ARCHITECT);
		const denied = await p.fail("message.promote", { message_id: m.id, as: "task" }, architect);
		expect(denied.code).toBe("permission_denied");
		const toArchitect = await post(p, p.ctx, { to_agent_id: ARCHITECT, body_md: "for you" });
		await promote(p, architect, { message_id: toArchitect.id, as: "task" });
		expect((await p.call("promotion.list")).promotions).toHaveLength(1);
	});
});

describe("promotion.list", () => {
	test("every promotion oldest first, paged, or one message's", async () => {
		const p = await makeProject();
		const made: string[] = [];
		const messages: string[] = [];
		for (let i = 0; i < 3; i++) {
			const m = await post(p, p.ctx, { channel: "ideas", body_md: `idea ${i}` });
			messages.push(m.id);
			made.push((await promote(p, p.ctx, { message_id: m.id, as: "task" })).promotion.id);
		}
		type Page = { promotions: PromotionRecord[]; next_cursor: string | null };
		const one = await as<Page>(p, p.ctx, "promotion.list", { limit: 2 });
		const two = await as<Page>(p, p.ctx, "promotion.list", { limit: 2, cursor: one.next_cursor });
		expect([...one.promotions, ...two.promotions].map((x) => x.id)).toEqual(made);
		expect(two.next_cursor).toBeNull();
		const only = await as<Page>(p, p.ctx, "promotion.list", { message_id: messages[1] });
		expect(only.promotions.map((x) => x.id)).toEqual([made[1] as string]);
	});
});

describe("a proposed task", () => {
	async function proposed(p: Project): Promise<TaskRecord> {
		const m = await post(p, p.ctx, { channel: "ideas", body_md: "Refactor the parser" });
		return (await promote(p, p.ctx, { message_id: m.id, as: "task" })).task as TaskRecord;
	}

	test("the Chair's ticks never assign, start or adopt it, while an open task beside it is assigned", async () => {
		const p = await makeProject();
		await addRun(p, "R1");
		const task = await proposed(p);
		await p.call("task.create", { task_id: "T-open", title: "open work", body_md: "b" });
		const first = await chairTick(p, "R1");
		const second = await chairTick(p, "R1");
		expect(first.assigned.map((a) => a.task_id)).toEqual(["T-open"]);
		expect(second.assigned).toEqual([]);
		expect(await taskOf(p, task.id)).toEqual(task);
		const touched = (await allEvents(p)).filter(
			(e) => e.task_id === task.id && e.type !== "task.created" && e.type !== "message.promoted",
		);
		expect(touched).toEqual([]);
	});

	test("a run with nothing but a proposed task still awaits its first work", async () => {
		const p = await makeProject();
		await addRun(p, "R1");
		await proposed(p);
		expect((await chairTick(p, "R1")).convergence).toBe("awaiting_initial_work");
	});

	test("only the operator opens it (to open or cancelled), and only then may it be assigned", async () => {
		const p = await makeProject();
		await addRun(p, "R1");
		const task = await proposed(p);
		const chair = chairContext("chair-1");
		const byChair = await p.fail("task.update_status", { task_id: task.id, status: "open" }, chair);
		expect(byChair.code).toBe("permission_denied");
		expect(byChair.message).toContain("only the operator opens it");
		const assign = await p.fail("task.update_status", { task_id: task.id, assigned_agent_id: I1 }, chair);
		expect(assign.code).toBe("failed_precondition");
		const adopt = await p.fail("task.update_status", { task_id: task.id, run_id: "R1" });
		expect(adopt.code).toBe("failed_precondition");
		const start = await p.fail("task.update_status", { task_id: task.id, status: "in_progress" });
		expect(start.code).toBe("failed_precondition");
		expect(start.message).toContain("open it (or cancel it)");
		expect(await taskOf(p, task.id)).toEqual(task);

		const opened = await as<{ task: TaskRecord }>(p, p.ctx, "task.update_status", {
			task_id: task.id,
			status: "open",
		});
		expect(opened.task).toMatchObject({ status: "open", assigned_agent_id: null, revision: 2 });
		// Open now, the Chair assigns it like any other.
		expect((await chairTick(p, "R1")).assigned.map((a) => a.task_id)).toEqual([task.id]);

		const other = await proposed(p);
		const cancelled = await as<{ task: TaskRecord }>(p, p.ctx, "task.update_status", {
			task_id: other.id,
			status: "cancelled",
		});
		expect(cancelled.task.status).toBe("cancelled");
	});

	test("nobody makes a task proposed with task.update_status; task.create still makes open tasks", async () => {
		const p = await makeProject();
		const { task } = (await p.call("task.create", { title: "t", body_md: "b" })) as { task: TaskRecord };
		expect(task.status).toBe("open");
		const e = await p.fail("task.update_status", { task_id: task.id, status: "proposed" });
		expect(e.code).toBe("failed_precondition");
		expect(e.message).toContain("only message.promote makes a proposed task");
		// An Implementer may not even name the status.
		const bound = await p.call("task.create", { title: "mine", body_md: "b", assigned_agent_id: I1 });
		const taskId = (bound.task as TaskRecord).id;
		const i1 = await agentContext(p, I1, { task_id: taskId });
		const denied = await p.fail("task.update_status", { task_id: taskId, status: "proposed" }, i1);
		expect(denied.code).toBe("permission_denied");
	});
});
