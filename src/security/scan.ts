// What security.review looks at, read before its transaction: a proposal's added lines or a
// resource's lines, scanned (src/domain/security-scan.ts) against the policy's dangerous commands.
import { parseCanonicalId } from "../domain/claims.ts";
import { parsePatch } from "../domain/patch.ts";
import { type Finding, scanLines } from "../domain/security-scan.ts";
import { failedPrecondition, invalidArgument, ToolError } from "../errors.ts";
import { policyOf } from "../gates/check.ts";
import { addedLines } from "../gates/evidence.ts";
import type { Env } from "../handlers/env.ts";
import { repoGuard } from "../handlers/env.ts";
import { requireProposal } from "../handlers/records.ts";
import { readPatch } from "../patches.ts";
import { DEFAULT_POLICY } from "../policy/defaults.ts";
import type { Args } from "../registry/index.ts";
import type { Runtime } from "../runtime.ts";
import { resourceLines } from "./resource-lines.ts";

/** What a review looked at, read before its transaction. */
export interface ReviewInput {
	findings: Finding[];
	patch_revision: number | null;
}

const dangerousCommands = (rt: Runtime) => {
	const policy = policyOf(rt);
	return "commands" in policy ? policy.commands.dangerous : DEFAULT_POLICY.commands.dangerous;
};

/** The scan, or (a manual verdict) none: only the patch revision the review binds to. */
export async function prepareReview(a: Args<"security.review">, env: Env): Promise<ReviewInput> {
	if (a.proposal_id === undefined && a.resource_id === undefined) {
		throw invalidArgument("security.review needs proposal_id or resource_id", { field: "proposal_id" });
	}
	const p =
		a.proposal_id === undefined
			? undefined
			: await env.rt.store.withTransaction("read", (tx) => requireProposal(tx, a.proposal_id as string));
	if (a.status !== undefined) return { findings: [], patch_revision: p?.patch_revision ?? null };
	const root = env.rt.root;
	if (p) {
		const text = readPatch(root, p.patch_sha256);
		if (text === undefined)
			throw failedPrecondition(`the stored patch of ${p.id} is missing`, { proposal_id: p.id });
		const added = addedLines(parsePatch(text));
		return { findings: scanLines(added, dangerousCommands(env.rt)), patch_revision: p.patch_revision };
	}
	const resourceId = a.resource_id as string;
	const row = await env.rt.store.withTransaction("read", (tx) => tx.resources.get(resourceId));
	const guard = repoGuard(env);
	const named = parseCanonicalId(resourceId);
	if (env.reads && named) {
		const why = guard.refusal(guard.relative(named.path, "resource_id"));
		if (why)
			throw new ToolError("permission_denied", `${named.path} may not be read: ${why}`, { path: named.path });
	}
	const lines = await resourceLines(guard, resourceId, {
		start: row?.start_line ?? null,
		end: row?.end_line ?? null,
	});
	return { findings: scanLines(lines, dangerousCommands(env.rt)), patch_revision: null };
}
