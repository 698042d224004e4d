// The policy engine: POLICIES.ROUNDTABLE.md loaded and checked, and proposals evaluated against it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { detect, isHighRisk } from "./detect.ts";
import { PolicyError } from "./errors.ts";
import { uniqueRoles } from "./evaluate.ts";
import { defaultPolicy, POLICY_PATH, parsePolicy } from "./parse.ts";
import type { EvaluationInput, Policy } from "./types.ts";

export { dangerousCommands, highRiskPaths } from "./detect.ts";
export { PolicyError } from "./errors.ts";
export { evaluate } from "./evaluate.ts";
export { defaultPolicy, POLICY_PATH, PROFILE_NAMES, parsePolicy } from "./parse.ts";

/** The project's policy: its POLICIES.ROUNDTABLE.md, or the defaults when there is none. */
export function loadPolicy(root: string): Policy {
	let text: string;
	try {
		text = readFileSync(join(root, POLICY_PATH), "utf8");
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return defaultPolicy();
		throw new PolicyError(POLICY_PATH, 0, `cannot read: ${(err as Error).message}`);
	}
	return parsePolicy(text);
}

/** The roles that should review a proposal (reference §8.4), sorted. */
export function reviewRoles(
	policy: Policy,
	input: Pick<EvaluationInput, "risk" | "touched" | "added">,
): string[] {
	const { profiles, high_risk_paths } = detect(policy, input);
	const roles = ["Reviewer", ...profiles.flatMap((name) => policy.consensus[name]?.required_roles ?? [])];
	if (isHighRisk(input.risk) || high_risk_paths.length > 0) {
		roles.push("Security", ...(policy.consensus.security?.required_roles ?? []));
	}
	return uniqueRoles(roles);
}
