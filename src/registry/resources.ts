import { callerId, nonBlank, positiveInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { claimRecord, resourceRecord } from "../vocabulary/records.ts";
import { CLAIM_STATUSES, CLAIM_TYPES, RESUME_POLICIES } from "../vocabulary/statuses.ts";
import { tool, WORKERS } from "./types.ts";

const resourceType = type(/^[a-z][a-z0-9_-]{0,63}$/).describe(
	"a resource type in lower case (file, directory, symbol, or your own such as endpoint)",
);
const timestamp = type(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/).describe(
	"a timestamp like 2026-11-29T20:00:00Z",
);
const ttl = type("1 <= number.integer <= 2592000").describe(
	"a number of seconds from 1 to 2592000 (30 days)",
);
const listLimit = type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000");

export const resourceTools = [
	tool({
		name: "resource.claim",
		family: "resources",
		access: {
			Implementer: { bound: "task" },
			Reviewer: { bound: "proposal", only: { claim_type: ["read", "review"] } },
			Tester: { bound: "proposal", only: { claim_type: ["read"] } },
			Security: { bound: "proposal", only: { claim_type: ["read", "review"] } },
			Architect: { only: { claim_type: ["read", "review"] } },
			MemoryOracle: { only: { claim_type: ["read"] } },
		},
		actors: ["agent_id"],
		namedByCaller: ["agent_id"],
		ownId: "claim_id",
		reads: "readable",
		title: "Claim a resource",
		description:
			"Lease a resource for a task before changing it; another agent's conflicting claim refuses it. Next: proposal.create; resource.renew before expires_at.",
		details:
			"Claim a file, directory, symbol or other resource for a task before proposing a change to it. Modes: read, write, review, exclusive (exclusive conflicts with everything, write with write). Overlapping claims of other agents in a conflicting mode are refused with `conflict` naming the holder; your own claims never conflict, and claiming what you already hold returns that claim with `duplicate: true`. Claims are leases: they expire after `ttl_seconds` unless renewed. The resource's content hash is recorded so a later change can be detected.",
		args: () =>
			type({
				resource_type: resourceType,
				resource_id: nonBlank,
				claim_type: type.enumerated(...CLAIM_TYPES),
				task_id: callerId,
				"agent_id?": callerId,
				"path?": nonBlank,
				"symbol?": nonBlank,
				"start_line?": positiveInt,
				"end_line?": positiveInt,
				"ttl_seconds?": ttl,
				"renewable?": "boolean",
				"resume_policy?": type.enumerated(...RESUME_POLICIES),
				"base_hash?": nonBlank,
				"rationale?": nonBlank,
				"claim_id?": callerId,
				"run_id?": callerId,
			}),
		argDocs: {
			resource_type: "file, directory, symbol or your own.",
			resource_id: "file:<path>, directory:<path>, symbol:<path>#<name>, or any.",
			claim_type: "exclusive blocks all, write blocks write.",
			task_id: "Task the work is for.",
			agent_id: "The claimant: you.",
			path: "If not in resource_id; . is all.",
			symbol: "Symbol name.",
			start_line: "Default: from repo.symbols.",
			end_line: "Default: from repo.symbols.",
			ttl_seconds: "Lease (default 900).",
			renewable: "Allow resource.renew (default true).",
			resume_policy: "When your session ends: hold (default), release, suspend.",
			base_hash: "Hash you started from (default now).",
			rationale: "Why, for others.",
			claim_id: "Own id (default new C-).",
			run_id: "Run it belongs to.",
			idempotency_key: "No second claim on retry.",
		},
		output: () => type({ claim: claimRecord(), resource: resourceRecord(), duplicate: "boolean" }),
		mutates: true,
	}),
	tool({
		name: "resource.claim_status",
		family: "resources",
		access: "every",
		title: "Claim status",
		description:
			"List claims: yours on resume, or those in your way. Next: resource.renew or resource.release.",
		details:
			"List claims, filtered by resource, agent, task or status (`expired` includes leases that ran out but were not yet recorded). With `reconcile: true` it first suspends live write and exclusive claims whose resource changed since they were taken (`claim.suspended` events) and names them in `suspended`. Pages with `limit` and `cursor`.",
		args: () =>
			type({
				"resource_id?": nonBlank,
				"agent_id?": callerId,
				"task_id?": callerId,
				"status?": type.enumerated(...CLAIM_STATUSES),
				"reconcile?": "boolean",
				"limit?": listLimit,
				"cursor?": nonBlank,
			}),
		argDocs: {
			resource_id: "Only on this resource.",
			agent_id: "Only this agent's.",
			task_id: "Only this task's.",
			status: "Only this status.",
			reconcile: "First suspend write claims whose content changed.",
			limit: "Page size (default 200).",
			cursor: "Previous next_cursor.",
			idempotency_key: "Reconciles once on retry.",
		},
		output: () =>
			type({ claims: claimRecord().array(), next_cursor: "string | null", suspended: "string[]" }),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "resource.get",
		family: "resources",
		access: "every",
		title: "Get a resource",
		description: "A resource and who holds it. Next: resource.claim it if free.",
		details: "Fetch one resource record and the live claims on it.",
		args: () => type({ resource_id: nonBlank }),
		argDocs: {
			resource_id: "e.g. file:src/a.ts.",
		},
		output: () => type({ resource: resourceRecord(), claims: claimRecord().array() }),
		mutates: false,
	}),
	tool({
		name: "resource.release",
		family: "resources",
		access: WORKERS,
		actors: ["agent_id"],
		title: "Release a claim",
		description:
			"Give back a claim you no longer need (patch.apply releases its own). Next: others may resource.claim it.",
		details:
			"Release a claim you hold (`agent_id` must be its holder). The operator may release any claim with `force: true` and a `reason`, which the event records.",
		args: () =>
			type({
				claim_id: callerId,
				"agent_id?": callerId,
				"force?": "boolean",
				"reason?": nonBlank,
			}),
		argDocs: {
			claim_id: "Claim to release.",
			agent_id: "The holder: you.",
			force: "Operator: release any.",
			reason: "Why; needed with force.",
			idempotency_key: "Releases once on retry.",
			expected_revision: "Claim revision you read.",
		},
		output: () => type({ claim: claimRecord() }),
		mutates: true,
		updates: true,
		destructive: true,
		idempotent: true,
	}),
	tool({
		name: "resource.search",
		family: "resources",
		access: "every",
		title: "Search resources",
		description: "Find known resources by substring. Next: resource.get one.",
		details:
			"Search known resources by a case-insensitive substring of their id, type, path, symbol or language, in id order. Pages with `limit` and `cursor`.",
		args: () =>
			type({
				query: nonBlank,
				"resource_type?": resourceType,
				"limit?": listLimit,
				"cursor?": nonBlank,
			}),
		argDocs: {
			query: "Part of id, path or symbol.",
			resource_type: "Only this type.",
			limit: "Page size (default 200).",
			cursor: "Previous next_cursor.",
		},
		output: () => type({ resources: resourceRecord().array(), next_cursor: "string | null" }),
		mutates: false,
	}),
	tool({
		name: "resource.renew",
		family: "resources",
		access: WORKERS,
		actors: ["agent_id"],
		reads: "readable",
		title: "Renew a claim",
		description:
			"Extend your claim before expires_at; a suspended one needs rebase. Next: finish, then proposal.create.",
		details:
			"Extend the lease of a renewable claim you hold. A suspended claim (its resource changed) comes back only with `rebase: true`, which records the current content as its new base.",
		args: () =>
			type({
				claim_id: callerId,
				agent_id: callerId,
				"ttl_seconds?": ttl,
				"rebase?": "boolean",
			}),
		argDocs: {
			claim_id: "Claim to renew.",
			agent_id: "The holder: you.",
			ttl_seconds: "New lease from now.",
			rebase: "Accept the changed content.",
			idempotency_key: "Renews once on retry.",
			expected_revision: "Claim revision you read.",
		},
		output: () => type({ claim: claimRecord() }),
		mutates: true,
		updates: true,
	}),
	tool({
		name: "resource.revoke",
		family: "resources",
		visibility: "operator",
		title: "Revoke a claim",
		description: "Take away any live claim, with a reason.",
		details:
			"Revoke a live claim (active or suspended) whoever holds it; the `claim.revoked` event records the reason.",
		args: () => type({ claim_id: callerId, reason: nonBlank }),
		argDocs: {
			claim_id: "Claim to revoke.",
			reason: "Why; the event records it.",
			idempotency_key: "Revokes once on retry.",
			expected_revision: "Claim revision you read.",
		},
		output: () => type({ claim: claimRecord() }),
		mutates: true,
		updates: true,
		destructive: true,
	}),
	tool({
		name: "resource.expire",
		family: "resources",
		visibility: "operator",
		title: "Record expired claims",
		description: "Record every claim whose lease ran out as expired.",
		details:
			"Every live claim whose lease ran out by `at` (default now) becomes `expired`, with a `claim.expired` event each. The Chair does the same on every tick.",
		args: () => type({ "at?": timestamp }),
		argDocs: { at: "As of this time (RFC 3339).", idempotency_key: "Expires once on retry." },
		output: () => type({ claims: claimRecord().array() }),
		mutates: true,
		idempotent: true,
	}),
] as const;
