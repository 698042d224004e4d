// Human approvals and security reviews. A human decision is the operator's alone; an approval
// satisfies the human gate only. A security review scans (or records a manual verdict) and binds to
// the proposal's current patch revision.
import { statSync } from "node:fs";
import { actorId } from "../context.ts";
import { parseCanonicalId } from "../domain/claims.ts";
import { echo } from "../domain/did-you-mean.ts";
import { parsePatch } from "../domain/patch.ts";
import { type Finding, type ScannedLine, scanLines, verdictOf } from "../domain/security-scan.ts";
import type { Env } from "../engine/env.ts";
import { repoGuard } from "../engine/env.ts";
import { checkRevision, newRecordId, requireProposal, requireTask } from "../engine/records.ts";
import { conflict, failedPrecondition, invalidArgument, notFound, ToolError } from "../errors.ts";
import { policyOf } from "../gates/check.ts";
import { addedLines } from "../gates/evidence.ts";
import { readPatch } from "../patches.ts";
import { DEFAULT_POLICY } from "../policy/defaults.ts";
import type { Args } from "../registry/index.ts";
import { listFiles } from "../repo/files.ts";
import type { RepoGuard } from "../repo/guard.ts";
import { readText } from "../repo/read.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import type { ApprovalRecord } from "../vocabulary/records.ts";

async function requireApproval(tx: Tx, id: string): Promise<ApprovalRecord> {
	const approval = await tx.approvals.get(id);
	if (!approval) throw notFound(`approval ${id} not found`, { approval_id: id });
	return approval;
}

const DECISION_FIELDS = ["status", "decision_md", "decided_by", "override_policy"] as const;

export async function requestApproval(tx: Tx, a: Args<"human.request_approval">, env: Env) {
	if (a.status !== undefined) return decideRequest(tx, a, env);
	const stray = DECISION_FIELDS.find((f) => a[f] !== undefined);
	if (stray)
		throw invalidArgument(`${stray} belongs to a decision: give approval_id and status`, { field: stray });
	const proposal = a.proposal_id === undefined ? undefined : await requireProposal(tx, a.proposal_id);
	const taskId = a.task_id ?? proposal?.task_id ?? null;
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	const id = await newRecordId(
		"approval",
		{ field: "approval_id", value: a.approval_id, label: "approval" },
		(x) => tx.approvals.get(x),
	);
	const approval = await tx.approvals.request(
		{
			id,
			proposal_id: proposal?.id ?? null,
			task_id: taskId,
			subject: a.subject,
			reason_md: a.reason_md,
			requested_by: a.requested_by ?? actorId(env.ctx),
			patch_revision: proposal?.patch_revision ?? null,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "approval.requested",
			actor_id: approval.requested_by,
			run_id: proposal?.run_id ?? null,
			task_id: taskId,
			payload: {
				approval_id: id,
				proposal_id: approval.proposal_id,
				subject: approval.subject,
				patch_revision: approval.patch_revision,
			},
		},
		env.now,
	);
	return { approval };
}

/** A decision on an existing request through human.request_approval (the seed's way): the operator's alone. */
async function decideRequest(tx: Tx, a: Args<"human.request_approval">, env: Env) {
	if (env.ctx.principal.kind !== "operator") {
		throw new ToolError("permission_denied", "only the operator decides human approvals");
	}
	if (a.approval_id === undefined) {
		throw invalidArgument("a decision needs the approval_id of a request (create one without status first)", {
			field: "approval_id",
		});
	}
	return decideApproval(tx, { ...a, approval_id: a.approval_id, status: a.status as Decision }, env);
}

/** human.decide: the operator's decision, as the CLI and the dashboard make it. */
export const decide = (tx: Tx, a: Args<"human.decide">, env: Env) => decideApproval(tx, a, env);

type Decision = "approved" | "rejected";

async function decideApproval(
	tx: Tx,
	a: {
		approval_id: string;
		status: Decision;
		proposal_id?: string;
		decision_md?: string;
		decided_by?: string;
		override_policy?: boolean;
		expected_revision?: number;
	},
	env: Env,
) {
	const request = await requireApproval(tx, a.approval_id);
	checkRevision(request, a.expected_revision);
	if (a.proposal_id !== undefined && a.proposal_id !== request.proposal_id) {
		throw invalidArgument(
			`approval ${request.id} is about ${request.proposal_id ?? "no proposal"}, not ${a.proposal_id}`,
			{
				field: "proposal_id",
			},
		);
	}
	if (a.override_policy && a.status !== "approved") {
		throw invalidArgument("override_policy goes with an approval, not a rejection", {
			field: "override_policy",
		});
	}
	const approval = await tx.approvals.decide(
		request.id,
		{
			status: a.status,
			decided_by: a.decided_by ?? "operator",
			decision_md: a.decision_md ?? null,
			override_policy: a.override_policy ?? false,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "approval.decided",
			actor_id: approval.decided_by ?? "operator",
			task_id: approval.task_id,
			payload: {
				approval_id: approval.id,
				proposal_id: approval.proposal_id,
				status: approval.status,
				override_policy: approval.override_policy,
				patch_revision: approval.patch_revision,
				previous_status: request.status,
			},
		},
		env.now,
	);
	return { approval };
}

export async function approvalStatus(tx: Tx, a: Args<"human.approval_status">) {
	const approval = await requireApproval(tx, a.approval_id);
	const proposal = approval.proposal_id === null ? undefined : await tx.proposals.get(approval.proposal_id);
	return { approval, current: proposal !== undefined && approval.patch_revision === proposal.patch_revision };
}

/** What a review looked at, read before its transaction. */
interface ReviewInput {
	findings: Finding[];
	patch_revision: number | null;
}

const dangerousCommands = (rt: Runtime) => {
	const policy = policyOf(rt);
	return "commands" in policy ? policy.commands.dangerous : DEFAULT_POLICY.commands.dangerous;
};

/** The lines a resource-only review scans: the resource's current content. */
async function resourceLines(
	guard: RepoGuard,
	resourceId: string,
	lines: { start: number | null; end: number | null },
): Promise<ScannedLine[]> {
	const named = parseCanonicalId(resourceId);
	if (!named) {
		throw invalidArgument(
			`only file:, directory: and symbol: resources can be scanned; give status for a manual review of ${echo(resourceId)}`,
			{ field: "resource_id" },
		);
	}
	const asLines = (path: string, text: string, from = 1, to = Number.POSITIVE_INFINITY): ScannedLine[] =>
		text
			.split("\n")
			.map((t, i) => ({ path, line: i + 1, text: t }))
			.filter((l) => l.line >= from && l.line <= to);
	const read = (path: string) => {
		const text = readText(guard, path, 16 * 1024 * 1024);
		if (text === undefined) throw notFound(`${path} cannot be read as text`, { path });
		return text;
	};
	if (named.type === "file") return asLines(named.path, read(named.path));
	if (named.type === "symbol") {
		if (lines.start === null || lines.end === null)
			throw notFound(`resource ${resourceId} has no known lines: claim it first`, {
				resource_id: resourceId,
			});
		return asLines(named.path, read(named.path), lines.start, lines.end);
	}
	const dir = guard.resolve(named.path === "" ? "." : named.path);
	if (!statSync(dir.abs).isDirectory())
		throw invalidArgument(`${named.path} is not a directory`, { field: "resource_id" });
	const out: ScannedLine[] = [];
	for (const path of await listFiles(guard.root, dir.rel)) {
		const text = readText(guard, path, 16 * 1024 * 1024);
		if (text !== undefined) out.push(...asLines(path, text));
	}
	return out;
}

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

function summaryOf(findings: Finding[]): string {
	if (findings.length === 0) return "No security findings.";
	const worst = findings[0] as Finding;
	const counts = new Map<string, number>();
	for (const f of findings) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
	const tally = [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
	return `${findings.length} finding(s) (${tally}); first: ${worst.code} at ${worst.path}:${worst.line}: ${worst.message}`;
}

export async function review(tx: Tx, a: Args<"security.review">, env: Env, input: ReviewInput) {
	const proposal = a.proposal_id === undefined ? undefined : await requireProposal(tx, a.proposal_id);
	if (proposal && input.patch_revision !== proposal.patch_revision) {
		throw conflict(`proposal ${proposal.id} got a new patch revision during the review; review again`, {
			proposal_id: proposal.id,
		});
	}
	if (a.task_id !== undefined) await requireTask(tx, a.task_id);
	const id = await newRecordId(
		"securityReview",
		{ field: "review_id", value: a.review_id, label: "security review" },
		(x) => tx.reviews.get(x),
	);
	const manual = a.status !== undefined;
	const status = a.status ?? verdictOf(input.findings);
	const stored = await tx.reviews.insert(
		{
			id,
			proposal_id: proposal?.id ?? null,
			resource_id: a.resource_id ?? null,
			task_id: a.task_id ?? proposal?.task_id ?? null,
			reviewer_id: a.reviewer_id ?? "security-1",
			status,
			mode: manual ? "manual" : "auto",
			summary_md: a.summary_md ?? (manual ? "Security review recorded." : summaryOf(input.findings)),
			findings: input.findings,
			patch_revision: input.patch_revision,
		},
		env.now,
	);
	await tx.events.append(
		{
			type: "security.reviewed",
			actor_id: stored.reviewer_id,
			run_id: proposal?.run_id ?? null,
			task_id: stored.task_id,
			payload: {
				review_id: stored.id,
				proposal_id: stored.proposal_id,
				resource_id: stored.resource_id,
				status,
				mode: stored.mode,
				findings: input.findings.length,
				patch_revision: stored.patch_revision,
			},
		},
		env.now,
	);
	return { review: stored, findings: input.findings };
}
