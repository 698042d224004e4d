import { type } from "arktype";
import { callerId, nonBlank, positiveInt } from "../domain/scalars.ts";
import { CLAIM_STATUSES, CLAIM_TYPES } from "../domain/statuses.ts";
import { claimRecord, resourceRecord } from "./records.ts";
import { tool } from "./types.ts";

const resourceType = type(/^[a-z][a-z0-9_-]{0,63}$/).describe(
	"a resource type in lower case (file, directory, symbol, or your own such as endpoint)",
);
const ttl = type("1 <= number.integer <= 2592000").describe(
	"a number of seconds from 1 to 2592000 (30 days)",
);
const listLimit = type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000");

export const resourceTools = [
	tool({
		name: "resource.claim",
		family: "resources",
		title: "Claim a resource",
		description:
			"Claim a file, directory, symbol or other resource for a task before proposing a change to it. Modes: read, write, review, exclusive (exclusive conflicts with everything, write with write). Overlapping claims of other agents in a conflicting mode are refused with `conflict` naming the holder; your own claims never conflict, and claiming what you already hold returns that claim with `duplicate: true`. Claims are leases: they expire after `ttl_seconds` unless renewed. The resource's content hash is recorded so a later change can be detected.",
		args: type({
			resource_type: resourceType,
			resource_id: nonBlank,
			claim_type: type.enumerated(...CLAIM_TYPES),
			task_id: callerId,
			agent_id: callerId,
			"path?": nonBlank,
			"symbol?": nonBlank,
			"start_line?": positiveInt,
			"end_line?": positiveInt,
			"ttl_seconds?": ttl,
			"renewable?": "boolean",
			"resume_policy?": nonBlank,
			"base_hash?": nonBlank,
			"rationale?": nonBlank,
			"claim_id?": callerId,
			"run_id?": callerId,
		}),
		argDocs: {
			resource_type:
				"file, directory, symbol, or a type of your own (endpoint, schema, …) that overlaps only by id.",
			resource_id:
				"For files, directories and symbols the canonical id `file:<path>`, `directory:<path>` or `symbol:<path>#<name>` (the path may come from it); any id for other types.",
			claim_type: "read, write, review or exclusive.",
			task_id: "The task the claim serves.",
			agent_id: "The claiming agent.",
			path: "Repository-relative path (files, directories, symbols); `.` for the whole repository.",
			symbol: "The symbol's name, for a symbol claim.",
			start_line: "First line of the symbol; taken from repo.symbols when left out.",
			end_line: "Last line of the symbol; taken from repo.symbols when left out.",
			ttl_seconds: "Lease length (default claims.default_ttl_seconds, 900).",
			renewable: "Whether resource.renew may extend the lease (default true).",
			resume_policy: "What should happen to the claim when its holder's session resumes (default `hold`).",
			base_hash: "The content hash you based your work on (default: computed now).",
			rationale: "Why you need it.",
			claim_id: "Choose the id yourself; by default one is minted (C-…). An id in use is `already_exists`.",
			run_id: "The run this claim belongs to.",
		},
		output: type({ claim: claimRecord, resource: resourceRecord, duplicate: "boolean" }),
		mutates: true,
	}),
	tool({
		name: "resource.claim_status",
		family: "resources",
		title: "Claim status",
		description:
			"List claims, filtered by resource, agent, task or status (`expired` includes leases that ran out but were not yet recorded). With `reconcile: true` it first suspends live write and exclusive claims whose resource changed since they were taken (`claim.suspended` events) and names them in `suspended`. Pages with `limit` and `cursor`.",
		args: type({
			"resource_id?": nonBlank,
			"agent_id?": callerId,
			"task_id?": callerId,
			"status?": type.enumerated(...CLAIM_STATUSES),
			"reconcile?": "boolean",
			"limit?": listLimit,
			"cursor?": nonBlank,
		}),
		argDocs: {
			reconcile:
				"Suspend the matching write/exclusive claims whose resource content changed since they were taken.",
			limit: "Claims per page: default 200, at most 1000.",
			cursor: "The `next_cursor` of the previous page.",
		},
		output: type({ claims: claimRecord.array(), next_cursor: "string | null", suspended: "string[]" }),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "resource.get",
		family: "resources",
		title: "Get a resource",
		description: "Fetch one resource record and the live claims on it.",
		args: type({ resource_id: nonBlank }),
		output: type({ resource: resourceRecord, claims: claimRecord.array() }),
		mutates: false,
	}),
	tool({
		name: "resource.release",
		family: "resources",
		title: "Release a claim",
		description:
			"Release a claim you hold (`agent_id` must be its holder). The operator may release any claim with `force: true` and a `reason`, which the event records.",
		args: type({
			claim_id: callerId,
			"agent_id?": callerId,
			"force?": "boolean",
			"reason?": nonBlank,
		}),
		argDocs: {
			agent_id: "The releasing agent: the claim's holder.",
			force: "Operator only: release someone else's claim (needs `reason`).",
			reason: "Why; recorded in the claim.released event.",
		},
		output: type({ claim: claimRecord }),
		mutates: true,
		updates: true,
		destructive: true,
		idempotent: true,
	}),
	tool({
		name: "resource.search",
		family: "resources",
		title: "Search resources",
		description:
			"Search known resources by a case-insensitive substring of their id, type, path, symbol or language, in id order. Pages with `limit` and `cursor`.",
		args: type({
			query: nonBlank,
			"resource_type?": resourceType,
			"limit?": listLimit,
			"cursor?": nonBlank,
		}),
		output: type({ resources: resourceRecord.array(), next_cursor: "string | null" }),
		mutates: false,
	}),
	tool({
		name: "resource.renew",
		family: "resources",
		title: "Renew a claim",
		description:
			"Extend the lease of a renewable claim you hold. A suspended claim (its resource changed) comes back only with `rebase: true`, which records the current content as its new base.",
		args: type({
			claim_id: callerId,
			agent_id: callerId,
			"ttl_seconds?": ttl,
			"rebase?": "boolean",
		}),
		argDocs: {
			agent_id: "The claim's holder.",
			ttl_seconds: "New lease length from now (default claims.default_ttl_seconds).",
			rebase: "For a suspended claim: take the resource's current content as the new base and reactivate it.",
		},
		output: type({ claim: claimRecord }),
		mutates: true,
		updates: true,
	}),
] as const;
