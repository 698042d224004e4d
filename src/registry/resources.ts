import { type } from "arktype";
import { callerId, nonBlank, positiveInt } from "../domain/scalars.ts";
import { pendingRecord } from "./records.ts";
import { tool } from "./types.ts";

const claimOutput = type({ claim: pendingRecord });

export const resourceTools = [
	tool({
		name: "resource.claim",
		family: "resources",
		title: "Claim a resource",
		description:
			"Claim a file, directory, symbol or other resource for a task before proposing changes to it (read, write, review or exclusive). Conflicting claims are refused.",
		args: type({
			resource_type: nonBlank,
			resource_id: nonBlank,
			claim_type: nonBlank,
			task_id: callerId,
			"ttl_seconds?": positiveInt,
			"rationale?": nonBlank,
		}),
		output: type({ claim: pendingRecord, resource: pendingRecord }),
		mutates: true,
	}),
	tool({
		name: "resource.claim_status",
		family: "resources",
		title: "Claim status",
		description: "List claims, filtered by resource or agent.",
		args: type({ "resource_id?": nonBlank, "agent_id?": callerId }),
		output: type({ claims: pendingRecord.array() }),
		mutates: false,
	}),
	tool({
		name: "resource.get",
		family: "resources",
		title: "Get a resource",
		description: "Fetch one resource record.",
		args: type({ resource_id: nonBlank }),
		output: type({ resource: pendingRecord }),
		mutates: false,
	}),
	tool({
		name: "resource.release",
		family: "resources",
		title: "Release a claim",
		description: "Release a claim you hold.",
		args: type({ claim_id: callerId }),
		output: claimOutput,
		mutates: true,
		updates: true,
		destructive: true,
		idempotent: true,
	}),
	tool({
		name: "resource.search",
		family: "resources",
		title: "Search resources",
		description: "Search known resources by id, path, symbol or language.",
		args: type({ query: nonBlank, "resource_type?": nonBlank }),
		output: type({ resources: pendingRecord.array() }),
		mutates: false,
	}),
	tool({
		name: "resource.renew",
		family: "resources",
		title: "Renew a claim",
		description: "Extend the lease of a renewable claim you hold.",
		args: type({ claim_id: callerId, "ttl_seconds?": positiveInt }),
		output: claimOutput,
		mutates: true,
		updates: true,
	}),
] as const;
