// The gates of a proposal's current revision: the stored patch, claims (covering and fresh),
// coverage, `git apply --check`, and the policy's own gates. patch.validate reports them; patch.apply
// checks the same ones under the repository lock.

import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../domain/canonical.ts";
import { isPathType } from "../domain/claims.ts";
import { covers, uncovered, uncoveredChange } from "../domain/coverage.ts";
import { type ParsedPatch, PatchError, parsePatch } from "../domain/patch.ts";
import type { Env } from "../handlers/env.ts";
import { gitApply, patchPath, readPatch } from "../patches.ts";
import { evaluate, loadPolicy, PolicyError } from "../policy/index.ts";
import type { Evaluation, Gate, Policy } from "../policy/types.ts";
import type { Args } from "../registry/index.ts";
import { RepoGuard } from "../repo/guard.ts";
import { contentHash } from "../repo/hash.ts";
import type { Runtime } from "../runtime.ts";
import { type Evidence, evaluationInput, gatherEvidence } from "./evidence.ts";

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
	/** The files the revision touches that changed in the project since its base (none: empty). */
	moved_since_base: string[];
	policy: Evaluation | null;
	parsed: ParsedPatch | undefined;
}

/**
 * The paths a revision touches whose bytes in the project are no longer what its base held: applying
 * it there would apply bytes nobody reviewed (git apply would merge around the change).
 */
function movedSinceBase(root: string, base: Record<string, string>): string[] | undefined {
	const guard = new RepoGuard(root);
	const moved = Object.entries(base)
		.filter(([path, was]) => currentSha256(guard, path) !== was)
		.map(([path]) => path)
		.sort();
	return moved.length > 0 ? moved : undefined;
}

/** A file's sha256 in the project, '' when there is none (a link: its target's text). */
function currentSha256(guard: RepoGuard, path: string): string {
	try {
		const rel = guard.entry(path, "patch");
		const full = join(guard.root, rel);
		const stat = lstatSync(full, { throwIfNoEntry: false });
		if (!stat) return "";
		return sha256(stat.isSymbolicLink() ? Buffer.from(readlinkSync(full)) : readFileSync(full));
	} catch {
		return "?";
	}
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
	let moved: string[] | undefined;
	if (parsed) {
		const problem = uncoveredChange(parsed.files, e.scopes);
		structural.push({
			gate: "coverage",
			ok: problem === undefined,
			reason: problem ?? "the proposal's resources cover every change",
		});
		moved = e.patch.base ? movedSinceBase(root, e.patch.base) : undefined;
		const failure = moved
			? undefined
			: await gitApply(root, patchPath(root, e.patch.sha256), parsed.strip, true);
		structural.push(
			moved
				? {
						gate: "apply_check",
						ok: false,
						reason: `changed in the project since revision ${e.patch.number}'s base: ${moved.join(", ")} (its author runs workspace.sync and proposes again: no merged bytes are applied unreviewed)`,
					}
				: failure === undefined
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
			moved_since_base: moved ?? [],
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
		moved_since_base: moved ?? [],
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

/** patch.validate: every gate, and what testers reported on this revision. */
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
