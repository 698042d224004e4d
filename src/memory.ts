// memory.query, memory.record, memory.summarize, memory.mark_stale: durable project knowledge,
// searched with SQLite FTS5.
import { actorId } from "./context.ts";
import { failedPrecondition, invalidArgument, notFound } from "./errors.ts";
import type { Env } from "./handlers/env.ts";
import { checkRevision, newRecordId, requireProposal, requireTask } from "./handlers/records.ts";
import type { Args } from "./registry/index.ts";
import type { Tx } from "./store/index.ts";
import type { MemoryRecord } from "./vocabulary/records.ts";

async function requireEntry(tx: Tx, id: string): Promise<MemoryRecord> {
	const entry = await tx.memory.get(id);
	if (!entry) throw notFound(`memory entry ${id} not found`, { memory_id: id });
	return entry;
}

export async function query(tx: Tx, a: Args<"memory.query">) {
	const words = a.query.match(/[\p{L}\p{N}_]+/gu) ?? [];
	if (words.length === 0) {
		throw invalidArgument("argument 'query' has no words to search for", { field: "query" });
	}
	const entries = await tx.memory.search({
		words,
		scope: a.scope,
		kind: a.kind,
		includeStale: a.include_stale ?? false,
		limit: a.limit ?? 10,
	});
	return { entries };
}

export async function record(tx: Tx, a: Args<"memory.record">, env: Env) {
	const id = await newRecordId(
		"memory",
		{ field: "memory_id", value: a.memory_id, label: "memory entry" },
		(id) => tx.memory.get(id),
	);
	if (a.source_event_id !== undefined && !(await tx.events.exists(a.source_event_id))) {
		throw notFound(`event ${a.source_event_id} not found`, { source_event_id: a.source_event_id });
	}
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	if (a.proposal_id !== undefined) await requireProposal(tx, a.proposal_id);

	const entry = await tx.memory.insert(
		{
			id,
			scope: a.scope,
			kind: a.kind,
			title: a.title,
			body_md: a.body_md,
			source_event_id: a.source_event_id ?? null,
			importance: a.importance ?? 50,
			task_id: a.task_id ?? null,
			proposal_id: a.proposal_id ?? null,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "memory.recorded",
			actor_id: actorId(env.ctx),
			task_id: entry.task_id,
			payload: {
				memory_id: entry.id,
				scope: entry.scope,
				kind: entry.kind,
				title: entry.title,
				importance: entry.importance,
			},
		},
		env.now,
	);
	return { entry };
}

const oneLine = (text: string, max = 300) => {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export async function summarize(tx: Tx, a: Args<"memory.summarize">) {
	const entries = await tx.memory.digest({
		scope: a.scope,
		task_id: a.task_id,
		proposal_id: a.proposal_id,
		limit: a.limit ?? 200,
	});
	const about = [
		a.proposal_id && `Proposal: ${a.proposal_id}`,
		a.task_id && `Task: ${a.task_id}`,
		a.scope && `Scope: ${a.scope}`,
	].filter(Boolean);
	const lines =
		entries.length === 0
			? ["No active memory entries matched."]
			: entries.map((e) => `- [${e.kind}] ${oneLine(e.title, 120)}: ${oneLine(e.body_md)}`);
	const summary_md = [
		"# Memory Summary",
		"",
		about.length > 0 ? about.join(" · ") : "Scope: project",
		"",
		...lines,
		"",
	].join("\n");
	return { entries, summary_md, entry_count: entries.length };
}

export async function markStale(tx: Tx, a: Args<"memory.mark_stale">, env: Env) {
	const entry = await requireEntry(tx, a.memory_id);
	checkRevision(entry, a.expected_revision);
	if (entry.status === "stale") {
		throw failedPrecondition(`memory entry ${entry.id} is already stale`, { memory_id: entry.id });
	}
	const updated = await tx.memory.markStale(entry.id, a.reason_md, env.now);
	await tx.events.append(
		{
			type: "memory.marked_stale",
			actor_id: actorId(env.ctx),
			task_id: updated.task_id,
			payload: { memory_id: updated.id, reason_md: a.reason_md, revision: updated.revision },
		},
		env.now,
	);
	return { entry: updated };
}
