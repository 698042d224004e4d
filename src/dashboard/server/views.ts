// The dashboard's JSON views, each built from tool calls as the operator (never from the store): the
// table (`/api/state`), one proposal with its revisions' diffs, votes, security findings, test runs
// and gates (`/api/proposals/:id`), and memory search. Every Markdown field `x_md` also comes as
// `x_md_html`, rendered inert on the server (src/dashboard/server/markdown.ts).

import { asToolError } from "../../errors.ts";
import type { Result, ToolName } from "../../registry/index.ts";
import { renderMarkdown } from "./markdown.ts";

/** One call as the operator: what the dashboard does with the Caller it is given. */
export type OperatorCall = <N extends ToolName>(tool: N, args: Record<string, unknown>) => Promise<Result<N>>;

/** Claims expiring within this long are `expiring_soon`. */
const SOON_MS = 5 * 60 * 1000;

// Bodies rarely change between two reads of the table: the rendered HTML is kept, a bounded few.
const rendered = new Map<string, string>();
const MAX_RENDERED = 2000;

function render(markdown: string): string {
	let html = rendered.get(markdown);
	if (html === undefined) {
		html = renderMarkdown(markdown);
		if (rendered.size >= MAX_RENDERED) rendered.delete(rendered.keys().next().value as string);
		rendered.set(markdown, html);
	}
	return html;
}

/** A record with each Markdown field (`…_md`: a string, or null) also rendered as `…_md_html`. */
export function withHtml<T extends object>(record: T): T & Record<string, unknown> {
	const out: Record<string, unknown> = { ...(record as Record<string, unknown>) };
	for (const [key, value] of Object.entries(record)) {
		if (!key.endsWith("_md")) continue;
		if (typeof value === "string") out[`${key}_html`] = render(value);
		else if (value === null) out[`${key}_html`] = null;
	}
	return out as T & Record<string, unknown>;
}

/**
 * `/api/state`: the table as get_state reads it, plus the turn queue, open questions, newest
 * messages, and the newest sessions with the last line each agent wrote.
 */
export async function stateView(call: OperatorCall, csrfToken: string) {
	// get_state first: its last_event_id is where the event stream picks up, so nothing read after it is missed.
	const state = await call("table.get_state", {});
	const { turns } = await call("turn.queue", {});
	const { requests } = await call("peer.questions", { status: "open" });
	const { messages } = await call("message.list", { limit: 50 });
	const { sessions } = await call("session.list", { limit: 50 });
	const now = Date.now();
	return {
		csrf_token: csrfToken,
		last_event_id: state.last_event_id,
		now: new Date(now).toISOString(),
		runs: state.runs,
		agents: state.agents,
		tasks: state.tasks.map(withHtml),
		turns: turns.map(withHtml),
		claims: state.claims.map((c) => ({ ...c, expiring_soon: Date.parse(c.expires_at) - now <= SOON_MS })),
		proposals: state.proposals.map(withHtml),
		transactions: state.transactions.map(withHtml),
		approvals: state.human_approvals.map(withHtml),
		security_reviews: state.security_reviews.map(reviewView),
		questions: requests.map(withHtml),
		messages: messages.map(withHtml),
		sessions,
	};
}

type Review = Result<"table.get_state">["security_reviews"][number];

/** A security review with its findings; each finding's `code` also as `rule`. */
const reviewView = (r: Review) => ({
	...withHtml(r),
	findings: r.findings.map((f) => ({ ...f, rule: f.code })),
});

/** `/api/proposals/:id`: one proposal and everything that decides whether it may land. */
export async function proposalView(call: OperatorCall, id: string) {
	const got = await call("proposal.get", { proposal_id: id });
	const { revisions } = await call("proposal.revisions", { proposal_id: id });
	const votes = await allVotes(call, id);
	const { test_runs } = await call("test.list", { proposal_id: id, limit: 1000 });
	const state = await call("table.get_state", {});
	const mine = <R extends { proposal_id: string | null }>(rows: R[]) =>
		rows.filter((r) => r.proposal_id === id);
	// Once applied, its gates are those it was applied under: checked now they would fail only because
	// it was applied (its patch no longer applies, its claims were released). Else checked now; one
	// patch.validate cannot check (its patch gone, say) is still shown, with why.
	const applied = mine(state.transactions)
		.filter((t) => t.kind === "apply")
		.at(-1);
	const gates =
		applied && (got.proposal.status === "accepted" || got.proposal.status === "rolled_back")
			? {
					valid: true,
					approvable: true,
					gates: applied.gates ?? [],
					as_of: { transaction_id: applied.id, applied_at: applied.applied_at },
				}
			: await call("patch.validate", { proposal_id: id }).catch((err) => ({
					valid: false,
					approvable: false,
					gates: [],
					error: asToolError(err).toJSON(),
				}));
	return {
		proposal: withHtml(got.proposal),
		summary_md_html: render(got.proposal.summary_md),
		proposal_resources: got.proposal_resources,
		revisions: revisions.map(({ patch, ...r }) => ({ ...r, diff: patch })),
		votes: votes.map(withHtml),
		security_reviews: mine(state.security_reviews).map(reviewView),
		test_runs,
		gates,
		approvals: mine(state.human_approvals).map(withHtml),
		transactions: mine(state.transactions).map(withHtml),
	};
}

async function allVotes(call: OperatorCall, id: string) {
	const votes: Result<"vote.list">["votes"] = [];
	let cursor: string | null = null;
	do {
		const page: Result<"vote.list"> = await call("vote.list", {
			proposal_id: id,
			limit: 1000,
			...(cursor !== null && { cursor }),
		});
		votes.push(...page.votes);
		cursor = page.next_cursor;
	} while (cursor !== null);
	return votes;
}

/** `/api/memory?q=…`: memory.query's result, each entry's body rendered. */
export async function memoryView(call: OperatorCall, params: URLSearchParams) {
	const args: Record<string, unknown> = { query: params.get("q") ?? "" };
	const limit = params.get("limit");
	if (limit !== null) args.limit = /^\d{1,4}$/.test(limit) ? Number(limit) : limit;
	if (params.get("include_stale") === "true") args.include_stale = true;
	const out = await call("memory.query", args);
	return { ...out, entries: out.entries.map(withHtml) };
}
