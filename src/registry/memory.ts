import { type } from "arktype";
import { callerId, nonBlank, positiveInt } from "../domain/scalars.ts";
import { memoryRecord } from "./records.ts";
import { tool } from "./types.ts";

export const memoryTools = [
	tool({
		name: "memory.query",
		family: "memory",
		title: "Search memory",
		description:
			"Full-text search of durable project knowledge, best matches first (words match by stem and prefix; an entry matching more words ranks higher). Stale entries are left out unless `include_stale` is true.",
		args: type({
			query: nonBlank,
			"scope?": nonBlank,
			"kind?": nonBlank,
			"limit?": type("1 <= number.integer <= 200").describe("an integer from 1 to 200"),
			"include_stale?": "boolean",
		}),
		argDocs: {
			query: "Words to look for in titles, bodies, scopes and kinds.",
			scope: "Only entries with exactly this scope.",
			kind: "Only entries of exactly this kind.",
			limit: "At most this many entries (default 10, at most 200).",
			include_stale: "Also return entries marked stale (default false).",
		},
		output: type({
			entries: memoryRecord.merge({ score: "number", snippet: "string" }).array(),
		}),
		mutates: false,
	}),
	tool({
		name: "memory.record",
		family: "memory",
		title: "Record memory",
		description:
			"Store a durable piece of project knowledge (a fact, convention, decision or lesson) for later agents to find with memory.query.",
		args: type({
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
			scope: "Where it applies: `project`, a path, a task id, …",
			kind: "What it is: `fact`, `convention`, `decision`, `lesson`, …",
			source_event_id: "The event this knowledge came from.",
			importance: "0 to 100, default 50; breaks ties in search and orders summaries.",
			memory_id: "Choose the id yourself; by default one is minted (M-…). An id in use is `already_exists`.",
			task_id: "The task this knowledge is about.",
			proposal_id: "The proposal this knowledge is about.",
		},
		output: type({ entry: memoryRecord }),
		mutates: true,
	}),
	tool({
		name: "memory.summarize",
		family: "memory",
		title: "Summarize memory",
		description:
			"A Markdown digest of the active (not stale) entries for a scope, a task or a proposal, most important first. Nothing is stored.",
		args: type({
			"task_id?": callerId,
			"proposal_id?": callerId,
			"scope?": nonBlank,
			"limit?": type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000"),
		}),
		argDocs: {
			task_id: "Entries recorded for this task, or whose scope is this task id.",
			proposal_id: "Entries recorded for this proposal, or whose scope is this proposal id.",
			scope: "Entries with exactly this scope.",
			limit: "At most this many entries (default 200).",
		},
		output: type({ entries: memoryRecord.array(), summary_md: "string", entry_count: "number.integer >= 0" }),
		mutates: false,
	}),
	tool({
		name: "memory.mark_stale",
		family: "memory",
		title: "Mark memory stale",
		description:
			"Mark an entry as outdated or contradicted. It stays in the database (and in results with `include_stale`) with the reason.",
		args: type({ memory_id: callerId, reason_md: nonBlank }),
		output: type({ entry: memoryRecord }),
		mutates: true,
		updates: true,
		destructive: true,
	}),
] as const;
