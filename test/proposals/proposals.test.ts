// The proposals family through the dispatcher, over a real git repository: content-addressed patch
// revisions, the affected-resource merge and claim coverage (reference §7.2), votes, the proposal
// lifecycle (attach_patch, withdraw, reject, request_review) and the policy gates of patch.validate.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Evaluation } from "../../src/policy/types.ts";
import { type Flow as BaseFlow, flow as baseFlow, type Proposal } from "../_helpers/flow-helpers.ts";
import { addRun, allEvents, diffOf, disableAgent, git, write } from "../_helpers/helpers.ts";
import { newFilePatch } from "../_helpers/patches.ts";

interface Reviewer {
	role: string;
	agent_id: string | null;
	adapter: string | null;
}

const GATES = [
	"claims",
	"artifact",
	"parse",
	"coverage",
	"apply_check",
	"quorum",
	"blockers",
	"vetoes",
	"roles",
	"tests",
	"rollback_plan",
	"human_approval",
	"security_review",
];

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A git-style patch creating a new file. */
const createPatch = (path: string, lines: string[]) =>
	newFilePatch(path, lines.map((l) => `${l}\n`).join(""));

interface Flow extends BaseFlow {
	appendPolicy: (yaml: string) => void;
	passTests: (proposal: Proposal, status?: string, command?: string) => Promise<void>;
}

/** The shared flow, with policy edits and recorded test runs. */
async function flow(files: Record<string, string>): Promise<Flow> {
	const f = await baseFlow(files);
	const p = f.p;
	let runs = 0;
	return {
		...f,
		appendPolicy(yaml) {
			appendFileSync(join(p.root, "POLICIES.ROUNDTABLE.md"), `\n\`\`\`yaml\n${yaml.trim()}\n\`\`\`\n`);
		},
		async passTests(proposal, status = "passed", command = "bun test") {
			const now = new Date().toISOString();
			runs++;
			await p.rt.store.withTransaction("write", async (tx) => {
				const run = await tx.testRuns.insert(
					{
						id: `TR-test-${runs}`,
						proposal_id: proposal.id,
						task_id: proposal.task_id,
						command,
						sandbox: "none",
						sandbox_reason: "inserted by the test",
						argv: command.split(" "),
						patch_revision: proposal.patch_revision,
						workdir: "proposal",
						requested_by: "operator",
						started_at: now,
					},
					now,
				);
				await tx.testRuns.finish(
					run.id,
					{
						status: status as "passed",
						exit_code: status === "passed" ? 0 : 1,
						signal: null,
						duration_ms: 1,
						summary_md: `tests ${status}`,
						output_bytes: 0,
						truncated: false,
						finished_at: now,
					},
					now,
				);
			});
		},
	};
}

const ONE_TWO_THREE = [
	"export function one() {",
	"\treturn 1;",
	"}",
	"",
	"export function two() {",
	"\treturn 2;",
	"}",
	"",
	"export function three() {",
	"\treturn 3;",
	"}",
	"",
].join("\n");

/** ONE_TWO_THREE with line `n` (1-based) replaced. */
const editLine = (n: number, text: string) =>
	ONE_TWO_THREE.split("\n")
		.map((l, i) => (i === n - 1 ? text : l))
		.join("\n");

describe("patch storage and revisions", () => {
	test("a patch is stored by its sha256, never under a caller's id; the same bytes are one file", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const patch = diffOf(f.p.root, "README.md", "two\n");
		const first = await f.propose({ proposal_id: "P-mine..1", patch });
		const digest = sha256(patch);
		expect(first.patch_sha256).toBe(digest);
		expect(first.patch_revision).toBe(1);
		const dir = join(f.p.root, ".roundtable", "patches");
		expect(readdirSync(dir)).toEqual([`${digest}.diff`]);
		expect(readFileSync(join(dir, `${digest}.diff`), "utf8")).toBe(patch);

		const second = await f.propose({ proposal_id: "P-mine..2", patch });
		expect(second.patch_sha256).toBe(digest);
		expect(readdirSync(dir)).toEqual([`${digest}.diff`]);
		for (const name of readdirSync(dir)) expect(name).not.toContain("mine");

		const created = (await allEvents(f.p)).filter((e) => e.type === "proposal.created");
		expect(created.map((e) => e.payload.patch_sha256)).toEqual([digest, digest]);
	});

	test("a stored copy damaged outside Roundtable is written again when the same patch comes back", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const patch = diffOf(f.p.root, "README.md", "two\n");
		await f.propose({ patch });
		const file = join(f.p.root, ".roundtable", "patches", `${sha256(patch)}.diff`);
		writeFileSync(file, "garbage\n");
		await f.propose({ patch });
		expect(readFileSync(file, "utf8")).toBe(patch);
	});

	test("proposal.get lists every revision with its sha256 and returns the current patch text", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const patch1 = diffOf(f.p.root, "README.md", "two\n");
		const patch2 = diffOf(f.p.root, "README.md", "three\n");
		const p = await f.propose({ patch: patch1 });
		const one = (await f.call("proposal.get", { proposal_id: p.id })) as {
			revisions: { number: number; sha256: string; files: string[]; created_by: string }[];
			patch: string | null;
		};
		expect(one.patch).toBe(patch1);
		expect(one.revisions).toEqual([
			expect.objectContaining({
				number: 1,
				sha256: sha256(patch1),
				files: ["README.md"],
				created_by: "implementer-1",
			}),
		]);

		await f.call("proposal.attach_patch", { proposal_id: p.id, agent_id: "implementer-1", patch: patch2 });
		const two = (await f.call("proposal.get", { proposal_id: p.id })) as {
			proposal: Proposal;
			revisions: { number: number; sha256: string; size: number }[];
			patch: string | null;
		};
		expect(two.patch).toBe(patch2);
		expect(two.proposal).toMatchObject({ patch_revision: 2, patch_sha256: sha256(patch2) });
		expect(two.revisions.map((r) => [r.number, r.sha256, r.size])).toEqual([
			[1, sha256(patch1), Buffer.byteLength(patch1)],
			[2, sha256(patch2), Buffer.byteLength(patch2)],
		]);
		// Both revisions' bytes stay stored.
		const dir = join(f.p.root, ".roundtable", "patches");
		expect(readdirSync(dir).sort()).toEqual([`${sha256(patch1)}.diff`, `${sha256(patch2)}.diff`].sort());

		const revised = (await allEvents(f.p)).find((e) => e.type === "proposal.revised");
		expect(revised?.payload).toMatchObject({
			proposal_id: p.id,
			patch_revision: 2,
			previous_revision: 1,
			patch_sha256: sha256(patch2),
		});
	});

	test("git-style and plain unified diffs (with and without a/ b/ prefixes) are accepted and apply", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const patches = [
			diffOf(f.p.root, "README.md", "two\n"),
			"--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-one\n+two\n",
			"--- README.md\t2024-01-01 00:00:00\n+++ README.md\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-one\n+two\n",
		];
		for (const patch of patches) {
			const p = await f.propose({ patch });
			expect(p.patch_files).toEqual(["README.md"]);
			const v = await f.validate(p.id);
			expect(f.gate(v, "parse").ok).toBe(true);
			expect(f.gate(v, "coverage").ok).toBe(true);
			expect(f.gate(v, "apply_check")).toMatchObject({ ok: true });
			expect(v.valid).toBe(true);
		}
	});

	test("a malformed patch is invalid_argument naming the line, and nothing is stored", async () => {
		const f = await flow({ "x.txt": "a\n" });
		await f.claim("implementer-1", "x.txt");
		const cases: [string, number][] = [
			["diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ bogus @@\n-a\n+b\n", 4],
			["--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n+c\n", 6],
			["hello world\n", 1],
		];
		for (const [patch, line] of cases) {
			const err = await f.fail("proposal.create", {
				task_id: f.task,
				agent_id: "implementer-1",
				title: "Broken",
				summary_md: "Broken patch.",
				affected_resources: [],
				risk: "low",
				patch,
			});
			expect(err.code).toBe("invalid_argument");
			expect(err.details).toMatchObject({ field: "patch", line });
			expect(err.message).toContain(`line ${line}`);
		}
		const dir = join(f.p.root, ".roundtable", "patches");
		expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
		expect((await f.call("proposal.list", {})).proposals).toEqual([]);
	});

	test("attach_patch with a malformed patch is refused and keeps the current revision", async () => {
		const f = await flow({ "x.txt": "a\n" });
		await f.claim("implementer-1", "x.txt");
		const p = await f.propose({ patch: diffOf(f.p.root, "x.txt", "b\n") });
		const err = await f.fail("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n-a\n+b\n",
		});
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toMatchObject({ line: 3 });
		const got = (await f.call("proposal.get", { proposal_id: p.id })) as { proposal: Proposal };
		expect(got.proposal.patch_revision).toBe(1);
	});

	test("run_id is optional and must name an existing run", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const patch = diffOf(f.p.root, "README.md", "two\n");
		const err = await f.fail("proposal.create", {
			task_id: f.task,
			agent_id: "implementer-1",
			title: "A change",
			summary_md: "Why.",
			affected_resources: [],
			risk: "low",
			patch,
			run_id: "RUN-nope",
		});
		expect(err.code).toBe("not_found");
		expect(err.details).toMatchObject({ run_id: "RUN-nope" });

		await addRun(f.p, "RUN-1");
		const withRun = await f.propose({ patch, run_id: "RUN-1" });
		const without = await f.propose({ patch });
		expect(withRun.run_id).toBe("RUN-1");
		expect(without.run_id).toBeNull();
		const listed = (await f.call("proposal.list", { run_id: "RUN-1" })) as { proposals: Proposal[] };
		expect(listed.proposals.map((x) => x.id)).toEqual([withRun.id]);
		const created = (await allEvents(f.p)).find(
			(e) => e.type === "proposal.created" && e.payload.proposal_id === withRun.id,
		) as unknown as { run_id: string | null };
		expect(created.run_id).toBe("RUN-1");
	});

	test("expected_tests and rollback_notes are stored and returned", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({
			patch: diffOf(f.p.root, "README.md", "two\n"),
			expected_tests: ["bun test test/readme.test.ts", "bun run lint"],
			rollback_notes: "Revert README.md to 'one'.",
		});
		expect(p.expected_tests).toEqual(["bun test test/readme.test.ts", "bun run lint"]);
		expect(p.rollback_notes).toBe("Revert README.md to 'one'.");
		const got = (await f.call("proposal.get", { proposal_id: p.id })) as { proposal: Proposal };
		expect(got.proposal).toMatchObject({
			expected_tests: ["bun test test/readme.test.ts", "bun run lint"],
			rollback_notes: "Revert README.md to 'one'.",
		});
		const bare = await f.propose({ patch: diffOf(f.p.root, "README.md", "three\n") });
		expect(bare.expected_tests).toEqual([]);
		expect(bare.rollback_notes).toBeNull();
	});

	test("expected_tests are a promise: each must pass on the current revision", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({
			patch: diffOf(f.p.root, "README.md", "two\n"),
			expected_tests: ["bun test test/readme.test.ts", "bun run lint"],
		});
		await f.vote(p.id, "architect-1");
		await f.vote(p.id, "reviewer-1");
		const before = await f.validate(p.id);
		expect(f.gate(before, "tests")).toMatchObject({ ok: false });
		expect(f.gate(before, "tests").reason).toContain("bun test test/readme.test.ts, bun run lint");
		await f.passTests(p, "passed", "bun test test/readme.test.ts");
		expect(f.gate(await f.validate(p.id), "tests").reason).toContain("bun run lint");
		await f.passTests(p, "failed", "bun run lint");
		expect(f.gate(await f.validate(p.id), "tests").ok).toBe(false);
		await f.passTests(p, "passed", "bun run lint");
		const v = await f.validate(p.id);
		expect(f.gate(v, "tests").ok).toBe(true);
		expect(v.approvable).toBe(true);
	});
});

describe("affected resources and claim coverage (reference §7.2)", () => {
	test("every touched file joins the affected resources, and the author's claims must cover each", async () => {
		const f = await flow({ "README.md": "one\n", "docs/guide.md": "guide\n" });
		await f.claim("implementer-1", "README.md");
		write(f.p.root, "README.md", "two\n");
		write(f.p.root, "docs/guide.md", "better guide\n");
		const patch = git(f.p.root, "diff");
		git(f.p.root, "checkout", "--", ".");
		const args = {
			task_id: f.task,
			agent_id: "implementer-1",
			title: "Two files",
			summary_md: "Both.",
			affected_resources: ["file:README.md"],
			risk: "normal",
			patch,
		};
		const err = await f.fail("proposal.create", args);
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toContain("unclaimed affected resource: file:docs/guide.md");
		expect(err.details).toMatchObject({ resource_id: "file:docs/guide.md" });

		await f.claim("implementer-1", "docs/guide.md");
		const out = (await f.call("proposal.create", args)) as {
			proposal: Proposal;
			proposal_resources: string[];
		};
		expect(out.proposal_resources).toEqual(["file:README.md", "file:docs/guide.md"]);
		expect(out.proposal.patch_files).toEqual(["README.md", "docs/guide.md"]);
		const v = await f.validate(out.proposal.id);
		expect(f.gate(v, "claims").ok).toBe(true);
		expect(f.gate(v, "coverage").ok).toBe(true);
	});

	test("another agent's claim, or a read claim, does not cover the author's change", async () => {
		const f = await flow({ "README.md": "one\n", "NOTES.md": "n\n" });
		await f.claim("implementer-2", "README.md");
		await f.claim("implementer-1", "NOTES.md", { claim_type: "read" });
		for (const path of ["README.md", "NOTES.md"]) {
			const err = await f.fail("proposal.create", {
				task_id: f.task,
				agent_id: "implementer-1",
				title: "Change",
				summary_md: "Why.",
				affected_resources: [],
				risk: "normal",
				patch: diffOf(f.p.root, path, "changed\n"),
			});
			expect(err.code).toBe("failed_precondition");
			expect(err.details).toMatchObject({ resource_id: `file:${path}` });
		}
	});

	test("an explicit resource that is neither known nor a path resource is invalid_argument", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const err = await f.fail("proposal.create", {
			task_id: f.task,
			agent_id: "implementer-1",
			title: "Change",
			summary_md: "Why.",
			affected_resources: ["endpoint:/login"],
			risk: "normal",
			patch: diffOf(f.p.root, "README.md", "two\n"),
		});
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toMatchObject({ field: "affected_resources", resource_id: "endpoint:/login" });
	});

	test("a directory claim covers the files inside it, new files included, and nothing outside", async () => {
		const f = await flow({ "src/a.ts": "export const a = 1;\n", "README.md": "one\n" });
		await f.call("resource.claim", {
			resource_type: "directory",
			resource_id: "directory:src",
			claim_type: "write",
			task_id: f.task,
			agent_id: "implementer-1",
		});
		const patch =
			diffOf(f.p.root, "src/a.ts", "export const a = 2;\n") +
			createPatch("src/b.ts", ["export const b = 1;"]);
		const out = (await f.call("proposal.create", {
			task_id: f.task,
			agent_id: "implementer-1",
			title: "In src",
			summary_md: "Inside the claimed directory.",
			affected_resources: [],
			risk: "normal",
			patch,
		})) as { proposal: Proposal; proposal_resources: string[] };
		expect(out.proposal_resources).toEqual(["file:src/a.ts", "file:src/b.ts"]);
		const v = await f.validate(out.proposal.id);
		for (const g of ["claims", "artifact", "parse", "coverage", "apply_check"])
			expect(f.gate(v, g).ok).toBe(true);
		expect(v.valid).toBe(true);

		const outside = await f.fail("proposal.create", {
			task_id: f.task,
			agent_id: "implementer-1",
			title: "Outside",
			summary_md: "Outside the claimed directory.",
			affected_resources: [],
			risk: "normal",
			patch: diffOf(f.p.root, "README.md", "two\n"),
		});
		expect(outside.code).toBe("failed_precondition");
		expect(outside.details).toMatchObject({ resource_id: "file:README.md" });
	});

	test("a created file needs file or directory coverage: a symbol resource is not enough", async () => {
		const f = await flow({ "lib.ts": ONE_TWO_THREE });
		await f.call("resource.claim", {
			resource_type: "symbol",
			resource_id: "symbol:lib.ts#one",
			claim_type: "write",
			task_id: f.task,
			agent_id: "implementer-1",
			start_line: 1,
			end_line: 3,
		});
		// Without an explicit symbol resource, the touched file itself is affected and unclaimed.
		const err = await f.fail("proposal.create", {
			task_id: f.task,
			agent_id: "implementer-1",
			title: "Edit one",
			summary_md: "Inside one.",
			affected_resources: [],
			risk: "normal",
			patch: diffOf(f.p.root, "lib.ts", editLine(2, "\treturn 11;")),
		});
		expect(err.code).toBe("failed_precondition");
		expect(err.details).toMatchObject({ resource_id: "file:lib.ts" });
	});

	describe("a symbol claim covers only changes inside its lines", () => {
		async function symbolFlow() {
			const f = await flow({ "lib.ts": ONE_TWO_THREE });
			await f.call("resource.claim", {
				resource_type: "symbol",
				resource_id: "symbol:lib.ts#one",
				claim_type: "write",
				task_id: f.task,
				agent_id: "implementer-1",
				start_line: 1,
				end_line: 3,
			});
			const propose = (patch: string) => f.propose({ affected_resources: ["symbol:lib.ts#one"], patch });
			return { f, propose };
		}

		test("a change inside the symbol's lines is covered", async () => {
			const { f, propose } = await symbolFlow();
			const p = await propose(diffOf(f.p.root, "lib.ts", editLine(2, "\treturn 11;")));
			const v = await f.validate(p.id);
			expect(f.gate(v, "claims").ok).toBe(true);
			expect(f.gate(v, "coverage")).toMatchObject({ ok: true });
			expect(v.valid).toBe(true);
		});

		test("a change far outside the symbol fails the coverage gate", async () => {
			const { f, propose } = await symbolFlow();
			const p = await propose(diffOf(f.p.root, "lib.ts", editLine(10, "\treturn 33;")));
			const v = await f.validate(p.id);
			const coverage = f.gate(v, "coverage");
			expect(coverage.ok).toBe(false);
			expect(coverage.reason).toMatch(/^patch touches lines outside claimed symbols in lib\.ts at line \d+/);
			expect(v.valid).toBe(false);
			expect(v.approvable).toBe(false);
		});

		test("a change just outside the symbol fails too, though git's context lines reach into it", async () => {
			// Line 6 (inside `two`) changes; git's three context lines make the hunk 3-9, which
			// overlaps `one` (1-3) at line 3 only as context. The changed line is not inside `one`.
			const { f, propose } = await symbolFlow();
			const p = await propose(diffOf(f.p.root, "lib.ts", editLine(6, "\treturn 22;")));
			const v = await f.validate(p.id);
			const coverage = f.gate(v, "coverage");
			expect(coverage.reason).toMatch(/^patch touches lines outside claimed symbols in lib\.ts/);
			expect(coverage.ok).toBe(false);
		});
	});

	test("attach_patch re-checks coverage: a new revision touching an unclaimed file is refused", async () => {
		const f = await flow({ "README.md": "one\n", "OTHER.md": "o\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const err = await f.fail("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "OTHER.md", "p\n"),
		});
		expect(err.code).toBe("failed_precondition");
		expect(err.details).toMatchObject({ resource_id: "file:OTHER.md" });
	});

	test("a released claim fails validate's claims gate", async () => {
		const f = await flow({ "README.md": "one\n" });
		const claim = await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.call("resource.release", { claim_id: claim, agent_id: "implementer-1" });
		const v = await f.validate(p.id);
		expect(f.gate(v, "claims")).toMatchObject({ ok: false });
		expect(f.gate(v, "claims").reason).toContain("unclaimed affected resource: file:README.md");
		expect(v.valid).toBe(false);
	});
});

describe("votes", () => {
	test("approve, approve_with_notes, revise, reject, veto and abstain are the votes; anything else is invalid_argument", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const voters: [string, string][] = [
			["architect-1", "approve"],
			["reviewer-1", "approve_with_notes"],
			["tester-1", "revise"],
			["security-1", "reject"],
			["chair-1", "veto"],
			["implementer-2", "abstain"],
		];
		for (const [agent, vote] of voters) {
			const out = (await f.vote(p.id, agent, vote)) as { vote: { vote: string; patch_revision: number } };
			expect(out.vote).toMatchObject({ vote, patch_revision: 1 });
		}
		for (const bad of ["maybe", "APPROVE", "approved", ""]) {
			const err = await f.fail("vote.cast", {
				proposal_id: p.id,
				agent_id: "memory-oracle-1",
				vote: bad,
				reason_md: "hm",
			});
			expect(err.code).toBe("invalid_argument");
		}
		const list = (await f.call("vote.list", { proposal_id: p.id })) as {
			votes: { agent_id: string; vote: string }[];
			patch_revision: number;
		};
		expect(list.patch_revision).toBe(1);
		expect(list.votes.map((v) => [v.agent_id, v.vote])).toEqual(voters);
		const v = await f.validate(p.id);
		expect(v.policy).toMatchObject({ approvals: 2, blockers: 3, vetoes: 1 });
	});

	test("only known, enabled agents vote", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const unknown = await f.fail("vote.cast", {
			proposal_id: p.id,
			agent_id: "reviewer-9",
			vote: "approve",
			reason_md: "ok",
		});
		expect(unknown.code).toBe("not_found");
		expect(unknown.details).toMatchObject({ agent_id: "reviewer-9" });

		await disableAgent(f.p, "reviewer-1");
		const disabled = await f.fail("vote.cast", {
			proposal_id: p.id,
			agent_id: "reviewer-1",
			vote: "approve",
			reason_md: "ok",
		});
		expect(disabled.code).toBe("failed_precondition");
		expect((await f.call("vote.list", { proposal_id: p.id })).votes).toEqual([]);
	});

	test("one vote per agent: a new vote replaces the old, and vote.cast says what it replaced", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const first = (await f.vote(p.id, "reviewer-1", "revise")) as { vote: { id: string }; replaced: boolean };
		expect(first.replaced).toBe(false);
		const second = (await f.vote(p.id, "reviewer-1", "approve")) as {
			vote: { id: string; vote: string; revision: number };
			replaced: boolean;
		};
		expect(second.replaced).toBe(true);
		expect(second.vote).toMatchObject({ id: first.vote.id, vote: "approve" });
		expect(second.vote.revision).toBeGreaterThan(1);

		const list = (await f.call("vote.list", { proposal_id: p.id })) as {
			votes: { agent_id: string; vote: string }[];
		};
		expect(list.votes).toHaveLength(1);
		expect(list.votes[0]).toMatchObject({ agent_id: "reviewer-1", vote: "approve" });

		const cast = (await allEvents(f.p)).filter((e) => e.type === "vote.cast");
		expect(cast.map((e) => e.payload.replaced)).toEqual([null, { vote: "revise", patch_revision: 1 }]);
		expect(cast[1]?.payload).toMatchObject({ agent_id: "reviewer-1", vote: "approve", patch_revision: 1 });
		const v = await f.validate(p.id);
		expect(v.policy).toMatchObject({ approvals: 1, blockers: 0 });

		// A vote after a new revision replaces the old revision's vote and says which revision that was.
		await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		});
		const third = (await f.vote(p.id, "reviewer-1", "reject")) as { vote: { patch_revision: number } };
		expect(third.vote.patch_revision).toBe(2);
		const last = (await allEvents(f.p)).filter((e) => e.type === "vote.cast").at(-1);
		expect(last?.payload).toMatchObject({
			patch_revision: 2,
			replaced: { vote: "approve", patch_revision: 1 },
		});
	});

	test("the author's own vote never counts toward quorum", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.vote(p.id, "implementer-1");
		await f.vote(p.id, "reviewer-1");
		const v = await f.validate(p.id);
		expect(v.policy).toMatchObject({ approvals: 1, approvals_required: 2 });
		const quorum = f.gate(v, "quorum");
		expect(quorum.ok).toBe(false);
		expect(quorum.reason).toContain("implementer-1's own vote does not count");
		expect(v.approvable).toBe(false);
		// The author's veto does not block either: it is not counted at all.
		await f.vote(p.id, "implementer-1", "veto");
		await f.vote(p.id, "architect-1");
		const after = await f.validate(p.id);
		expect(f.gate(after, "vetoes").ok).toBe(true);
		expect(after.approvable).toBe(true);
	});

	test("votes on withdrawn or rejected proposals are refused", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const a = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const b = await f.propose({ patch: diffOf(f.p.root, "README.md", "three\n") });
		await f.call("proposal.withdraw", { proposal_id: a.id, agent_id: "implementer-1" });
		await f.call("patch.reject", { proposal_id: b.id, reason_md: "No." });
		for (const id of [a.id, b.id]) {
			const err = await f.fail("vote.cast", {
				proposal_id: id,
				agent_id: "reviewer-1",
				vote: "approve",
				reason_md: "late",
			});
			expect(err.code).toBe("failed_precondition");
		}
		const unknown = await f.fail("vote.cast", {
			proposal_id: "P-nope",
			agent_id: "reviewer-1",
			vote: "approve",
			reason_md: "?",
		});
		expect(unknown.code).toBe("not_found");
	});
});

describe("lifecycle: attach_patch, withdraw, reject", () => {
	test("attach_patch makes the next revision and sends an in-review proposal back to pending", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.call("proposal.request_review", { proposal_id: p.id });
		const out = (await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		})) as { proposal: Proposal; proposal_resources: string[] };
		expect(out.proposal).toMatchObject({ status: "pending", patch_revision: 2 });
		expect(out.proposal_resources).toEqual(["file:README.md"]);
		const again = (await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "four\n"),
		})) as { proposal: Proposal };
		expect(again.proposal.patch_revision).toBe(3);
	});

	test("only the author attaches a patch", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const err = await f.fail("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-2",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		});
		expect(err.code).toBe("permission_denied");
		const got = (await f.call("proposal.get", { proposal_id: p.id })) as { proposal: Proposal };
		expect(got.proposal.patch_revision).toBe(1);
	});

	test("attach_patch is refused on rejected and withdrawn proposals", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const a = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const b = await f.propose({ patch: diffOf(f.p.root, "README.md", "three\n") });
		await f.call("patch.reject", { proposal_id: a.id, reason_md: "No." });
		await f.call("proposal.withdraw", { proposal_id: b.id, agent_id: "implementer-1" });
		for (const [id, status] of [
			[a.id, "rejected"],
			[b.id, "withdrawn"],
		]) {
			const err = await f.fail("proposal.attach_patch", {
				proposal_id: id,
				agent_id: "implementer-1",
				patch: diffOf(f.p.root, "README.md", "four\n"),
			});
			expect(err.code).toBe("failed_precondition");
			expect(err.details).toMatchObject({ status });
			const got = (await f.call("proposal.get", { proposal_id: id as string })) as { proposal: Proposal };
			expect(got.proposal).toMatchObject({ status, patch_revision: 1 });
		}
	});

	test("withdraw is the author's: others get permission_denied, closed proposals failed_precondition", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const other = await f.fail("proposal.withdraw", { proposal_id: p.id, agent_id: "reviewer-1" });
		expect(other.code).toBe("permission_denied");

		await f.call("proposal.request_review", { proposal_id: p.id });
		const out = (await f.call("proposal.withdraw", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			reason_md: "Superseded.",
		})) as { proposal: Proposal };
		expect(out.proposal).toMatchObject({ status: "withdrawn", status_reason: "Superseded." });
		const event = (await allEvents(f.p)).find((e) => e.type === "proposal.withdrawn");
		expect(event).toMatchObject({ actor_id: "implementer-1", payload: { proposal_id: p.id } });

		const twice = await f.fail("proposal.withdraw", { proposal_id: p.id, agent_id: "implementer-1" });
		expect(twice.code).toBe("failed_precondition");

		const q = await f.propose({ patch: diffOf(f.p.root, "README.md", "three\n") });
		await f.call("patch.reject", { proposal_id: q.id, reason_md: "No." });
		const rejected = await f.fail("proposal.withdraw", { proposal_id: q.id, agent_id: "implementer-1" });
		expect(rejected.code).toBe("failed_precondition");
	});

	test("reject works from pending and in_review, records a decision and emits both events", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const pending = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const reviewing = await f.propose({ patch: diffOf(f.p.root, "README.md", "three\n") });
		await f.call("proposal.request_review", { proposal_id: reviewing.id });

		const a = (await f.call("patch.reject", { proposal_id: pending.id, reason_md: "Not needed." })) as {
			proposal: Proposal;
			decision: {
				id: string;
				decision: string;
				rationale_md: string;
				decided_by: string;
				proposal_id: string;
				task_id: string;
			};
		};
		expect(a.proposal).toMatchObject({ status: "rejected", status_reason: "Not needed." });
		expect(a.decision).toMatchObject({
			decision: "rejected",
			rationale_md: "Not needed.",
			decided_by: "operator",
			proposal_id: pending.id,
			task_id: f.task,
		});
		const b = (await f.call("patch.reject", {
			proposal_id: reviewing.id,
			reason_md: "Wrong approach.",
			decided_by: "chair-1",
			decision_id: "D-mine",
		})) as { proposal: Proposal; decision: { id: string; decided_by: string } };
		expect(b.proposal.status).toBe("rejected");
		expect(b.decision).toMatchObject({ id: "D-mine", decided_by: "chair-1" });

		const events = await allEvents(f.p);
		const rejected = events.filter((e) => e.type === "proposal.rejected");
		expect(rejected.map((e) => e.payload.proposal_id)).toEqual([pending.id, reviewing.id]);
		expect(rejected[1]?.actor_id).toBe("chair-1");
		const decided = events.filter((e) => e.type === "decision.recorded");
		expect(decided.map((e) => [e.payload.decision_id, e.payload.proposal_id, e.payload.decision])).toEqual([
			[a.decision.id, pending.id, "rejected"],
			["D-mine", reviewing.id, "rejected"],
		]);

		// Closed proposals are not rejected again, and nothing more is recorded.
		const again = await f.fail("patch.reject", { proposal_id: pending.id, reason_md: "Again." });
		expect(again.code).toBe("failed_precondition");
		const w = await f.propose({ patch: diffOf(f.p.root, "README.md", "four\n") });
		await f.call("proposal.withdraw", { proposal_id: w.id, agent_id: "implementer-1" });
		expect((await f.fail("patch.reject", { proposal_id: w.id, reason_md: "No." })).code).toBe(
			"failed_precondition",
		);
		expect((await allEvents(f.p)).filter((e) => e.type === "decision.recorded")).toHaveLength(2);
	});
});

describe("proposal.request_review", () => {
	async function review(f: Flow, id: string) {
		return (await f.call("proposal.request_review", { proposal_id: id })) as {
			proposal: Proposal;
			review_roles: string[];
			reviewers: Reviewer[];
			policy: Evaluation;
			human_approval_required: boolean;
			security_review_required: boolean;
		};
	}

	test("Reviewer always; pending becomes in_review once, with one event", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const out = await review(f, p.id);
		expect(out.proposal.status).toBe("in_review");
		expect(out.review_roles).toEqual(["Reviewer"]);
		expect(out.reviewers).toEqual([{ role: "Reviewer", agent_id: "reviewer-1", adapter: "gemini" }]);
		expect(out.human_approval_required).toBe(false);
		expect(out.security_review_required).toBe(false);
		expect(out.policy.profiles).toEqual(["default"]);

		const again = await review(f, p.id);
		expect(again.proposal.status).toBe("in_review");
		const requested = (await allEvents(f.p)).filter((e) => e.type === "proposal.review_requested");
		expect(requested).toHaveLength(1);
		expect(requested[0]?.payload).toMatchObject({
			proposal_id: p.id,
			patch_revision: 1,
			roles: ["Reviewer"],
			reviewers: ["reviewer-1"],
		});
	});

	test("the author is never a reviewer: a role with no other agent has agent_id null", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("reviewer-1", "README.md");
		const p = await f.propose({ agent_id: "reviewer-1", patch: diffOf(f.p.root, "README.md", "two\n") });
		const out = await review(f, p.id);
		expect(out.reviewers).toEqual([{ role: "Reviewer", agent_id: null, adapter: null }]);
	});

	test("risk high or critical brings Security", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		for (const risk of ["high", "critical"]) {
			const p = await f.propose({ risk, patch: diffOf(f.p.root, "README.md", `${risk}\n`) });
			const out = await review(f, p.id);
			expect(out.review_roles).toEqual(["Reviewer", "Security"]);
			expect(out.reviewers).toContainEqual({ role: "Security", agent_id: "security-1", adapter: "claude" });
			expect(out.human_approval_required).toBe(true);
			expect(out.security_review_required).toBe(true);
		}
	});

	test("a high-risk path brings Security even at risk low", async () => {
		const f = await flow({ "auth/login.ts": "export const ok = true;\n" });
		await f.claim("implementer-1", "auth/login.ts");
		const p = await f.propose({
			risk: "low",
			patch: diffOf(f.p.root, "auth/login.ts", "export const ok = false;\n"),
		});
		const out = await review(f, p.id);
		expect(out.review_roles).toEqual(["Reviewer", "Security"]);
		expect(out.policy.profiles).toContain("security");
	});

	test("a detected profile brings its roles: dependency_change → Security, Tester", async () => {
		const f = await flow({ "Cargo.toml": '[dependencies]\nserde = "1"\n' });
		await f.claim("implementer-1", "Cargo.toml");
		const p = await f.propose({
			risk: "low",
			patch: diffOf(f.p.root, "Cargo.toml", '[dependencies]\nserde = "1"\nanyhow = "1"\n'),
		});
		const out = await review(f, p.id);
		expect(out.policy.profiles).toEqual(["default", "dependency_change"]);
		expect(out.review_roles).toEqual(["Reviewer", "Security", "Tester"]);
		expect(out.reviewers).toEqual([
			{ role: "Reviewer", agent_id: "reviewer-1", adapter: "gemini" },
			{ role: "Security", agent_id: "security-1", adapter: "claude" },
			{ role: "Tester", agent_id: "tester-1", adapter: "codex" },
		]);
		expect(out.human_approval_required).toBe(true);
		expect(out.security_review_required).toBe(true);
	});

	test("a policy role no agent holds is listed with agent_id null", async () => {
		const f = await flow({ "README.md": "one\n" });
		f.appendPolicy("consensus:\n  default:\n    required_roles: [Auditor]");
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const out = await review(f, p.id);
		expect(out.review_roles).toEqual(["Auditor", "Reviewer"]);
		expect(out.reviewers).toContainEqual({ role: "Auditor", agent_id: null, adapter: null });
	});

	test("closed proposals cannot be sent to review", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.call("proposal.withdraw", { proposal_id: p.id, agent_id: "implementer-1" });
		const err = await f.fail("proposal.request_review", { proposal_id: p.id });
		expect(err.code).toBe("failed_precondition");
	});
});

describe("patch.validate", () => {
	test("reports every gate with a reason, plus valid and approvable", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const v = await f.validate(p.id);
		expect(v.gates.map((g) => g.gate)).toEqual(GATES);
		for (const g of v.gates) expect(g.reason.trim()).not.toBe("");
		expect(v.valid).toBe(true);
		expect(v.approvable).toBe(false);
		expect(f.gate(v, "quorum")).toEqual({ gate: "quorum", ok: false, reason: "need 2 approvals, have 0" });
		expect(v.policy?.summary).toBe("need 2 approvals, have 0");
	});

	test("a missing patch file fails the artifact gate", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.vote(p.id, "architect-1");
		await f.vote(p.id, "reviewer-1");
		rmSync(join(f.p.root, ".roundtable", "patches", `${p.patch_sha256}.diff`));
		const v = await f.validate(p.id);
		expect(v.gates.map((g) => g.gate)).toEqual(GATES);
		const artifact = f.gate(v, "artifact");
		expect(artifact.ok).toBe(false);
		expect(artifact.reason).toContain(p.patch_sha256);
		expect(f.gate(v, "apply_check").ok).toBe(false);
		expect(v.valid).toBe(false);
		expect(v.approvable).toBe(false);
		const got = (await f.call("proposal.get", { proposal_id: p.id })) as { patch: string | null };
		expect(got.patch).toBeNull();
	});

	test("a patch that no longer applies fails apply_check with git's message", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		write(f.p.root, "README.md", "someone else\n");
		const v = await f.validate(p.id);
		const apply = f.gate(v, "apply_check");
		expect(apply.ok).toBe(false);
		expect(apply.reason).toMatch(/^git apply --check fails: .*(patch does not apply|README\.md)/);
		expect(v.valid).toBe(false);
	});

	test("a malformed POLICIES.ROUNDTABLE.md fails the policy gate with file:line; request_review refuses", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.vote(p.id, "architect-1");
		await f.vote(p.id, "reviewer-1");
		expect((await f.validate(p.id)).approvable).toBe(true);

		writeFileSync(
			join(f.p.root, "POLICIES.ROUNDTABLE.md"),
			"# Policies\n\n```yaml\nconsensus:\n  default:\n    approvals_required: lots\n```\n",
		);
		const v = await f.validate(p.id);
		expect(v.valid).toBe(true);
		expect(v.approvable).toBe(false);
		expect(v.policy).toBeNull();
		const policy = f.gate(v, "policy");
		expect(policy.ok).toBe(false);
		expect(policy.reason).toMatch(/^POLICIES\.ROUNDTABLE\.md:6: .*approvals_required/);

		const err = await f.fail("proposal.request_review", { proposal_id: p.id });
		expect(err.code).toBe("failed_precondition");
		expect(err.details).toMatchObject({ file: "POLICIES.ROUNDTABLE.md", line: 6 });
		const got = (await f.call("proposal.get", { proposal_id: p.id })) as { proposal: Proposal };
		expect(got.proposal.status).toBe("pending");
	});
});

describe("policy gates through patch.validate", () => {
	const CARGO = '[dependencies]\nserde = "1"\n';
	const CARGO2 = '[dependencies]\nserde = "1"\nanyhow = "1"\n';

	test("the strictest detected profile's quorum wins", async () => {
		const f = await flow({ "Cargo.toml": CARGO, "README.md": "one\n" });
		f.appendPolicy("consensus:\n  dependency_change:\n    approvals_required: 3");
		await f.claim("implementer-1", "Cargo.toml");
		await f.claim("implementer-1", "README.md");
		const dep = await f.propose({ patch: diffOf(f.p.root, "Cargo.toml", CARGO2) });
		const docs = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		for (const id of [dep.id, docs.id]) {
			await f.vote(id, "security-1");
			await f.vote(id, "tester-1");
		}
		const v = await f.validate(dep.id);
		expect(v.policy).toMatchObject({ approvals: 2, approvals_required: 3 });
		expect(f.gate(v, "quorum")).toMatchObject({ ok: false, reason: "need 3 approvals, have 2" });
		// The default profile alone still needs 2.
		const d = await f.validate(docs.id);
		expect(d.policy).toMatchObject({ approvals_required: 2 });
		expect(f.gate(d, "quorum").ok).toBe(true);

		await f.vote(dep.id, "reviewer-1");
		expect(f.gate(await f.validate(dep.id), "quorum")).toMatchObject({ ok: true });
	});

	test("required_roles: each required role must approve", async () => {
		const f = await flow({ "Cargo.toml": CARGO });
		await f.claim("implementer-1", "Cargo.toml");
		const p = await f.propose({ patch: diffOf(f.p.root, "Cargo.toml", CARGO2) });
		await f.vote(p.id, "architect-1");
		await f.vote(p.id, "reviewer-1");
		let v = await f.validate(p.id);
		expect(v.policy?.required_roles).toEqual(["Security", "Tester"]);
		expect(f.gate(v, "quorum").ok).toBe(true);
		expect(f.gate(v, "roles")).toMatchObject({
			ok: false,
			reason: "missing approval from roles Security, Tester",
		});
		await f.vote(p.id, "security-1");
		await f.vote(p.id, "tester-1", "abstain");
		v = await f.validate(p.id);
		expect(f.gate(v, "roles")).toMatchObject({ ok: false, reason: "missing approval from role Tester" });
		await f.vote(p.id, "tester-1", "approve_with_notes");
		expect(f.gate(await f.validate(p.id), "roles").ok).toBe(true);
	});

	test("tests_required (dependency_change): only a passing test run on the current revision", async () => {
		const f = await flow({ "Cargo.toml": CARGO });
		await f.claim("implementer-1", "Cargo.toml");
		const p = await f.propose({ patch: diffOf(f.p.root, "Cargo.toml", CARGO2) });
		let v = await f.validate(p.id);
		expect(v.policy?.tests_required).toBe(true);
		expect(f.gate(v, "tests")).toMatchObject({ ok: false });
		expect(f.gate(v, "tests").reason).toContain("dependency_change");
		await f.passTests(p, "failed");
		// A tester's report of a pass is shown, never counted.
		await f.p.call("test.evidence.submit", {
			proposal_id: p.id,
			agent_id: "tester-1",
			command: "cargo test",
			outcome: "passed",
			summary_md: "all green here",
		});
		const reported = await f.validate(p.id);
		expect(f.gate(reported, "tests").ok).toBe(false);
		expect(
			(reported as unknown as { reported_evidence: { outcome: string }[] }).reported_evidence,
		).toMatchObject([{ outcome: "passed", agent_id: "tester-1", patch_revision: 1, status: "reported" }]);
		await f.passTests(p);
		v = await f.validate(p.id);
		expect(f.gate(v, "tests")).toMatchObject({
			ok: true,
			reason: "a passing test run for revision 1 (TR-test-2, unsandboxed)",
		});

		// A README-only change does not need tests.
		const g = await flow({ "README.md": "one\n" });
		await g.claim("implementer-1", "README.md");
		const q = await g.propose({ patch: diffOf(g.p.root, "README.md", "two\n") });
		expect(g.gate(await g.validate(q.id), "tests")).toMatchObject({ ok: true, reason: "not required" });
	});

	test("rollback_plan_required (migration): rollback_notes satisfies it", async () => {
		const f = await flow({ "db/migrations/001_init.sql": "create table t (id int);\n" });
		await f.claim("implementer-1", "db/migrations/001_init.sql");
		const patch = diffOf(f.p.root, "db/migrations/001_init.sql", "create table t (id int, name text);\n");
		const bare = await f.propose({ patch });
		const v = await f.validate(bare.id);
		expect(v.policy?.profiles).toContain("migration");
		expect(v.policy?.rollback_plan_required).toBe(true);
		const gate = f.gate(v, "rollback_plan");
		expect(gate.ok).toBe(false);
		expect(gate.reason).toContain("rollback notes");

		const planned = await f.propose({ patch, rollback_notes: "alter table t drop column name;" });
		expect(f.gate(await f.validate(planned.id), "rollback_plan")).toMatchObject({
			ok: true,
			reason: "rollback plan given",
		});
	});

	test("security_approval_required (destructive_command): the security review must approve", async () => {
		const f = await flow({ "scripts/clean.sh": "#!/bin/sh\necho cleaning\n" });
		await f.claim("implementer-1", "scripts/clean.sh");
		const p = await f.propose({
			patch: diffOf(f.p.root, "scripts/clean.sh", "#!/bin/sh\necho cleaning\nrm -rf build\n"),
		});
		let v = await f.validate(p.id);
		expect(v.policy?.profiles).toContain("destructive_command");
		expect(v.policy?.dangerous_commands).toEqual(["rm"]);
		expect(v.policy?.security_review_required).toBe(true);
		expect(f.gate(v, "security_review")).toMatchObject({ ok: false });
		expect(f.gate(v, "security_review").reason).toContain("destructive_command");

		const scan = (await f.call("security.review", { proposal_id: p.id })) as { review: { status: string } };
		expect(scan.review.status).toBe("needs_changes");
		v = await f.validate(p.id);
		expect(f.gate(v, "security_review")).toMatchObject({
			ok: false,
			reason: "security review asks for changes to revision 1",
		});

		await f.call("security.review", { proposal_id: p.id, status: "approved", summary_md: "Build dir only." });
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({ ok: true });
	});

	test("a human approval satisfies the human gate only, never the quorum", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ risk: "high", patch: diffOf(f.p.root, "README.md", "two\n") });
		const { approval } = (await f.call("human.request_approval", {
			subject: "README",
			reason_md: "High risk.",
			proposal_id: p.id,
		})) as { approval: { id: string } };
		await f.call("human.request_approval", {
			approval_id: approval.id,
			subject: "README",
			reason_md: "High risk.",
			status: "approved",
			override_policy: true,
		});
		const v = await f.validate(p.id);
		expect(f.gate(v, "human_approval")).toMatchObject({ ok: true, reason: "approved by a human" });
		expect(f.gate(v, "quorum")).toMatchObject({ ok: false, reason: "need 2 approvals, have 0" });
		expect(f.gate(v, "roles").ok).toBe(false);
		expect(v.approvable).toBe(false);
	});

	test("override_policy overrides a security veto (review and vote); a plain approval does not", async () => {
		const f = await flow({ "auth/login.ts": "export const strict = true;\n" });
		await f.claim("implementer-1", "auth/login.ts");
		const p = await f.propose({
			risk: "high",
			patch: diffOf(f.p.root, "auth/login.ts", "export const strict = false;\n"),
		});
		await f.vote(p.id, "architect-1");
		await f.vote(p.id, "reviewer-1");
		await f.vote(p.id, "security-1");
		await f.vote(p.id, "tester-1", "veto");
		await f.call("security.review", { proposal_id: p.id, status: "veto", summary_md: "Weakens auth." });
		const request = async () =>
			(
				(await f.call("human.request_approval", {
					subject: "Relax login",
					reason_md: "High risk.",
					proposal_id: p.id,
				})) as { approval: { id: string } }
			).approval.id;
		const decide = (id: string, extra: Record<string, unknown>) =>
			f.call("human.request_approval", {
				approval_id: id,
				subject: "Relax login",
				reason_md: "High risk.",
				status: "approved",
				...extra,
			});

		let v = await f.validate(p.id);
		expect(f.gate(v, "security_review").ok).toBe(false);
		expect(f.gate(v, "security_review").reason).toContain("override_policy");
		expect(f.gate(v, "vetoes").ok).toBe(false);
		expect(f.gate(v, "blockers").ok).toBe(false);

		const id = await request();
		await decide(id, {});
		v = await f.validate(p.id);
		expect(f.gate(v, "human_approval").ok).toBe(true);
		expect(f.gate(v, "security_review").ok).toBe(false);
		expect(f.gate(v, "vetoes").ok).toBe(false);
		expect(v.approvable).toBe(false);

		await decide(id, { override_policy: true, decision_md: "Accepted risk." });
		v = await f.validate(p.id);
		expect(f.gate(v, "security_review")).toMatchObject({ ok: true });
		expect(f.gate(v, "security_review").reason).toContain("overridden");
		expect(f.gate(v, "vetoes")).toMatchObject({ ok: true });
		expect(f.gate(v, "blockers")).toMatchObject({ ok: true });
		expect(v.gates.filter((g) => !g.ok)).toEqual([]);
		expect(v.approvable).toBe(true);
	});

	test("a revise or reject vote is never lifted by override_policy", async () => {
		const f = await flow({ "auth/login.ts": "export const strict = true;\n" });
		await f.claim("implementer-1", "auth/login.ts");
		const p = await f.propose({
			risk: "high",
			patch: diffOf(f.p.root, "auth/login.ts", "export const strict = false;\n"),
		});
		await f.vote(p.id, "architect-1");
		await f.vote(p.id, "security-1");
		await f.vote(p.id, "reviewer-1", "reject");
		const { approval } = (await f.call("human.request_approval", {
			subject: "s",
			reason_md: "r",
			proposal_id: p.id,
		})) as { approval: { id: string } };
		await f.call("human.request_approval", {
			approval_id: approval.id,
			subject: "s",
			reason_md: "r",
			status: "approved",
			override_policy: true,
		});
		const v = await f.validate(p.id);
		expect(f.gate(v, "blockers").ok).toBe(false);
		expect(v.approvable).toBe(false);
	});

	test("votes, a security review, a human approval and a test run each stop counting after attach_patch", async () => {
		const f = await flow({ "Cargo.toml": CARGO });
		await f.claim("implementer-1", "Cargo.toml");
		const p = await f.propose({ patch: diffOf(f.p.root, "Cargo.toml", CARGO2) });
		await f.vote(p.id, "security-1");
		await f.vote(p.id, "tester-1");
		await f.passTests(p);
		const scan = (await f.call("security.review", { proposal_id: p.id })) as {
			review: { status: string; patch_revision: number };
		};
		expect(scan.review).toMatchObject({ status: "approved", patch_revision: 1 });
		const { approval } = (await f.call("human.request_approval", {
			subject: "Add anyhow",
			reason_md: "Dependency change.",
			proposal_id: p.id,
		})) as { approval: { id: string; patch_revision: number } };
		expect(approval.patch_revision).toBe(1);
		await f.call("human.request_approval", {
			approval_id: approval.id,
			subject: "Add anyhow",
			reason_md: "Dependency change.",
			status: "approved",
		});
		const before = await f.validate(p.id);
		expect(before.gates.filter((g) => !g.ok)).toEqual([]);
		expect(before.approvable).toBe(true);

		await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "Cargo.toml", '[dependencies]\nserde = "1"\nanyhow = "1.0.80"\n'),
		});
		const after = await f.validate(p.id);
		expect(after.valid).toBe(true);
		expect(after.approvable).toBe(false);
		expect(after.policy).toMatchObject({ approvals: 0 });
		for (const g of ["quorum", "roles", "tests", "human_approval", "security_review"]) {
			expect(f.gate(after, g).ok).toBe(false);
		}
		expect(f.gate(after, "tests").reason).toContain("revision 2");
		expect(f.gate(after, "human_approval").reason).toContain("revision 2");
		expect(f.gate(after, "security_review").reason).toContain("revision 2");

		const votes = (await f.call("vote.list", { proposal_id: p.id })) as {
			votes: { patch_revision: number }[];
			patch_revision: number;
		};
		expect(votes.patch_revision).toBe(2);
		expect(votes.votes.map((v) => v.patch_revision)).toEqual([1, 1]);
		const status = (await f.call("human.approval_status", { approval_id: approval.id })) as {
			current: boolean;
		};
		expect(status.current).toBe(false);

		// Each kind of evidence counts again once given for revision 2.
		const current = ((await f.call("proposal.get", { proposal_id: p.id })) as { proposal: Proposal })
			.proposal;
		await f.vote(p.id, "security-1");
		await f.vote(p.id, "tester-1");
		await f.passTests(current);
		await f.call("security.review", { proposal_id: p.id });
		const again = (await f.call("human.request_approval", {
			subject: "Add anyhow 1.0.80",
			reason_md: "Dependency change.",
			proposal_id: p.id,
		})) as { approval: { id: string; patch_revision: number } };
		expect(again.approval.patch_revision).toBe(2);
		await f.call("human.request_approval", {
			approval_id: again.approval.id,
			subject: "Add anyhow 1.0.80",
			reason_md: "Dependency change.",
			status: "approved",
		});
		expect((await f.validate(p.id)).approvable).toBe(true);
	});
});
