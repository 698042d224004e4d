// `inbox`, `ask`, `answer`: the operator's side of peer questions and messages, so a person can take
// part from the terminal. Each is a call as the operator (acting as `operator`, or as the agent
// --as names), through the same tools agents use.
import type { CallContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { ToolError } from "../errors.ts";
import type { Result } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import type { MessageRecord, PeerAnswerRecord, PeerRequestRecord } from "../vocabulary/records.ts";
import { UsageError } from "./args.ts";
import { print } from "./output.ts";
import { command, waitForEvents } from "./runtime.ts";

/** The first line of a body, cut to fit one terminal line. */
const firstLine = (text: string) => {
	const line = text.trim().split("\n")[0] ?? "";
	return line.length > 100 ? `${line.slice(0, 99)}…` : line;
};

const messageLine = (m: MessageRecord) =>
	`MSG ${m.id} ${m.sender_id} → ${m.to_agent_id ?? `#${m.channel}`} ${m.created_at}${m.read_at ? "" : " unread"}: ${firstLine(m.body_md)}`;
const requestLine = (r: PeerRequestRecord) =>
	`ASK ${r.id} ${r.requester_id} → ${r.assignee_id} ${r.status}: ${firstLine(r.question_md)}`;
const answerLine = (a: PeerAnswerRecord) =>
	`${a.late ? "LATE" : "ANSWER"} ${a.id} ${a.author_id} ${a.created_at}: ${firstLine(a.answer_md)}`;

/** An inbox as items, each with its line: questions, approvals, then messages. */
function inboxItems(v: Result<"message.inbox">): { id: string; record: object; line: string }[] {
	return [
		...v.requests.map((r) => ({ id: r.id, record: r, line: requestLine(r) })),
		...v.approvals.map((a) => ({
			id: a.id,
			record: a,
			line: `APPROVAL ${a.id} ${a.status} ${a.proposal_id ?? "-"} ${a.subject}`,
		})),
		...v.messages.map((m) => ({ id: m.id, record: m, line: messageLine(m) })),
	];
}

/** Prints items, one line each (or one JSON object each). */
function printItems(items: ReturnType<typeof inboxItems>, json: boolean): void {
	const lines = items.map((x) => (json ? JSON.stringify(x.record) : x.line));
	if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
}

/** peer.wait's own bound. */
const MAX_WAIT_MS = 30_000;

const actor = (as: unknown) => (typeof as === "string" ? { agent_id: as } : {});

/**
 * Prints what arrives until interrupted: every message, question and approval once. It waits on the
 * event stream (not on the inbox, which stays non-empty while something is unread) and reads the
 * inbox again after each batch of events.
 */
async function followInbox(
	rt: Runtime,
	ctx: CallContext,
	as: unknown,
	from: { cursor: number; seen: Set<string> },
	json: boolean,
) {
	let { cursor } = from;
	const { seen } = from;
	for (;;) {
		try {
			const events = await waitForEvents(rt, ctx, { after_event_id: cursor, limit: 200, wait_ms: 30_000 });
			cursor = events.next_after_event_id;
			if (events.events.length === 0) continue;
		} catch (err) {
			if (err instanceof ToolError && err.code === "cancelled") return;
			throw err;
		}
		const v = await call(rt, "message.inbox", { ...actor(as), unread_only: true }, ctx);
		const fresh = inboxItems(v).filter((x) => !seen.has(x.id));
		for (const x of fresh) seen.add(x.id);
		printItems(fresh, json);
	}
}

export const inbox = command(async (rt, ctx, flags) => {
	// The event cursor is taken before the first read, so nothing lands between the two unseen.
	const cursor = flags.follow ? (await call(rt, "table.watch", { limit: 1 }, ctx)).next_after_event_id : 0;
	const v = await call(rt, "message.inbox", { ...actor(flags.as), unread_only: flags.all !== true }, ctx);
	const items = inboxItems(v);
	if (!flags.follow)
		return print(
			flags,
			v,
			items.map((x) => x.line),
		);
	const json = flags.json === true;
	printItems(items, json);
	await followInbox(rt, ctx, flags.as, { cursor, seen: new Set(items.map((x) => x.id)) }, json);
	return 0;
});

export const ask = command(async (rt, ctx, flags) => {
	if (typeof flags.to !== "string")
		throw new UsageError("--to is required (the agent to ask; see peer.list)");
	if (typeof flags.question !== "string") throw new UsageError("the question is required");
	if (typeof flags.wait === "number" && flags.wait > MAX_WAIT_MS)
		throw new UsageError(
			`--wait is at most ${MAX_WAIT_MS / 1000}s (a question stays open after it; ask again to wait more)`,
		);
	const { request } = await call(
		rt,
		"peer.ask",
		{
			...actor(flags.as),
			assignee_agent_id: flags.to,
			question_md: flags.question,
			...(typeof flags.task === "string" && { task_id: flags.task }),
			...(typeof flags.proposal === "string" && { proposal_id: flags.proposal }),
		},
		ctx,
	);
	if (typeof flags.wait !== "number") return print(flags, { request }, [requestLine(request)]);
	const waited = await call(
		rt,
		"peer.wait",
		{ ...actor(flags.as), request_id: request.id, wait_ms: flags.wait },
		ctx,
	);
	print(flags, waited, [requestLine(waited.request), ...waited.answers.map(answerLine)]);
	// Still open at the timeout: not a failure of the call, but no answer to act on either.
	return waited.timed_out ? 3 : 0;
});

export const answer = command(async (rt, ctx, flags) => {
	if (typeof flags.request !== "string") throw new UsageError("the request id (Q-…) is required");
	if (typeof flags.text !== "string") throw new UsageError("the answer is required");
	const tool = flags.late === true ? "peer.reply_late" : "peer.answer";
	const out = await call(
		rt,
		tool,
		{ ...actor(flags.as), request_id: flags.request, answer_md: flags.text },
		ctx,
	);
	return print(flags, out, [requestLine(out.request), answerLine(out.answer)]);
});
