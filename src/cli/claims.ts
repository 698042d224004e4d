// `claims list|claim|release|revoke|expire|reconcile`: the operator's view of claims and the
// actions only the operator takes (resource.revoke, resource.expire).
import { call } from "../dispatch.ts";
import { quoted } from "../domain/text.ts";
import type { Result } from "../registry/index.ts";
import type { ClaimRecord } from "../vocabulary/records.ts";
import { type Flags, UsageError } from "./args.ts";
import { print } from "./output.ts";
import { command } from "./runtime.ts";

const line = (c: ClaimRecord) => `${c.id} ${c.agent_id} ${c.claim_type} ${c.status} ${c.resource_id}`;

const need = (flags: Flags, name: string): string => {
	const value = flags[name];
	if (typeof value !== "string") throw new UsageError(`--${name} is required`);
	return value;
};

export const list = command(async (rt, ctx, flags) => {
	const claims: ClaimRecord[] = [];
	let cursor: string | null = null;
	do {
		// Annotated: `cursor` feeds the next call's arguments, which TypeScript cannot infer around.
		const out: Result<"resource.claim_status"> = await call(
			rt,
			"resource.claim_status",
			{
				...(flags.agent !== undefined && { agent_id: flags.agent }),
				...(flags.resource !== undefined && { resource_id: flags.resource }),
				...(flags.task !== undefined && { task_id: flags.task }),
				...(flags.status !== undefined && { status: flags.status }),
				limit: 1000,
				...(cursor !== null && { cursor }),
			},
			ctx,
		);
		claims.push(...out.claims);
		cursor = out.next_cursor;
	} while (cursor !== null);
	return print(flags, { claims }, claims.map(line));
});

export const claim = command(async (rt, ctx, flags) => {
	const out = await call(
		rt,
		"resource.claim",
		{
			agent_id: need(flags, "agent"),
			task_id: need(flags, "task"),
			resource_type: need(flags, "resource-type"),
			resource_id: need(flags, "resource-id"),
			claim_type: (flags["claim-type"] as string | undefined) ?? "write",
			...(flags.path !== undefined && { path: flags.path }),
			...(flags.symbol !== undefined && { symbol: flags.symbol }),
			...(flags.ttl !== undefined && { ttl_seconds: flags.ttl }),
			...(flags.rationale !== undefined && { rationale: flags.rationale }),
		},
		ctx,
	);
	return print(flags, out, [line(out.claim)]);
});

export const release = command(async (rt, ctx, flags) => {
	const out = await call(
		rt,
		"resource.release",
		{
			claim_id: need(flags, "claim"),
			...(flags.agent !== undefined && { agent_id: flags.agent }),
			...(flags.force === true && { force: true }),
			...(flags.reason !== undefined && { reason: flags.reason }),
		},
		ctx,
	);
	return print(flags, out, [line(out.claim)]);
});

export const revoke = command(async (rt, ctx, flags) => {
	const out = await call(
		rt,
		"resource.revoke",
		{ claim_id: need(flags, "claim"), reason: need(flags, "reason") },
		ctx,
	);
	return print(flags, out, [line(out.claim)]);
});

export const expire = command(async (rt, ctx, flags) => {
	const at = flags.at as string | undefined;
	if (at !== undefined && Number.isNaN(Date.parse(at)))
		throw new UsageError(`--at must be a timestamp like 2026-11-29T20:00:00Z (was ${quoted(at)})`);
	const out = await call(
		rt,
		"resource.expire",
		at === undefined ? {} : { at: new Date(at).toISOString() },
		ctx,
	);
	return print(flags, out, out.claims.map(line));
});

export const reconcile = command(async (rt, ctx, flags) => {
	const out = await call(
		rt,
		"resource.claim_status",
		{
			reconcile: true,
			status: "suspended",
			...(flags.agent !== undefined && { agent_id: flags.agent }),
			limit: 1000,
		},
		ctx,
	);
	const now = new Set(out.suspended);
	const justSuspended = out.claims.filter((c) => now.has(c.id));
	return print(flags, { suspended: justSuspended }, justSuspended.map(line));
});
