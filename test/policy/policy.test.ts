// The policy engine: POLICIES.ROUNDTABLE.md merged over the defaults (every bad input a PolicyError
// naming the Markdown file and line), and proposals evaluated with every rule enforced.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { initProject } from "../../src/init/index.ts";
import { DEFAULT_POLICY, policyMarkdown } from "../../src/policy/defaults.ts";
import {
	defaultPolicy,
	evaluate,
	loadPolicy,
	POLICY_PATH,
	PolicyError,
	parsePolicy,
	reviewRoles,
} from "../../src/policy/index.ts";
import type { EvaluationInput, Policy, VoteValue } from "../../src/policy/types.ts";
import { tempDir } from "../_helpers/helpers.ts";

/** Joins lines into a file; the n-th element is line n. */
const lines = (...ls: string[]) => `${ls.join("\n")}\n`;
/** A Markdown file holding one yaml block whose first yaml line is line 4. */
const doc = (...yaml: string[]) => lines("# Policy", "", "```yaml", ...yaml, "```");

/** The PolicyError parsing `markdown` throws; fails the test if it parses or throws anything else. */
function policyError(markdown: string, file = "P.md"): PolicyError {
	let thrown: unknown;
	try {
		parsePolicy(markdown, file);
	} catch (err) {
		thrown = err;
	}
	if (thrown === undefined) throw new Error(`expected a PolicyError, but the policy parsed:\n${markdown}`);
	expect(thrown).toBeInstanceOf(PolicyError);
	return thrown as PolicyError;
}
const errorOf = (markdown: string) => policyError(markdown).message;

describe("parsing", () => {
	test("a file without yaml blocks is exactly the defaults, which come from DEFAULT_POLICY", () => {
		const policy = parsePolicy("# Policies\n\nNothing here yet.\n");
		expect(policy).toEqual(defaultPolicy());
		expect(policy.consensus.default).toEqual({
			approvals_required: 2,
			blockers_allowed: 0,
			required_roles: [],
			tests_required: false,
			human_approval_required: false,
			security_veto_blocks: false,
			security_approval_required: false,
			rollback_plan_required: false,
			tests_sandbox_required: false,
		});
		expect(policy.consensus.dependency_change?.tests_required).toBe(true);
		expect(policy.consensus.migration?.tests_required).toBe(true);
		expect(policy.consensus.security?.approvals_required).toBeUndefined();
		expect(policy.architecture).toEqual({ min_files: 10, min_top_level_dirs: 3 });
		expect(policy.risk).toEqual(DEFAULT_POLICY.risk);
		expect(policy.commands).toEqual(DEFAULT_POLICY.commands);
		expect(Object.keys(policy.consensus)).toEqual(Object.keys(DEFAULT_POLICY.consensus));
	});

	test("the file init writes parses to exactly the defaults", async () => {
		expect(parsePolicy(policyMarkdown())).toEqual(defaultPolicy());
		const root = tempDir();
		await initProject(root);
		expect(loadPolicy(root)).toEqual(defaultPolicy());
	});

	test("a missing file gives the defaults; an unreadable one names the file", () => {
		const root = tempDir();
		expect(loadPolicy(root)).toEqual(defaultPolicy());
		const dir = tempDir();
		// A directory where the file should be cannot be read as text.
		require("node:fs").mkdirSync(join(dir, POLICY_PATH));
		expect(() => loadPolicy(dir)).toThrow(/^POLICIES\.ROUNDTABLE\.md:0: cannot read: /);
	});

	test("loadPolicy reads <root>/POLICIES.ROUNDTABLE.md and names it in errors", () => {
		const root = tempDir();
		writeFileSync(join(root, POLICY_PATH), doc("architecture:", "  min_files: 4"));
		expect(loadPolicy(root).architecture).toEqual({ min_files: 4, min_top_level_dirs: 3 });
		writeFileSync(join(root, POLICY_PATH), doc("architecture:", "  min_file: 4"));
		expect(() => loadPolicy(root)).toThrow(
			"POLICIES.ROUNDTABLE.md:5: unknown key 'architecture.min_file' (did you mean 'architecture.min_files'?)",
		);
	});

	test("a profile in the file overrides only the fields it sets", () => {
		const policy = parsePolicy(doc("consensus:", "  security:", "    approvals_required: 3"));
		expect(policy.consensus.security).toEqual({
			...defaultPolicy().consensus.security,
			approvals_required: 3,
		} as Policy["consensus"][string]);
		expect(policy.consensus.security?.required_roles).toEqual(["Security"]);
		expect(policy.consensus.security?.human_approval_required).toBe(true);
		expect(policy.consensus.default).toEqual(defaultPolicy().consensus.default);
	});

	test("lists replace lists", () => {
		const policy = parsePolicy(
			doc("risk:", "  high_paths: ['secrets/**']", "consensus:", "  migration:", "    required_roles: [DBA]"),
		);
		expect(policy.risk.high_paths).toEqual(["secrets/**"]);
		expect(policy.consensus.migration?.required_roles).toEqual(["DBA"]);
		expect(policy.commands.dangerous).toEqual(DEFAULT_POLICY.commands.dangerous);
	});

	test("blocks deep-merge in order, later blocks winning field by field", () => {
		const policy = parsePolicy(
			lines(
				"```yaml",
				"consensus: { default: { approvals_required: 3, tests_required: true } }",
				"architecture: { min_files: 5 }",
				"```",
				"Some prose.",
				"```yaml",
				"consensus: { default: { approvals_required: 4 } }",
				"```",
			),
		);
		expect(policy.consensus.default?.approvals_required).toBe(4);
		expect(policy.consensus.default?.tests_required).toBe(true);
		expect(policy.architecture).toEqual({ min_files: 5, min_top_level_dirs: 3 });
	});

	test("null unsets a quorum; an empty section sets nothing", () => {
		const policy = parsePolicy(
			doc(
				"consensus:",
				"  architecture:",
				"    approvals_required: null",
				"    blockers_allowed: ~",
				"risk:",
			),
		);
		expect(policy.consensus.architecture?.approvals_required).toBeUndefined();
		expect(policy.consensus.architecture?.blockers_allowed).toBeUndefined();
		expect(policy.consensus.architecture?.required_roles).toEqual(["Architect", "Reviewer"]);
		expect(policy.risk).toEqual(DEFAULT_POLICY.risk);
		expect(parsePolicy("```yaml\n```\n")).toEqual(defaultPolicy());
	});

	test("only top-level yaml fences count: other languages, nested examples and indented code are prose", () => {
		const policy = parsePolicy(
			lines(
				"```json",
				'{ "architecture": { "min_files": 1 } }',
				"```",
				"",
				"- an example in a list:",
				"",
				"  ```yaml",
				"  architecture: { min_files: 2 }",
				"  ```",
				"",
				"> ```yaml",
				"> architecture: { min_files: 3 }",
				"> ```",
				"",
				"    architecture: { min_files: 4 }",
				"",
				"```yaml title=ours",
				"architecture: { min_top_level_dirs: 5 }",
				"```",
				"~~~yaml",
				"architecture: { min_files: 6 }",
				"~~~",
			),
		);
		expect(policy.architecture).toEqual({ min_files: 6, min_top_level_dirs: 5 });
	});

	test("parsing does not share state with the defaults", () => {
		const policy = parsePolicy("");
		policy.consensus.default?.required_roles.push("Mutated");
		policy.risk.high_paths.length = 0;
		expect(defaultPolicy().consensus.default?.required_roles).toEqual([]);
		expect(parsePolicy("").risk.high_paths).toEqual(DEFAULT_POLICY.risk.high_paths);
	});
});

describe("parse errors name the Markdown file and line", () => {
	test("unknown keys, with a did-you-mean", () => {
		const e = policyError(doc("consensus:", "  default:", "    aprovals_required: 3"));
		expect(e.message).toBe(
			"P.md:6: unknown key 'consensus.default.aprovals_required' (did you mean 'consensus.default.approvals_required'?)",
		);
		expect(e.file).toBe("P.md");
		expect(e.line).toBe(6);
		expect(errorOf(doc("consensus:", "  migrations: {}"))).toBe(
			"P.md:5: unknown key 'consensus.migrations' (did you mean 'consensus.migration'?)",
		);
		expect(errorOf(doc("risk:", "  high_path: []"))).toBe(
			"P.md:5: unknown key 'risk.high_path' (did you mean 'risk.high_paths'?)",
		);
		expect(errorOf(doc("comands: {}"))).toBe("P.md:4: unknown key 'comands' (did you mean 'commands'?)");
		expect(errorOf(doc("risk: {}", "", "widgets: 3"))).toBe("P.md:6: unknown key 'widgets'");
	});

	test("the line counts from the block's own fence, after earlier blocks and prose", () => {
		const md = lines(
			"# Policy", // 1
			"", // 2
			"```yaml", // 3
			"risk: { high_paths: [] }", // 4
			"```", // 5
			"", // 6
			"Prose.", // 7
			"", // 8
			"  ```yaml", // 9: indented fences still count
			"  consensus:", // 10
			"    default: { tests_requird: true }", // 11
			"  ```", // 12
		);
		expect(errorOf(md)).toBe(
			"P.md:11: unknown key 'consensus.default.tests_requird' (did you mean 'consensus.default.tests_required'?)",
		);
		expect(errorOf(md.replaceAll("\n", "\r\n"))).toStartWith("P.md:11: ");
	});

	test("wrong types", () => {
		expect(errorOf(doc("consensus:", "  default:", "    tests_required: yes"))).toBe(
			`P.md:6: 'consensus.default.tests_required' must be true or false (was "yes")`,
		);
		expect(errorOf(doc("consensus:", "  default:", "    approvals_required: -1"))).toBe(
			"P.md:6: 'consensus.default.approvals_required' must be an integer of zero or more, or null (was -1)",
		);
		expect(errorOf(doc("consensus: { security: { blockers_allowed: 1.5 } }"))).toBe(
			"P.md:4: 'consensus.security.blockers_allowed' must be an integer of zero or more, or null (was 1.5)",
		);
		expect(errorOf(doc("architecture:", "  min_files: 0"))).toBe(
			"P.md:5: 'architecture.min_files' must be a positive integer (was 0)",
		);
		expect(errorOf(doc("consensus:", "  migration:", "    required_roles: Security"))).toBe(
			`P.md:6: 'consensus.migration.required_roles' must be a list of strings (use [] for none) (was "Security")`,
		);
		expect(errorOf(doc("commands:", "  dangerous:", "    - rm", "    - 7"))).toBe(
			"P.md:7: 'commands.dangerous[1]' must be a non-empty string (was 7)",
		);
		expect(errorOf(doc("consensus: 5"))).toBe("P.md:4: 'consensus' must be a mapping (was 5)");
		expect(errorOf(doc("consensus:", "  default: [1]"))).toBe(
			"P.md:5: 'consensus.default' must be a mapping (was a list)",
		);
		expect(errorOf(doc("- risk"))).toBe(
			"P.md:4: a yaml block must be a mapping of keys to values (was a list)",
		);
	});

	test("YAML syntax errors", () => {
		const e = policyError(
			lines("intro", "", "```yaml", "risk: {}", "```", "```yaml", "risk:", "  high_paths: [a", "```"),
		);
		expect(e.message).toStartWith("P.md:8: invalid YAML: ");
		expect(errorOf(doc("risk: { high_paths: *paths }"))).toBe(
			"P.md:4: invalid YAML: alias *paths names no anchor",
		);
	});

	test("an unclosed fence is an error at the line that opens it", () => {
		expect(errorOf(lines("# Policy", "", "```yaml", "risk: {}"))).toBe(
			"P.md:3: unterminated yaml fence: close it with a ``` line",
		);
		// An unclosed fence of another language would hide every yaml block after it.
		expect(errorOf(lines("```yaml", "risk: {}", "```", "text", "", "````sh", "rm -rf x", "```"))).toBe(
			"P.md:6: unterminated code fence '````sh' (any yaml block after it would be ignored): close it with a ```` line",
		);
	});
});

// ---- evaluation ----

const vote = (agent_id: string, role: string, v: VoteValue = "approve") => ({ agent_id, role, vote: v });

/** A normal-risk one-file change by implementer-1, nothing voted or proven yet; revision 3. */
function input(over: Partial<EvaluationInput> = {}): EvaluationInput {
	return {
		risk: "normal",
		touched: ["src/app.ts"],
		added: [],
		author: "implementer-1",
		revision: 3,
		votes: [],
		passes: [],
		rollback_notes: null,
		human: null,
		security: null,
		...over,
	};
}
/** A passing run of the current revision; sandboxed unless said. */
const pass = (id = "TR-1", command = "bun test", sandboxed = true) => ({ id, command, sandboxed });
const twoApprovals = [vote("reviewer-1", "Reviewer"), vote("reviewer-2", "Reviewer")];
const policy = defaultPolicy();
const gate = (e: ReturnType<typeof evaluate>, name: string) => {
	const g = e.gates.find((x) => x.gate === name);
	if (!g) throw new Error(`no gate ${name}`);
	return g;
};
const profilesOf = (over: Partial<EvaluationInput>) => evaluate(policy, input(over)).profiles;
const added = (...texts: string[]) => texts.map((text, i) => ({ path: "scripts/x.sh", line: i + 1, text }));

describe("profile detection", () => {
	test("default always; nothing else for a small ordinary change", () => {
		expect(profilesOf({})).toEqual(["default"]);
	});

	test("architecture: enough files, or enough top-level directories (root files span none)", () => {
		const files = (n: number, dir = "src/") => Array.from({ length: n }, (_, i) => `${dir}f${i}.ts`);
		expect(profilesOf({ touched: files(10) })).toEqual(["default", "architecture"]);
		expect(profilesOf({ touched: files(9) })).toEqual(["default"]);
		expect(profilesOf({ touched: [...files(4), ...files(4)] })).toEqual(["default"]); // duplicates count once
		expect(profilesOf({ touched: ["src/a.ts", "test/a.ts", "docs/a.md"] })).toEqual([
			"default",
			"architecture",
		]);
		expect(profilesOf({ touched: ["src/a.ts", "test/a.ts", "README.md", "LICENSE"] })).toEqual(["default"]);
		const custom = parsePolicy(doc("architecture: { min_files: 2, min_top_level_dirs: 9 }"));
		expect(evaluate(custom, input({ touched: ["a.ts", "b.ts"] })).profiles).toEqual([
			"default",
			"architecture",
		]);
	});

	test("security: high or critical risk, or a high-risk path (picomatch, dotfiles, basename patterns)", () => {
		expect(profilesOf({ risk: "high" })).toEqual(["default", "security"]);
		expect(profilesOf({ risk: "critical" })).toEqual(["default", "security"]);
		expect(profilesOf({ risk: "low" })).toEqual(["default"]);
		const e = evaluate(
			policy,
			input({
				touched: [
					"auth/login.ts",
					".env.local",
					"config/.env",
					"services/api/Dockerfile",
					".github/workflows/ci.yml",
				],
			}),
		);
		expect(e.profiles).toContain("security");
		expect(e.high_risk_paths).toEqual([
			".env.local",
			".github/workflows/ci.yml",
			"auth/login.ts",
			"config/.env",
			"services/api/Dockerfile",
		]);
		expect(
			evaluate(policy, input({ touched: ["src/auth/login.ts", "docs/env.md"] })).high_risk_paths,
		).toEqual([]);
	});

	test("dependency_change: a manifest or lockfile at any depth", () => {
		for (const path of [
			"package.json",
			"packages/web/package.json",
			"npm-shrinkwrap.json",
			"bun.lock",
			"go.sum",
			"crates/x/Cargo.toml",
			"Cargo.lock",
			"pyproject.toml",
			"poetry.lock",
			"uv.lock",
			"requirements.txt",
			"py/requirements-dev.txt",
		]) {
			expect(profilesOf({ touched: [path] })).toContain("dependency_change");
		}
		for (const path of ["package.json.bak", "docs/requirements.md", "src/go.mod.ts"]) {
			expect(profilesOf({ touched: [path] })).not.toContain("dependency_change");
		}
	});

	test("migration: a path with a migrations/ directory component", () => {
		expect(profilesOf({ touched: ["db/migrations/001_init.sql"] })).toEqual(["default", "migration"]);
		expect(profilesOf({ touched: ["src/store/migrations.ts"] })).toEqual(["default"]);
		expect(profilesOf({ touched: ["migrations/002.sql"] })).toContain("migration");
	});

	test("destructive_command: dangerous commands on word boundaries, multi-word with any whitespace", () => {
		const found = (...texts: string[]) =>
			evaluate(policy, input({ added: added(...texts) })).dangerous_commands;
		expect(found("rm -rf build")).toEqual(["rm"]);
		expect(found("sudo /bin/rm -f x; chmod 777 y")).toEqual(["rm", "chmod"]);
		expect(found("git   push --force", "git\tclean -fdx")).toEqual(["git clean", "git push"]);
		expect(found("docker system  prune -af", "kubectl delete ns prod")).toEqual([
			"docker system prune",
			"kubectl",
		]);
		expect(
			found("<form>", "update the firmware", "docker run --rm img", "cat rm.txt", "RM_FLAG = 1"),
		).toEqual([]);
		// fs.rm deletes files as surely as rm does.
		expect(found("await fs.rm(path, { recursive: true })")).toEqual(["rm"]);
		expect(found("git pushd", "npm installer", "gitpush")).toEqual([]);
		expect(profilesOf({ added: added("then rm.") })).toEqual(["default", "destructive_command"]);
		expect(profilesOf({ added: added("a perfectly normal line") })).toEqual(["default"]);
	});

	test("several profiles at once, default first then in policy order", () => {
		expect(
			profilesOf({ risk: "high", touched: ["migrations/1.sql", "package.json"], added: added("mv a b") }),
		).toEqual(["default", "security", "dependency_change", "destructive_command", "migration"]);
	});
});

describe("votes and quorum", () => {
	test("two approvals from others satisfy the default policy", () => {
		const e = evaluate(policy, input({ votes: twoApprovals }));
		expect(e.approvable).toBe(true);
		expect(e.summary).toBe("proposal satisfies policy");
		expect(e.approvals).toBe(2);
		expect(e.approval_votes).toEqual(["reviewer-1:approve", "reviewer-2:approve"]);
		expect(e.gates.map((g) => g.gate)).toEqual([
			"quorum",
			"blockers",
			"vetoes",
			"roles",
			"tests",
			"rollback_plan",
			"human_approval",
			"security_review",
		]);
		expect(e.gates.every((g) => g.ok)).toBe(true);
		expect(gate(e, "security_review").reason).toBe("not required");
	});

	test("the author's own vote never counts, for or against", () => {
		const e = evaluate(
			policy,
			input({
				votes: [vote("implementer-1", "Implementer"), vote("reviewer-1", "Reviewer", "approve_with_notes")],
			}),
		);
		expect(e.approvals).toBe(1);
		expect(e.approval_votes).toEqual(["reviewer-1:approve_with_notes"]);
		expect(gate(e, "quorum")).toEqual({
			gate: "quorum",
			ok: false,
			reason: "need 2 approvals, have 1 (implementer-1's own vote does not count)",
		});
		expect(e.summary).toBe("need 2 approvals, have 1 (implementer-1's own vote does not count)");
		const own = evaluate(
			policy,
			input({ votes: [...twoApprovals, vote("implementer-1", "Implementer", "veto")] }),
		);
		expect(own.blockers).toBe(0);
		expect(own.vetoes).toBe(0);
		expect(own.approvable).toBe(true);
	});

	test("abstain counts for nothing; approve_with_notes is an approval", () => {
		const e = evaluate(policy, input({ votes: [vote("r1", "Reviewer"), vote("r2", "Reviewer", "abstain")] }));
		expect(e.approvals).toBe(1);
		expect(e.blockers).toBe(0);
		expect(gate(e, "quorum").reason).toBe("need 2 approvals, have 1");
		const notes = evaluate(
			policy,
			input({ votes: [vote("r1", "Reviewer"), vote("r2", "Reviewer", "approve_with_notes")] }),
		);
		expect(notes.approvable).toBe(true);
	});

	test("one vote per agent: should a caller pass two, the latest counts", () => {
		const e = evaluate(
			policy,
			input({ votes: [vote("r1", "Reviewer"), vote("r2", "Reviewer"), vote("r1", "Reviewer", "revise")] }),
		);
		expect(e.approvals).toBe(1);
		expect(e.blocking_votes).toEqual(["r1:revise"]);
	});

	test("revise and reject block; veto blocks and vetoes", () => {
		const e = evaluate(
			policy,
			input({ votes: [...twoApprovals, vote("r3", "Tester", "revise"), vote("r4", "Architect", "reject")] }),
		);
		expect(e.blockers).toBe(2);
		expect(e.vetoes).toBe(0);
		expect(e.blocking_votes).toEqual(["r3:revise", "r4:reject"]);
		expect(gate(e, "blockers")).toEqual({
			gate: "blockers",
			ok: false,
			reason:
				"2 blocking votes (r3: revise, r4: reject), at most 0 allowed: resolve them or get the votes changed",
		});
		expect(e.summary).toBe(gate(e, "blockers").reason);
		const veto = evaluate(policy, input({ votes: [...twoApprovals, vote("r3", "Reviewer", "veto")] }));
		expect([veto.blockers, veto.vetoes]).toEqual([1, 1]);
		expect(gate(veto, "vetoes")).toEqual({
			gate: "vetoes",
			ok: false,
			reason: "vetoed by r3: a veto blocks until the vote changes",
		});
	});

	test("the strictest profile wins: the largest quorum, the fewest blockers, at least one approval", () => {
		const strict = parsePolicy(
			doc(
				"consensus:",
				"  default: { approvals_required: 2, blockers_allowed: 2 }",
				"  security: { approvals_required: 3 }",
				"  migration: { approvals_required: 1, blockers_allowed: 1 }",
			),
		);
		const both = evaluate(strict, input({ risk: "high", touched: ["migrations/1.sql"] }));
		expect([both.approvals_required, both.blockers_allowed]).toEqual([3, 1]);
		expect(gate(both, "quorum").reason).toBe("need 3 approvals, have 0");
		const lenient = evaluate(
			strict,
			input({ votes: [vote("r1", "R", "revise"), vote("r2", "R", "reject")] }),
		);
		expect([lenient.approvals_required, lenient.blockers_allowed]).toEqual([2, 2]);
		expect(gate(lenient, "blockers")).toEqual({
			gate: "blockers",
			ok: true,
			reason: "2 blocking votes (r1: revise, r2: reject), 2 allowed",
		});
		const none = parsePolicy(
			doc("consensus:", "  default: { approvals_required: 0, blockers_allowed: null }"),
		);
		const e = evaluate(none, input());
		expect([e.approvals_required, e.blockers_allowed]).toEqual([1, 0]);
	});
});

describe("roles", () => {
	test("each required role needs an approving vote from someone else with that role (any case)", () => {
		const deps = { touched: ["package.json"], passes: [pass()], security: { status: "approved" as const } };
		const e = evaluate(
			policy,
			input({
				...deps,
				votes: [
					vote("implementer-1", "Tester"), // the author: does not count
					vote("sec-1", "security"),
					vote("tester-2", "Tester", "revise"), // not an approval
				],
			}),
		);
		expect(e.required_roles).toEqual(["Security", "Tester"]);
		expect(e.missing_roles).toEqual(["Tester"]);
		expect(gate(e, "roles")).toEqual({
			gate: "roles",
			ok: false,
			reason: "missing approval from role Tester",
		});
		expect(gate(evaluate(policy, input(deps)), "roles").reason).toBe(
			"missing approval from roles Security, Tester",
		);
		const ok = evaluate(
			policy,
			input({ ...deps, votes: [vote("sec-1", "SECURITY"), vote("t-1", "tester")] }),
		);
		expect(ok.missing_roles).toEqual([]);
		expect(gate(ok, "roles").reason).toBe("approved by every required role (Security, Tester)");
	});

	test("required roles are the union over detected profiles", () => {
		const e = evaluate(policy, input({ touched: ["migrations/1.sql", "go.mod"] }));
		expect(e.required_roles).toEqual(["Architect", "Security", "Tester"]);
		expect(gate(evaluate(policy, input()), "roles").reason).toBe("no roles required");
	});
});

describe("gates", () => {
	test("tests: required by dependency_change and migration, satisfied by a passing run", () => {
		const e = evaluate(policy, input({ touched: ["go.mod"] }));
		expect(e.tests_required).toBe(true);
		expect(gate(e, "tests")).toEqual({
			gate: "tests",
			ok: false,
			reason: "no passing test run for revision 3 (required by the dependency_change profile)",
		});
		const both = evaluate(policy, input({ touched: ["go.mod", "migrations/1.sql"], revision: undefined }));
		expect(gate(both, "tests").reason).toBe(
			"no passing test run for the current revision (required by the dependency_change, migration profiles)",
		);
		expect(gate(evaluate(policy, input({ touched: ["go.mod"], passes: [pass()] })), "tests").ok).toBe(true);
		expect(gate(evaluate(policy, input()), "tests")).toEqual({
			gate: "tests",
			ok: true,
			reason: "not required",
		});
	});

	test("tests: the reason names the pass it counted and whether it was sandboxed", () => {
		const go = (passes: ReturnType<typeof pass>[]) =>
			gate(evaluate(policy, input({ touched: ["go.mod"], passes })), "tests");
		expect(go([pass("TR-4", "go test", false), pass("TR-2")]).reason).toBe(
			"a passing test run for revision 3 (TR-4, unsandboxed)",
		);
		const expected = input({
			expected_tests: ["bun test", "go test"],
			passes: [pass("TR-5"), pass("TR-3", "go test", false)],
		});
		expect(gate(evaluate(policy, expected), "tests")).toEqual({
			gate: "tests",
			ok: true,
			reason: "every expected test passed on revision 3 (TR-5, sandboxed; TR-3, unsandboxed)",
		});
	});

	test("tests_sandbox_required: only a sandboxed pass counts, and a pass is required", () => {
		const strict = parsePolicy(doc("consensus:", "  default:", "    tests_sandbox_required: true"));
		expect(strict.consensus.default?.tests_sandbox_required).toBe(true);
		expect(defaultPolicy().consensus.default?.tests_sandbox_required).toBe(false); // off by default
		const e = evaluate(strict, input());
		expect([e.tests_required, e.tests_sandbox_required]).toEqual([true, true]);
		expect(gate(e, "tests").reason).toBe(
			"no passing test run for revision 3 (required by the default profile)",
		);
		const unsandboxed = evaluate(strict, input({ passes: [pass("TR-1", "bun test", false)] }));
		expect(gate(unsandboxed, "tests")).toEqual({
			gate: "tests",
			ok: false,
			reason:
				"no passing test run for revision 3 (required by the default profile; 1 unsandboxed pass not counted: the default profile requires the sandbox)",
		});
		const sandboxed = evaluate(strict, input({ passes: [pass("TR-2", "bun test", false), pass("TR-1")] }));
		expect(gate(sandboxed, "tests")).toMatchObject({
			ok: true,
			reason: "a passing test run for revision 3 (TR-1, sandboxed)",
		});
		// The proposal's expected tests need a sandboxed pass each, too.
		const expected = evaluate(
			strict,
			input({ expected_tests: ["go test"], passes: [pass("TR-3", "go test", false)] }),
		);
		expect(gate(expected, "tests").ok).toBe(false);
		expect(gate(expected, "tests").reason).toContain(
			"expected test without a passing run on revision 3: go test",
		);
		// Without the flag the same unsandboxed pass counts: the check above can fail.
		expect(
			gate(
				evaluate(policy, input({ expected_tests: ["go test"], passes: [pass("TR-3", "go test", false)] })),
				"tests",
			).ok,
		).toBe(true);
	});

	test("rollback plan: required by migration, satisfied by non-blank notes", () => {
		const migration = { touched: ["db/migrations/2.sql"] };
		const e = evaluate(policy, input({ ...migration, rollback_notes: "  " }));
		expect(e.rollback_plan_required).toBe(true);
		expect(gate(e, "rollback_plan")).toEqual({
			gate: "rollback_plan",
			ok: false,
			reason: "no rollback plan: add rollback notes to the proposal (required by the migration profile)",
		});
		expect(
			gate(evaluate(policy, input({ ...migration, rollback_notes: "drop table t" })), "rollback_plan").ok,
		).toBe(true);
		expect(gate(evaluate(policy, input()), "rollback_plan").reason).toBe("not required");
	});

	test("human approval: required by high risk and by profiles; a rejection always fails", () => {
		const high = evaluate(policy, input({ risk: "high" }));
		expect(high.human_approval_required).toBe(true);
		expect(gate(high, "human_approval")).toEqual({
			gate: "human_approval",
			ok: false,
			reason: "human approval required (risk high, security): none for revision 3",
		});
		expect(gate(evaluate(policy, input({ touched: ["requirements.txt"] })), "human_approval").reason).toBe(
			"human approval required (dependency_change): none for revision 3",
		);
		const approved = { status: "approved" as const, override_policy: false };
		expect(gate(evaluate(policy, input({ risk: "high", human: approved })), "human_approval")).toEqual({
			gate: "human_approval",
			ok: true,
			reason: "approved by a human",
		});
		const rejected = { status: "rejected" as const, override_policy: false };
		expect(gate(evaluate(policy, input({ risk: "critical", human: rejected })), "human_approval")).toEqual({
			gate: "human_approval",
			ok: false,
			reason: "a human rejected revision 3",
		});
		// Not asked for, but a human said no: that stands.
		const unasked = evaluate(policy, input({ votes: twoApprovals, human: rejected }));
		expect(unasked.approvable).toBe(false);
		expect(unasked.summary).toBe("a human rejected revision 3");
		expect(gate(evaluate(policy, input()), "human_approval").reason).toBe("not required");
	});

	test("a human approval satisfies the human gate only, never the quorum or the roles", () => {
		const e = evaluate(
			policy,
			input({
				risk: "high",
				human: { status: "approved", override_policy: true },
				security: { status: "approved" },
			}),
		);
		expect(gate(e, "human_approval").ok).toBe(true);
		expect(gate(e, "quorum").ok).toBe(false);
		expect(gate(e, "roles").reason).toBe("missing approval from role Security");
		expect(e.approvable).toBe(false);
		expect(e.summary).toBe("need 2 approvals, have 0");
	});

	test("security review: required by the security, dependency_change and migration profiles and by the flag", () => {
		expect(evaluate(policy, input()).security_review_required).toBe(false);
		for (const over of [
			{ risk: "high" as const },
			{ touched: ["auth/x.ts"] },
			{ touched: ["Cargo.lock"] },
			{ touched: ["a/migrations/1.sql"] },
			{ added: added("git reset --hard") }, // destructive_command sets security_approval_required
		]) {
			expect(evaluate(policy, input(over)).security_review_required).toBe(true);
		}
		const flagged = parsePolicy(doc("consensus: { default: { security_approval_required: true } }"));
		expect(gate(evaluate(flagged, input()), "security_review")).toEqual({
			gate: "security_review",
			ok: false,
			reason: "security review required (default): none for revision 3",
		});
	});

	test("security review: the latest status decides; a veto yields only to a human override", () => {
		const review = (status: "approved" | "needs_changes" | "veto", human: EvaluationInput["human"] = null) =>
			gate(
				evaluate(policy, input({ touched: ["Cargo.lock"], security: { status }, human })),
				"security_review",
			);
		expect(review("approved")).toEqual({
			gate: "security_review",
			ok: true,
			reason: "security review approved",
		});
		expect(review("needs_changes")).toEqual({
			gate: "security_review",
			ok: false,
			reason: "security review asks for changes to revision 3",
		});
		expect(review("veto")).toEqual({
			gate: "security_review",
			ok: false,
			reason: "security review vetoed revision 3: only a human approval with override_policy can overrule it",
		});
		expect(review("veto", { status: "approved", override_policy: false }).ok).toBe(false);
		expect(review("veto", { status: "rejected", override_policy: true }).ok).toBe(false);
		expect(review("veto", { status: "approved", override_policy: true })).toEqual({
			gate: "security_review",
			ok: true,
			reason: "security veto overridden by a human approval with override_policy",
		});
		expect(gate(evaluate(policy, input({ touched: ["Cargo.lock"] })), "security_review").reason).toBe(
			"security review required (dependency_change): none for revision 3",
		);
	});

	test("a vote veto under security_veto_blocks yields to a human override, which lifts it from the blockers", () => {
		const base = {
			touched: ["infra/main.tf"],
			security: { status: "approved" as const },
			votes: [vote("r1", "Reviewer"), vote("sec-1", "Security"), vote("sec-2", "Security", "veto")],
		};
		const vetoed = evaluate(policy, input(base));
		expect(gate(vetoed, "vetoes")).toEqual({
			gate: "vetoes",
			ok: false,
			reason: "vetoed by sec-2: only a human approval with override_policy can overrule it",
		});
		expect(gate(vetoed, "blockers").ok).toBe(false);
		const noOverride = evaluate(
			policy,
			input({ ...base, human: { status: "approved", override_policy: false } }),
		);
		expect(gate(noOverride, "vetoes").ok).toBe(false);

		const overridden = evaluate(
			policy,
			input({ ...base, human: { status: "approved", override_policy: true } }),
		);
		expect(gate(overridden, "vetoes")).toEqual({
			gate: "vetoes",
			ok: true,
			reason: "veto by sec-2 overridden by a human approval with override_policy",
		});
		expect(gate(overridden, "blockers")).toEqual({
			gate: "blockers",
			ok: true,
			reason: "no blocking votes besides the overridden veto",
		});
		expect(overridden.vetoes).toBe(1);
		expect(overridden.approvable).toBe(true);

		// An override lifts vetoes, never revise/reject votes.
		const revised = evaluate(
			policy,
			input({
				...base,
				votes: [...base.votes, vote("t-1", "Tester", "revise")],
				human: { status: "approved", override_policy: true },
			}),
		);
		expect(gate(revised, "vetoes").ok).toBe(true);
		expect(gate(revised, "blockers").reason).toBe(
			"1 blocking vote (t-1: revise), at most 0 allowed: resolve them or get the votes changed",
		);
	});

	test("without security_veto_blocks a vote veto blocks even against a human override", () => {
		const e = evaluate(
			policy,
			input({
				votes: [...twoApprovals, vote("r3", "Reviewer", "veto")],
				human: { status: "approved", override_policy: true },
			}),
		);
		expect(gate(e, "vetoes").ok).toBe(false);
		expect(gate(e, "blockers").ok).toBe(false);
		expect(e.approvable).toBe(false);
	});

	test("a migration that meets every gate is approvable; the summary is the first failing gate", () => {
		const full = input({
			touched: ["db/migrations/3.sql"],
			votes: [vote("a-1", "Architect"), vote("s-1", "Security"), vote("t-1", "Tester")],
			passes: [pass()],
			rollback_notes: "run 3.down.sql",
			human: { status: "approved", override_policy: false },
			security: { status: "approved" },
		});
		expect(evaluate(policy, full).approvable).toBe(true);
		const failing = evaluate(policy, { ...full, passes: [], rollback_notes: null });
		expect(failing.gates.filter((g) => !g.ok).map((g) => g.gate)).toEqual(["tests", "rollback_plan"]);
		expect(failing.summary).toBe("no passing test run for revision 3 (required by the migration profile)");
	});
});

describe("reviewRoles", () => {
	const roles = (over: Partial<EvaluationInput>, p: Policy = policy) =>
		reviewRoles(p, { ...input(), ...over });

	test("Reviewer, plus the roles of detected profiles, plus Security when high-risk, sorted", () => {
		expect(roles({})).toEqual(["Reviewer"]);
		expect(roles({ risk: "high" })).toEqual(["Reviewer", "Security"]);
		expect(roles({ touched: [".env"] })).toEqual(["Reviewer", "Security"]);
		expect(roles({ touched: ["migrations/1.sql"] })).toEqual(["Architect", "Reviewer", "Security", "Tester"]);
		expect(roles({ touched: ["package-lock.json"] })).toEqual(["Reviewer", "Security", "Tester"]);
		const many = Array.from({ length: 10 }, (_, i) => `src/${i}.ts`);
		expect(roles({ touched: many })).toEqual(["Architect", "Reviewer"]);
	});

	test("high risk adds Security even when the security profile lists other roles", () => {
		const custom = parsePolicy(doc("consensus:", "  security: { required_roles: [Auditor, reviewer] }"));
		expect(roles({ risk: "critical" }, custom)).toEqual(["Auditor", "Reviewer", "Security"]);
	});
});
