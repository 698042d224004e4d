// table.get_state and table.watch: the shared view of the table, each read in one snapshot.

import type { Env } from "./handlers/env.ts";
import { requireRun } from "./handlers/records.ts";
import { lookUntil } from "./handlers/wait.ts";
import type { Args } from "./registry/index.ts";
import { agentRecordOf } from "./store/agents.ts";
import type { Tx } from "./store/index.ts";
import { nowIso } from "./vocabulary/ids.ts";
import { OPEN_TASK_STATUSES } from "./vocabulary/statuses.ts";

export async function getState(tx: Tx, _a: Args<"table.get_state">, env: Env) {
	return {
		runs: await tx.runs.list(),
		agents: (await tx.agents.list()).map(agentRecordOf),
		tasks: await tx.tasks.all(),
		// Live claims (active or suspended): the table as it stands, not its history.
		claims: await tx.claims.live(env.now),
		proposals: await tx.proposals.all(),
		transactions: await tx.transactions.all(),
		human_approvals: await tx.approvals.list({}),
		security_reviews: await tx.reviews.all(),
		memory: await tx.memory.list(),
		last_event_id: await tx.events.lastId(),
	};
}

/** The seed's normalization: missing or ≤ 0 means 10, and at most 200. */
export const watchLimit = (limit: number | undefined) =>
	limit === undefined || limit <= 0 ? 10 : Math.min(limit, 200);

export function watch(a: Args<"table.watch">, env: Env) {
	return lookUntil(
		env,
		"table.watch",
		a.wait_ms ?? 0,
		() => env.rt.store.withTransaction("read", (tx) => watchView(tx, a, nowIso())),
		(view) => view.events.length > 0,
	);
}

async function watchView(tx: Tx, a: Args<"table.watch">, now: string) {
	const limit = watchLimit(a.limit);
	const runId = a.run_id ?? null;
	if (runId !== null) await requireRun(tx, runId);

	let events: Awaited<ReturnType<Tx["events"]["after"]>>;
	let hasMore = false;
	let next: number;
	if (a.after_event_id !== undefined) {
		// Cursor mode: one extra row tells whether another page exists.
		const page = await tx.events.after(a.after_event_id, runId, limit + 1);
		hasMore = page.length > limit;
		events = hasMore ? page.slice(0, limit) : page;
		next = events.at(-1)?.id ?? a.after_event_id;
	} else {
		events = await tx.events.newest(runId, limit);
		next = events.at(-1)?.id ?? 0;
	}

	return {
		run_id: runId,
		events,
		next_after_event_id: next,
		has_more_events: hasMore,
		// The seed's: the newest `limit` transactions, not run-filtered.
		transactions: await tx.transactions.tail(limit),
		blocked_tasks: await tx.tasks.withStatus("blocked"),
		pending_proposals: await tx.proposals.withStatuses(["pending", "in_review"]),
		required_approvals: await tx.approvals.list({ status: "requested" }),
		active_claims: await tx.claims.countByStatus("active", now),
		suspended_claims: await tx.claims.countByStatus("suspended", now),
		open_tasks: await tx.tasks.countWithStatus(OPEN_TASK_STATUSES),
		active_agents: await tx.agents.countEnabled(),
	};
}
