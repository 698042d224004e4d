import { callerId, nonBlank, positiveInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { memoryRecord } from "../vocabulary/records.ts";
import { tool } from "./types.ts";

export const memoryTools = [
	tool({
		name: "memory.query",
		family: "memory",
		access: "every",
		title: "Search memory",
		description:
			"Search project knowledge when you start a task. Next: task.get, or memory.record what you learn.",
		details:
			"Full-text search of durable project knowledge, best matches first (whole words, by stem; the last word of 3+ letters also as a prefix; more words matched rank higher). Stale entries are left out unless `include_stale` is true.",
		args: () =>
			type({
				query: nonBlank,
				"scope?": nonBlank,
				"kind?": nonBlank,
				"limit?": type("1 <= number.integer <= 200").describe("an integer from 1 to 200"),
				"include_stale?": "boolean",
			}),
		argDocs: {
			query: "Words to find.",
			scope: "Only this scope.",
			kind: "Only this kind.",
			limit: "Max entries (default 10).",
			include_stale: "Include stale entries.",
		},
		output: () =>
			type({
				entries: memoryRecord().merge({ score: "number", snippet: "string" }).array(),
			}),
		mutates: false,
	}),
	tool({
		name: "memory.record",
		family: "memory",
		access: { Implementer: { bound: "task" }, MemoryOracle: {} },
		ownId: "memory_id",
		title: "Record memory",
		description: "Store a fact, convention or lesson later agents need. Next: memory.query finds it.",
		details:
			"Store a durable piece of project knowledge (a fact, convention, decision or lesson) for later agents to find with memory.query.",
		args: () =>
			type({
				scope: nonBlank,
				kind: nonBlank,
				title: nonBlank,
				body_md: nonBlank,
				"source_event_id?": positiveInt,
				"importance?": type("0 <= number.integer <= 100").describe("an integer from 0 to 100"),
				"memory_id?": callerId,
				"task_id?": callerId,
				"proposal_id?": callerId,
			}),
		argDocs: {
			scope: "project, a path, a task id...",
			kind: "fact, convention, lesson...",
			title: "One line.",
			body_md: "The knowledge.",
			source_event_id: "Event it came from.",
			importance: "0-100 (default 50).",
			memory_id: "Own id (default new M-).",
			task_id: "Task it concerns.",
			proposal_id: "Proposal it concerns.",
			idempotency_key: "Stores once on retry.",
		},
		output: () => type({ entry: memoryRecord() }),
		mutates: true,
	}),
	tool({
		name: "memory.summarize",
		family: "memory",
		access: { MemoryOracle: {} },
		title: "Summarize memory",
		description:
			"Digest of active entries, most important first; for resume or handoff. Next: memory.query for detail.",
		details:
			"A Markdown digest of the active (not stale) entries for a scope, a task or a proposal, most important first. Nothing is stored.",
		args: () =>
			type({
				"task_id?": callerId,
				"proposal_id?": callerId,
				"scope?": nonBlank,
				"limit?": type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000"),
			}),
		argDocs: {
			task_id: "This task's entries.",
			proposal_id: "This proposal's entries.",
			scope: "This scope's entries.",
			limit: "Max entries (default 200).",
		},
		output: () =>
			type({ entries: memoryRecord().array(), summary_md: "string", entry_count: "number.integer >= 0" }),
		mutates: false,
	}),
	tool({
		name: "memory.mark_stale",
		family: "memory",
		access: { MemoryOracle: {} },
		title: "Mark memory stale",
		description: "Retire an outdated entry (kept, hidden from search). Next: memory.record the correction.",
		details:
			"Mark an entry as outdated or contradicted. It stays in the database (and in results with `include_stale`) with the reason.",
		args: () => type({ memory_id: callerId, reason_md: nonBlank }),
		argDocs: {
			memory_id: "Entry to retire.",
			reason_md: "Why it no longer holds.",
			idempotency_key: "Marks once on retry.",
			expected_revision: "Entry revision you read.",
		},
		output: () => type({ entry: memoryRecord() }),
		mutates: true,
		updates: true,
		destructive: true,
	}),
] as const;
