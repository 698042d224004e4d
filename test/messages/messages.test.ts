// message.post, message.inbox, message.mark_read, channel.list and channel.messages through the real
// dispatcher and SQLite: targets and their errors, delivery apart from read, an agent's inbox its own
// (with a capability the access check refuses another's), the operator's attention items, paging,
// the 64 KiB limit, events for each mutation, and an idempotent retry.
import { describe, expect, test } from "bun:test";
import type { CallContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import type { MessageRecord } from "../../src/vocabulary/records.ts";
import {
	agentContext,
	allEvents,
	disableAgent,
	expectDeclaredOutput,
	makeProject,
	type Project,
	UUID7,
} from "../_helpers/helpers.ts";

const I1 = "implementer-1";
const I2 = "implementer-2";
const MESSAGE_ID = new RegExp(`^MSG-${UUID7}$`);

type Inbox = {
	agent_id: string;
	messages: MessageRecord[];
	requests: { id: string; assignee_id: string }[];
	approvals: { id: string; status: string }[];
	unread_count: number;
	next_cursor: string | null;
};

/** A tool call as `ctx` (the operator by default) whose result must match its declared output. */
async function as<T>(p: Project, ctx: CallContext, tool: string, args: Record<string, unknown>): Promise<T> {
	const out = await call(p.rt, tool, args, ctx);
	expectDeclaredOutput(tool, out);
	return out as T;
}

const post = (p: Project, ctx: CallContext, args: Record<string, unknown>) =>
	as<{ message: MessageRecord }>(p, ctx, "message.post", args).then((o) => o.message);
const inbox = (p: Project, ctx: CallContext, args: Record<string, unknown> = {}) =>
	as<Inbox>(p, ctx, "message.inbox", args);
const markRead = (p: Project, ctx: CallContext, args: Record<string, unknown>) =>
	as<{ messages: MessageRecord[]; marked: number }>(p, ctx, "message.mark_read", args);

async function eventsOf(p: Project, type: string) {
	return (await allEvents(p)).filter((e) => e.type === type);
}

describe("message.post", () => {
	test("to an agent: stored, delivered to its inbox at once, one message.posted event", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const m = await post(p, i1, { to_agent_id: I2, body_md: "Can you look at the parser?" });
		expect(m).toMatchObject({
			sender_id: I1,
			to_agent_id: I2,
			channel: null,
			thread_id: null,
			body_md: "Can you look at the parser?",
			read_at: null,
		});
		expect(m.id).toMatch(MESSAGE_ID);

		const box = await inbox(p, await agentContext(p, I2));
		expect(box.agent_id).toBe(I2);
		expect(box.messages.map((x) => x.id)).toEqual([m.id]);
		expect(box.unread_count).toBe(1);

		const [event] = await eventsOf(p, "message.posted");
		expect(event).toMatchObject({
			actor_id: I1,
			task_id: null,
			payload: { message_id: m.id, sender_id: I1, to_agent_id: I2, thread_id: null },
		});
		// The log is everyone's; a direct message's body is not.
		expect(JSON.stringify(event?.payload)).not.toContain("parser");
	});

	test("to a channel: the channel is made by its first post and nothing lands in an inbox", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const m = await post(p, i1, { channel: "design", body_md: "Proposal: split the store." });
		expect(m).toMatchObject({ channel: "design", to_agent_id: null });
		const channels = await as<{ channels: unknown[] }>(p, p.ctx, "channel.list", {});
		expect(channels.channels).toEqual([
			{ channel: "design", message_count: 1, last_message_at: m.created_at },
		]);
		expect((await inbox(p, await agentContext(p, I2))).messages).toEqual([]);
		expect((await eventsOf(p, "message.posted"))[0]?.payload).toMatchObject({ channel: "design" });
	});

	test("to the operator, and from it: `operator` is an addressable pseudo-agent", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const up = await post(p, i1, { to_agent_id: "operator", body_md: "Blocked on credentials." });
		const box = await inbox(p, p.ctx);
		expect(box.agent_id).toBe("operator");
		expect(box.messages.map((x) => x.id)).toEqual([up.id]);

		const down = await post(p, p.ctx, {
			to_agent_id: I1,
			body_md: "Use the sandbox ones.",
			thread_id: up.id,
		});
		expect(down).toMatchObject({ sender_id: "operator", to_agent_id: I1, thread_id: up.id });
		expect((await inbox(p, i1)).messages.map((x) => x.id)).toEqual([down.id]);
	});

	test("the operator may post as a named agent; an unknown one is not_found", async () => {
		const p = await makeProject();
		const m = await post(p, p.ctx, { agent_id: I1, to_agent_id: I2, body_md: "hi" });
		expect(m.sender_id).toBe(I1);
		const e = await p.fail("message.post", { agent_id: "implementer-9", to_agent_id: I2, body_md: "hi" });
		expect(e.code).toBe("not_found");
		expect(e.details).toMatchObject({ field: "agent_id" });
	});

	test("exactly one target: neither or both is invalid_argument, and nothing is stored", async () => {
		const p = await makeProject();
		for (const args of [{ body_md: "x" }, { to_agent_id: I2, channel: "design", body_md: "x" }]) {
			const e = await p.fail("message.post", args);
			expect(e.code).toBe("invalid_argument");
			expect(e.message).toContain("exactly one of to_agent_id");
		}
		expect(await eventsOf(p, "message.posted")).toEqual([]);
	});

	test("the addressee must exist and be enabled; messaging yourself is invalid_argument", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const unknown = await p.fail("message.post", { to_agent_id: "implementer-3", body_md: "x" }, i1);
		expect(unknown.code).toBe("not_found");
		expect(unknown.details).toMatchObject({ field: "to_agent_id", did_you_mean: expect.any(String) });
		await disableAgent(p, I2);
		expect((await p.fail("message.post", { to_agent_id: I2, body_md: "x" }, i1)).code).toBe(
			"failed_precondition",
		);
		const self = await p.fail("message.post", { to_agent_id: I1, body_md: "x" }, i1);
		expect(self.code).toBe("invalid_argument");
		expect(self.details).toMatchObject({ field: "to_agent_id" });
	});

	test("a channel name is [a-z0-9-]{1,64}; thread_id must name a message", async () => {
		const p = await makeProject();
		for (const channel of ["Design", "a b", "x".repeat(65)])
			expect((await p.fail("message.post", { channel, body_md: "x" })).code).toBe("invalid_argument");
		const e = await p.fail("message.post", { channel: "design", body_md: "x", thread_id: "MSG-none" });
		expect(e.code).toBe("not_found");
		expect(e.details).toMatchObject({ field: "thread_id" });
	});

	test("a body is at most 64 KiB of UTF-8", async () => {
		const p = await makeProject();
		await post(p, p.ctx, { channel: "big", body_md: "x".repeat(64 * 1024) });
		// 64 KiB of characters, but more bytes: é is two.
		const e = await p.fail("message.post", { channel: "big", body_md: "é".repeat(32 * 1024 + 1) });
		expect(e.code).toBe("invalid_argument");
		expect(e.details).toMatchObject({ field: "body_md", max_bytes: 64 * 1024 });
	});

	test("a retry with the same idempotency key posts once and returns the first message", async () => {
		const p = await makeProject();
		const args = { to_agent_id: I1, body_md: "once", idempotency_key: "post-1" };
		const first = await post(p, p.ctx, args);
		const again = await post(p, p.ctx, args);
		expect(again).toEqual(first);
		expect((await inbox(p, p.ctx, { agent_id: I1 })).messages).toHaveLength(1);
		expect(await eventsOf(p, "message.posted")).toHaveLength(1);
		expect((await p.fail("message.post", { ...args, body_md: "other" })).code).toBe("conflict");
	});
});

describe("message.inbox", () => {
	test("defaults: with a capability, the caller's own unread messages and the open requests to it", async () => {
		const p = await makeProject();
		const i2 = await agentContext(p, I2);
		await post(p, p.ctx, { to_agent_id: I1, body_md: "not for i2" });
		const m = await post(p, p.ctx, { to_agent_id: I2, body_md: "for i2" });
		const now = new Date().toISOString();
		await p.rt.store.withTransaction("write", async (tx) => {
			await tx.peers.insert(
				{ id: "Q-1", requester_id: I1, assignee_id: I2, question_md: "?", task_id: null, proposal_id: null },
				now,
			);
			await tx.peers.insert(
				{ id: "Q-2", requester_id: I2, assignee_id: I1, question_md: "?", task_id: null, proposal_id: null },
				now,
			);
		});
		const box = await inbox(p, i2);
		expect(box).toMatchObject({ agent_id: I2, unread_count: 1, approvals: [], next_cursor: null });
		expect(box.messages.map((x) => x.id)).toEqual([m.id]);
		expect(box.requests.map((r) => r.id)).toEqual(["Q-1"]);
	});

	test("with a capability, another agent's inbox is refused by the access check", async () => {
		const p = await makeProject();
		await post(p, p.ctx, { to_agent_id: I1, body_md: "private" });
		const i2 = await agentContext(p, I2);
		const e = await p.fail("message.inbox", { agent_id: I1 }, i2);
		expect(e.code).toBe("permission_denied");
		expect(e.message).toContain(`agent_id must be you (${I2})`);
		// And the same for marking another's direct message read or posting as another.
		expect((await p.fail("message.post", { agent_id: I1, channel: "x", body_md: "x" }, i2)).code).toBe(
			"permission_denied",
		);
		expect((await eventsOf(p, "call.denied")).length).toBeGreaterThan(0);
	});

	test("the operator's inbox holds its attention items: requests to operator and requested approvals", async () => {
		const p = await makeProject();
		const { approval } = (await p.call("human.request_approval", {
			subject: "deploy",
			reason_md: "prod",
		})) as {
			approval: { id: string };
		};
		const decided = (await p.call("human.request_approval", { subject: "old", reason_md: "r" })) as {
			approval: { id: string };
		};
		await p.call("human.request_approval", {
			approval_id: decided.approval.id,
			subject: "old",
			reason_md: "r",
			status: "approved",
			decided_by: "operator",
		});
		await p.rt.store.withTransaction("write", (tx) =>
			tx.peers.insert(
				{
					id: "Q-op",
					requester_id: I1,
					assignee_id: "operator",
					question_md: "May I?",
					task_id: null,
					proposal_id: null,
				},
				new Date().toISOString(),
			),
		);
		const box = await inbox(p, p.ctx);
		expect(box.agent_id).toBe("operator");
		expect(box.requests.map((r) => r.id)).toEqual(["Q-op"]);
		expect(box.approvals.map((a) => a.id)).toEqual([approval.id]);
		// An agent's inbox, even read by the operator, lists no approvals.
		expect((await inbox(p, p.ctx, { agent_id: I1 })).approvals).toEqual([]);
	});

	test("pages oldest first with limit and cursor; requests come with the first page only", async () => {
		const p = await makeProject();
		const sent: string[] = [];
		for (let i = 0; i < 5; i++) sent.push((await post(p, p.ctx, { to_agent_id: I1, body_md: `m${i}` })).id);
		await p.rt.store.withTransaction("write", (tx) =>
			tx.peers.insert(
				{ id: "Q-1", requester_id: I2, assignee_id: I1, question_md: "?", task_id: null, proposal_id: null },
				new Date().toISOString(),
			),
		);
		const seen: string[] = [];
		let cursor: string | null = null;
		let pages = 0;
		do {
			const box: Inbox = await inbox(p, p.ctx, { agent_id: I1, limit: 2, ...(cursor && { cursor }) });
			expect(box.requests.length).toBe(pages === 0 ? 1 : 0);
			expect(box.unread_count).toBe(5);
			seen.push(...box.messages.map((m) => m.id));
			cursor = box.next_cursor;
			pages++;
		} while (cursor !== null);
		expect(seen).toEqual(sent);
		expect(pages).toBe(3);
		expect((await p.fail("message.inbox", { agent_id: I1, cursor: "bogus" })).code).toBe("invalid_argument");
	});
});

describe("message.mark_read: read is its own outcome", () => {
	test("delivered is not read; marking keeps the first read time; unread_only hides read ones", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const a = await post(p, p.ctx, { to_agent_id: I1, body_md: "a" });
		const b = await post(p, p.ctx, { to_agent_id: I1, body_md: "b" });
		// Reading the inbox marks nothing.
		await inbox(p, i1);
		expect((await inbox(p, i1)).unread_count).toBe(2);

		const first = await markRead(p, i1, { message_ids: [a.id, a.id] });
		expect(first.marked).toBe(1);
		expect(first.messages).toHaveLength(1);
		const readAt = first.messages[0]?.read_at as string;
		expect(readAt).toEqual(expect.any(String));

		const box = await inbox(p, i1);
		expect(box.messages.map((m) => m.id)).toEqual([b.id]);
		expect(box.unread_count).toBe(1);
		const all = await inbox(p, i1, { unread_only: false });
		expect(all.messages.map((m) => [m.id, m.read_at])).toEqual([
			[a.id, readAt],
			[b.id, null],
		]);

		await Bun.sleep(5);
		const again = await markRead(p, i1, { message_ids: [a.id, b.id] });
		expect(again.marked).toBe(1);
		expect(again.messages.map((m) => m.read_at)).toEqual([readAt, expect.any(String)]);
		expect(again.messages[1]?.read_at).not.toBe(readAt);

		const events = await eventsOf(p, "message.read");
		expect(events.map((e) => [e.actor_id, e.payload])).toEqual([
			[I1, { reader_id: I1, message_ids: [a.id] }],
			[I1, { reader_id: I1, message_ids: [b.id] }],
		]);
		// Nothing new to mark: no event.
		expect((await markRead(p, i1, { message_ids: [a.id] })).marked).toBe(0);
		expect(await eventsOf(p, "message.read")).toHaveLength(2);
	});

	test("read is per reader: a channel message read by one is unread for another", async () => {
		const p = await makeProject();
		const i1 = await agentContext(p, I1);
		const i2 = await agentContext(p, I2);
		const m = await post(p, i1, { channel: "general", body_md: "hello all" });
		await markRead(p, i2, { message_ids: [m.id] });
		type Page = { messages: MessageRecord[] };
		const seenBy2 = await as<Page>(p, i2, "channel.messages", { channel: "general" });
		const seenBy1 = await as<Page>(p, i1, "channel.messages", { channel: "general" });
		expect(seenBy2.messages[0]?.read_at).toEqual(expect.any(String));
		expect(seenBy1.messages[0]?.read_at).toBeNull();
	});

	test("unknown is not_found; another's direct message is permission_denied; nothing is marked", async () => {
		const p = await makeProject();
		const i2 = await agentContext(p, I2);
		const mine = await post(p, p.ctx, { to_agent_id: I2, body_md: "for 2" });
		const theirs = await post(p, p.ctx, { to_agent_id: I1, body_md: "for 1" });
		const missing = await p.fail("message.mark_read", { message_ids: [mine.id, "MSG-none"] }, i2);
		expect(missing.code).toBe("not_found");
		expect(missing.details).toMatchObject({ message_id: "MSG-none" });
		const denied = await p.fail("message.mark_read", { message_ids: [mine.id, theirs.id] }, i2);
		expect(denied.code).toBe("permission_denied");
		// Not even the sender marks a direct message read for its addressee.
		const sent = await post(p, i2, { to_agent_id: I1, body_md: "from 2" });
		expect((await p.fail("message.mark_read", { message_ids: [sent.id] }, i2)).code).toBe(
			"permission_denied",
		);
		expect((await inbox(p, i2)).unread_count).toBe(1);
		expect(await eventsOf(p, "message.read")).toEqual([]);
	});

	test("a retry with the same key returns the first result", async () => {
		const p = await makeProject();
		const m = await post(p, p.ctx, { to_agent_id: I1, body_md: "x" });
		const args = { agent_id: I1, message_ids: [m.id], idempotency_key: "read-1" };
		const first = await markRead(p, p.ctx, args);
		expect(await markRead(p, p.ctx, args)).toEqual(first);
		expect(first.marked).toBe(1);
		expect(await eventsOf(p, "message.read")).toHaveLength(1);
	});
});

describe("channels", () => {
	test("channel.list pages by name; channel.messages pages oldest first", async () => {
		const p = await makeProject();
		for (const c of ["zeta", "alpha", "mid", "alpha"]) await post(p, p.ctx, { channel: c, body_md: c });
		type List = { channels: { channel: string; message_count: number }[]; next_cursor: string | null };
		const one = await as<List>(p, p.ctx, "channel.list", { limit: 2 });
		expect(one.channels.map((c) => [c.channel, c.message_count])).toEqual([
			["alpha", 2],
			["mid", 1],
		]);
		const two = await as<List>(p, p.ctx, "channel.list", { limit: 2, cursor: one.next_cursor });
		expect(two).toMatchObject({ channels: [{ channel: "zeta" }], next_cursor: null });

		const sent: string[] = [];
		for (let i = 0; i < 3; i++) sent.push((await post(p, p.ctx, { channel: "log", body_md: `${i}` })).id);
		type Page = { channel: string; messages: MessageRecord[]; next_cursor: string | null };
		const a = await as<Page>(p, p.ctx, "channel.messages", { channel: "log", limit: 2 });
		const b = await as<Page>(p, p.ctx, "channel.messages", {
			channel: "log",
			limit: 2,
			cursor: a.next_cursor,
		});
		expect([...a.messages, ...b.messages].map((m) => m.id)).toEqual(sent);
		expect(b.next_cursor).toBeNull();
	});

	test("an unknown channel is not_found, with the nearest name", async () => {
		const p = await makeProject();
		await post(p, p.ctx, { channel: "design", body_md: "x" });
		const e = await p.fail("channel.messages", { channel: "desing" });
		expect(e.code).toBe("not_found");
		expect(e.details).toMatchObject({ channel: "desing", did_you_mean: "design" });
	});
});
