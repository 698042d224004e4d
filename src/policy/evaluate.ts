// A proposal against the policy: every detected profile applies, the strictest setting wins, and
// each gate says in words what is missing. The author's own vote never counts, and a human
// approval satisfies the human gate only (with override_policy it may also lift a veto).
import { detect, isHighRisk } from "./detect.ts";
import type { Evaluation, EvaluationInput, Gate, Policy, Profile, TestPass } from "./types.ts";

type Vote = EvaluationInput["votes"][number];

const APPROVE = new Set(["approve", "approve_with_notes"]);
const BLOCK = new Set(["revise", "reject", "veto"]);
/** Detected without a flag saying so, these profiles always need a security review. */
const SECURITY_REVIEW_PROFILES = new Set(["security", "dependency_change", "migration"]);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const list = (names: string[]) => names.join(", ");
const byProfiles = (names: string[]) => `the ${list(names)} profile${names.length === 1 ? "" : "s"}`;
const described = (votes: Vote[]) => list(votes.map((v) => `${v.agent_id}: ${v.vote}`));

/** Roles deduplicated case-insensitively (the first spelling wins), sorted. */
export function uniqueRoles(roles: string[]): string[] {
	const seen = new Map<string, string>();
	for (const role of roles) if (!seen.has(role.toLowerCase())) seen.set(role.toLowerCase(), role);
	return [...seen.values()].sort();
}

export function evaluate(policy: Policy, input: EvaluationInput): Evaluation {
	const found = detect(policy, input);
	const active = found.profiles.flatMap((name) => {
		const profile = policy.consensus[name];
		return profile ? [{ name, ...profile }] : [];
	});
	/** The detected profiles that set a flag; the reasons name them. */
	const setting = (flag: keyof Profile) => active.filter((p) => p[flag] === true).map((p) => p.name);
	const revision = input.revision === undefined ? "the current revision" : `revision ${input.revision}`;

	// One vote per agent (the latest, should the caller pass more), and never the author's.
	const latest = new Map(input.votes.map((v) => [v.agent_id, v]));
	const votes = [...latest.values()].filter((v) => v.agent_id !== input.author);
	const authorApproved = APPROVE.has(latest.get(input.author)?.vote ?? "");
	const approving = votes.filter((v) => APPROVE.has(v.vote));
	const blocking = votes.filter((v) => BLOCK.has(v.vote));
	const vetoing = votes.filter((v) => v.vote === "veto");

	// Strictest wins: the largest quorum and the smallest tolerance among profiles that set one.
	const quorums = active.flatMap((p) => (p.approvals_required === undefined ? [] : [p.approvals_required]));
	const tolerances = active.flatMap((p) => (p.blockers_allowed === undefined ? [] : [p.blockers_allowed]));
	const approvals_required = Math.max(1, ...quorums);
	const blockers_allowed = tolerances.length > 0 ? Math.min(...tolerances) : 0;

	const required_roles = uniqueRoles(active.flatMap((p) => p.required_roles));
	const approvedRoles = new Set(approving.map((v) => v.role.toLowerCase()));
	const missing_roles = required_roles.filter((role) => !approvedRoles.has(role.toLowerCase()));

	const sandboxBy = setting("tests_sandbox_required");
	const testsBy = [...new Set([...setting("tests_required"), ...sandboxBy])];
	// Where a profile asks for the sandbox, an unsandboxed pass is no pass.
	const passes = sandboxBy.length > 0 ? input.passes.filter((p) => p.sandboxed) : input.passes;
	const ignored = input.passes.length - passes.length;
	const rollbackBy = setting("rollback_plan_required");
	const humanBy = [
		...(isHighRisk(input.risk) ? [`risk ${input.risk}`] : []),
		...setting("human_approval_required"),
	];
	const securityBy = [
		...active
			.filter((p) => p.security_approval_required || SECURITY_REVIEW_PROFILES.has(p.name))
			.map((p) => p.name),
		// A symlink can make a reviewed path read something else later: a security reviewer looks at it.
		...[...new Set(input.symlinks ?? [])].sort().map((path) => `symlink ${path}`),
	];

	const human = input.human;
	const override = human?.status === "approved" && human.override_policy;
	// A human may overrule vote vetoes only where a profile says security_veto_blocks (they are
	// security vetoes there); elsewhere a veto blocks until the vote changes.
	const vetoesOverridable = setting("security_veto_blocks").length > 0;
	const vetoesOverridden = vetoing.length > 0 && vetoesOverridable && override;
	// An overridden veto no longer counts against blockers_allowed; revise/reject votes always do.
	const counted = vetoesOverridden ? blocking.filter((v) => v.vote !== "veto") : blocking;

	const quorum = (): [boolean, string] => {
		if (approving.length >= approvals_required) {
			return [true, `${plural(approving.length, "approval")}, ${approvals_required} needed`];
		}
		const note = authorApproved ? ` (${input.author}'s own vote does not count)` : "";
		return [false, `need ${plural(approvals_required, "approval")}, have ${approving.length}${note}`];
	};

	const blockers = (): [boolean, string] => {
		if (counted.length === 0) {
			return [true, vetoesOverridden ? "no blocking votes besides the overridden veto" : "no blocking votes"];
		}
		const have = `${plural(counted.length, "blocking vote")} (${described(counted)})`;
		if (counted.length <= blockers_allowed) return [true, `${have}, ${blockers_allowed} allowed`];
		return [false, `${have}, at most ${blockers_allowed} allowed: resolve them or get the votes changed`];
	};

	const vetoes = (): [boolean, string] => {
		const who = list(vetoing.map((v) => v.agent_id));
		if (vetoing.length === 0) return [true, "no vetoes"];
		if (vetoesOverridden) return [true, `veto by ${who} overridden by a human approval with override_policy`];
		if (vetoesOverridable) {
			return [false, `vetoed by ${who}: only a human approval with override_policy can overrule it`];
		}
		return [false, `vetoed by ${who}: a veto blocks until the vote changes`];
	};

	const roles = (): [boolean, string] => {
		if (required_roles.length === 0) return [true, "no roles required"];
		if (missing_roles.length === 0)
			return [true, `approved by every required role (${list(required_roles)})`];
		const s = missing_roles.length === 1 ? "" : "s";
		return [false, `missing approval from role${s} ${list(missing_roles)}`];
	};

	const expected = input.expected_tests ?? [];
	const ignoredNote =
		ignored > 0
			? `${plural(ignored, "unsandboxed pass")} not counted: ${byProfiles(sandboxBy)} require${sandboxBy.length === 1 ? "s" : ""} the sandbox`
			: "";
	const where = (p: TestPass) => `${p.id}, ${p.sandboxed ? "sandboxed" : "unsandboxed"}`;
	const tests = (): [boolean, string] => {
		if (expected.length > 0) {
			// The proposal's own expected tests are a promise: each must pass on this revision.
			const newest = expected.map((command) => passes.find((p) => p.command === command));
			const missing = expected.filter((_, i) => newest[i] === undefined);
			if (missing.length > 0) {
				return [
					false,
					`expected test without a passing run on ${revision}: ${missing.join(", ")}${ignoredNote && ` (${ignoredNote})`}`,
				];
			}
			return [
				true,
				`every expected test passed on ${revision} (${newest.map((p) => where(p as TestPass)).join("; ")})`,
			];
		}
		if (testsBy.length === 0) return [true, "not required"];
		const pass = passes[0];
		if (pass) return [true, `a passing test run for ${revision} (${where(pass)})`];
		return [
			false,
			`no passing test run for ${revision} (required by ${byProfiles(testsBy)}${ignoredNote && `; ${ignoredNote}`})`,
		];
	};

	const rollback = (): [boolean, string] => {
		if (rollbackBy.length === 0) return [true, "not required"];
		if ((input.rollback_notes ?? "").trim() !== "") return [true, "rollback plan given"];
		return [
			false,
			`no rollback plan: add rollback notes to the proposal (required by ${byProfiles(rollbackBy)})`,
		];
	};

	const humanApproval = (): [boolean, string] => {
		// A human's "no" stands whether or not the policy asked for a human.
		if (human?.status === "rejected") return [false, `a human rejected ${revision}`];
		if (humanBy.length === 0) return [true, "not required"];
		if (human?.status === "approved") return [true, "approved by a human"];
		return [false, `human approval required (${list(humanBy)}): none for ${revision}`];
	};

	const securityReview = (): [boolean, string] => {
		if (securityBy.length === 0) return [true, "not required"];
		switch (input.security?.status) {
			case "approved":
				return [true, "security review approved"];
			case "veto":
				if (override) return [true, "security veto overridden by a human approval with override_policy"];
				return [
					false,
					`security review vetoed ${revision}: only a human approval with override_policy can overrule it`,
				];
			case "needs_changes":
				return [false, `security review asks for changes to ${revision}`];
			default:
				return [false, `security review required (${list(securityBy)}): none for ${revision}`];
		}
	};

	const checks = {
		quorum,
		blockers,
		vetoes,
		roles,
		tests,
		rollback_plan: rollback,
		human_approval: humanApproval,
		security_review: securityReview,
	};
	const gates: Gate[] = Object.entries(checks).map(([gate, check]) => {
		const [ok, reason] = check();
		return { gate, ok, reason };
	});
	const failed = gates.find((g) => !g.ok);
	return {
		profiles: found.profiles,
		high_risk_paths: found.high_risk_paths,
		dangerous_commands: found.dangerous_commands,
		approvals: approving.length,
		approvals_required,
		blockers: blocking.length,
		blockers_allowed,
		vetoes: vetoing.length,
		approval_votes: approving.map((v) => `${v.agent_id}:${v.vote}`),
		blocking_votes: blocking.map((v) => `${v.agent_id}:${v.vote}`),
		required_roles,
		missing_roles,
		tests_required: testsBy.length > 0 || expected.length > 0,
		tests_sandbox_required: sandboxBy.length > 0,
		rollback_plan_required: rollbackBy.length > 0,
		human_approval_required: humanBy.length > 0,
		security_review_required: securityBy.length > 0,
		gates,
		approvable: failed === undefined,
		summary: failed?.reason ?? "proposal satisfies policy",
	};
}
