// patch.validate, and the evidence every gate reads: what the patch is, who voted on its current
// revision, which test run, approval and review count. patch.apply checks the same gates.

import { isPathType, type Scope } from "../domain/claims.ts";
import { covers, scopeOfId, uncovered, uncoveredChange } from "../domain/coverage.ts";
import { type ParsedPatch, PatchError, parsePatch, touchedPaths } from "../domain/patch.ts";
import { notFound } from "../errors.ts";
import { gitApply, patchPath, readPatch } from "../patches.ts";
import { evaluate, loadPolicy, PolicyError } from "../policy/index.ts";
import type { Evaluation, EvaluationInput, Gate, Policy } from "../policy/types.ts";
import type { Args } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import { contentHash } from "../repo/hash.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import type { ClaimRecord, ProposalRecord } from "../vocabulary/records.ts";
import type { Vote } from "../vocabulary/statuses.ts";
import { requireProposal, scopeOfResource, writeClaimsOf } from "./common.ts";
import type { Env } from "./env.ts";

/** What the database says about a proposal's current revision. */
export interface Evidence {
	proposal: ProposalRecord;
	resources: string[];
	/** Affected resources as scopes (symbol lines from their stored rows). */
	scopes: Scope[];
	/** The author's live write and exclusive claims. */
	claims: ClaimRecord[];
	patch: { sha256: string; strip: number; number: number };
	votes: EvaluationInput["votes"];
	passes: EvaluationInput["passes"];
	human: EvaluationInput["human"];
	security: EvaluationInput["security"];
}

export async function gatherEvidence(tx: Tx, proposalId: string, now: string): Promise<Evidence> {
	const proposal = await requireProposal(tx, proposalId);
	const resources = await tx.proposals.resources(proposal.id);
	const scopes: Scope[] = [];
	for (const id of resources) {
		const row = await tx.resources.get(id);
		scopes.push(row ? scopeOfResource(row) : scopeOfId(id));
	}
	const claims = await writeClaimsOf(tx, proposal.agent_id, now);
	const patch = await tx.proposals.currentPatch(proposal.id);
	if (!patch) throw notFound(`proposal ${proposal.id} has no patch revision`, { proposal_id: proposal.id });
	const roles = new Map((await tx.agents.list()).map((a) => [a.id, a.role]));
	const votes = (await tx.votes.list(proposal.id))
		.filter((v) => v.patch_revision === proposal.patch_revision)
		.map((v) => ({ agent_id: v.agent_id, role: roles.get(v.agent_id) ?? "", vote: v.vote as Vote }));
	const passes = await tx.testRuns.passes(proposal.id, proposal.patch_revision);
	const decision = await tx.approvals.latestDecision(proposal.id, proposal.patch_revision);
	const review = await tx.reviews.latest(proposal.id, proposal.patch_revision);
	return {
		proposal,
		resources,
		scopes,
		claims,
		patch,
		votes,
		passes,
		human:
			decision && decision.status !== "requested"
				? { status: decision.status, override_policy: decision.override_policy }
				: null,
		security: review ? { status: review.status } : null,
	};
}

export function evaluationInput(e: Evidence, parsed: ParsedPatch | undefined): EvaluationInput {
	return {
		risk: e.proposal.risk,
		revision: e.proposal.patch_revision,
		touched: parsed ? touchedPaths(parsed) : e.proposal.patch_files,
		added: parsed ? addedLines(parsed) : [],
		author: e.proposal.agent_id,
		votes: e.votes,
		passes: e.passes,
		expected_tests: e.proposal.expected_tests,
		rollback_notes: e.proposal.rollback_notes,
		human: e.human,
		security: e.security,
	};
}

/** The lines a patch adds, where it leaves them. */
export const addedLines = (parsed: ParsedPatch): EvaluationInput["added"] =>
	parsed.files.flatMap((f) =>
		f.new_path === null
			? []
			: f.added.map((a) => ({ path: f.new_path as string, line: a.line, text: a.text })),
	);

/** The stored patch of the current revision, parsed; a missing or malformed one is a failed gate. */
function readCurrentPatch(root: string, e: Evidence): { parsed?: ParsedPatch; gates: Gate[] } {
	const text = readPatch(root, e.patch.sha256);
	if (text === undefined) {
		return {
			gates: [
				{
					gate: "artifact",
					ok: false,
					reason: `the stored patch ${e.patch.sha256}.diff is missing or does not match its hash`,
				},
				{ gate: "parse", ok: false, reason: "not checked: no patch" },
			],
		};
	}
	try {
		return {
			parsed: parsePatch(text),
			gates: [
				{
					gate: "artifact",
					ok: true,
					reason: `patch revision ${e.patch.number} (${e.patch.sha256.slice(0, 12)})`,
				},
				{ gate: "parse", ok: true, reason: "the patch parses" },
			],
		};
	} catch (err) {
		const reason = err instanceof PatchError ? err.message : String(err);
		return {
			gates: [
				{ gate: "artifact", ok: true, reason: "stored" },
				{ gate: "parse", ok: false, reason },
			],
		};
	}
}

/** Claims gate: the author's live write/exclusive claims cover every affected resource and none is stale. */
async function claimsGate(root: string, e: Evidence): Promise<{ gate: Gate; stale: string[] }> {
	const missing = uncovered(e.scopes, e.claims);
	if (missing.length > 0) {
		return {
			gate: { gate: "claims", ok: false, reason: `unclaimed affected resource: ${missing.join(", ")}` },
			stale: [],
		};
	}
	const guard = new RepoGuard(root);
	const stale: string[] = [];
	for (const c of e.claims) {
		if (c.base_hash === "" || !isPathType(c.resource_type)) continue;
		if (!e.scopes.some((s) => covers(c, s))) continue; // a claim the proposal does not rely on
		const now = await contentHash(guard, c);
		if (now !== "" && now !== c.base_hash) stale.push(c.id);
	}
	return stale.length > 0
		? {
				gate: {
					gate: "claims",
					ok: false,
					reason: `stale claim base hash (the resource changed since it was claimed): ${stale.join(", ")}`,
				},
				stale,
			}
		: {
				gate: { gate: "claims", ok: true, reason: "the author's live claims cover every affected resource" },
				stale,
			};
}

export interface Report {
	valid: boolean;
	approvable: boolean;
	gates: Gate[];
	stale_claims: string[];
	policy: Evaluation | null;
	parsed: ParsedPatch | undefined;
}

/** Every gate of a proposal's current revision. Reads files; holds no transaction. */
export async function checkProposal(
	root: string,
	e: Evidence,
	policyOrError: Policy | PolicyError,
): Promise<Report> {
	const { parsed, gates: patchGates } = readCurrentPatch(root, e);
	const { gate: claims, stale } = await claimsGate(root, e);
	const structural: Gate[] = [claims, ...patchGates];
	if (parsed) {
		const problem = uncoveredChange(parsed.files, e.scopes);
		structural.push({
			gate: "coverage",
			ok: problem === undefined,
			reason: problem ?? "the proposal's resources cover every change",
		});
		const failure = await gitApply(root, patchPath(root, e.patch.sha256), parsed.strip, true);
		structural.push(
			failure === undefined
				? { gate: "apply_check", ok: true, reason: "git apply --check succeeds on the working tree" }
				: { gate: "apply_check", ok: false, reason: `git apply --check fails: ${failure}` },
		);
	} else {
		structural.push({ gate: "coverage", ok: false, reason: "not checked: the patch did not parse" });
		structural.push({ gate: "apply_check", ok: false, reason: "not checked: the patch did not parse" });
	}
	const valid = structural.every((g) => g.ok);
	if (policyOrError instanceof PolicyError) {
		return {
			valid,
			approvable: false,
			gates: [...structural, { gate: "policy", ok: false, reason: policyOrError.message }],
			stale_claims: stale,
			policy: null,
			parsed,
		};
	}
	const policy = evaluate(policyOrError, evaluationInput(e, parsed));
	return {
		valid,
		approvable: valid && policy.approvable,
		gates: [...structural, ...policy.gates],
		stale_claims: stale,
		policy,
		parsed,
	};
}

/**
 * The policy in effect, or the error that keeps it from loading (reported as a failed gate): the one
 * the owner holds (hot-reloaded, kept through a bad edit), else the project's file as it is now.
 */
export function policyOf(rt: Pick<Runtime, "root" | "policy">): Policy | PolicyError {
	if (rt.policy) return rt.policy;
	try {
		return loadPolicy(rt.root);
	} catch (err) {
		if (err instanceof PolicyError) return err;
		throw err;
	}
}

export async function validate(a: Args<"patch.validate">, env: Env) {
	const { e, reported } = await env.rt.store.withTransaction("read", async (tx) => {
		const e = await gatherEvidence(tx, a.proposal_id, env.now);
		return { e, reported: await tx.testEvidence.forRevision(e.proposal.id, e.proposal.patch_revision) };
	});
	const report = await checkProposal(env.rt.root, e, policyOf(env.rt));
	return {
		proposal: e.proposal,
		proposal_resources: e.resources,
		valid: report.valid,
		approvable: report.approvable,
		gates: report.gates,
		stale_claims: report.stale_claims,
		policy: report.policy,
		// What testers reported on this revision: shown, never counted as a pass by the tests gate.
		reported_evidence: reported,
	};
}
