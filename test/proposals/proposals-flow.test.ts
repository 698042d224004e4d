// The governed path of reference §12, end to end over a real git repository: claim, propose,
// review, vote, approve, validate. And the ways it must not pass: the author's own vote, repeated
// votes, a stale claim, evidence about an older revision.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { flow } from "../_helpers/flow-helpers.ts";
import { addRun, allEvents, diffOf, write } from "../_helpers/helpers.ts";

describe("reference §12: the happy path", () => {
	test("claim, propose, request review, two approvals: valid and approvable", async () => {
		const f = await flow({ "README.md": "# Project\n\nHello.\n" });
		await f.claim("implementer-1", "README.md");
		const patch = diffOf(f.p.root, "README.md", "# Project\n\nHello, world.\n");
		const { id } = await f.propose({ affected_resources: ["file:README.md"], patch });

		const review = (await f.call("proposal.request_review", { proposal_id: id })) as {
			proposal: { status: string };
			review_roles: string[];
			reviewers: { role: string; agent_id: string | null }[];
		};
		expect(review.proposal.status).toBe("in_review");
		expect(review.review_roles).toContain("Reviewer");
		expect(review.reviewers).toContainEqual(
			expect.objectContaining({ role: "Reviewer", agent_id: "reviewer-1" }),
		);
		expect(review.reviewers.map((r) => r.agent_id)).not.toContain("implementer-1");

		const before = await f.validate(id);
		expect(before.valid).toBe(true);
		expect(before.approvable).toBe(false);
		expect(f.gate(before, "quorum").ok).toBe(false);

		await f.vote(id, "architect-1");
		await f.vote(id, "reviewer-1");
		const v = await f.validate(id);
		expect(v.gates.filter((g) => !g.ok)).toEqual([]);
		expect(v).toMatchObject({ valid: true, approvable: true });
		expect(f.gate(v, "apply_check").ok).toBe(true);

		// Steps 9 and 10: apply changes the file; watch shows the transaction and its events.
		await addRun(f.p, "RUN-1");
		const applied = (await f.call("patch.apply", {
			proposal_id: id,
			run_id: "RUN-1",
			transaction_id: "TX-1",
		})) as {
			proposal: { status: string };
			transaction: { id: string; files: { path: string }[] };
			released_claims: string[];
		};
		expect(applied.proposal.status).toBe("accepted");
		expect(applied.transaction.id).toBe("TX-1");
		expect(applied.transaction.files.map((x) => x.path)).toEqual(["README.md"]);
		expect(applied.released_claims).toHaveLength(1);
		expect(readFileSync(join(f.p.root, "README.md"), "utf8")).toBe("# Project\n\nHello, world.\n");
		const watch = (await f.call("table.watch", { limit: 20 })) as {
			transactions: { id: string }[];
			events: { type: string }[];
		};
		expect(watch.transactions.map((t) => t.id)).toEqual(["TX-1"]);
		expect(watch.events.map((e) => e.type)).toContain("patch.applied");

		// And back.
		const back = (await f.call("patch.rollback", { transaction_id: "TX-1" })) as {
			proposal: { status: string };
			rolled_back: { status: string };
		};
		expect(back.proposal.status).toBe("rolled_back");
		expect(back.rolled_back.status).toBe("rolled_back");
		expect(readFileSync(join(f.p.root, "README.md"), "utf8")).toBe("# Project\n\nHello.\n");

		const types = (await allEvents(f.p)).map((e) => e.type);
		for (const t of [
			"claim.created",
			"proposal.created",
			"proposal.review_requested",
			"vote.cast",
			"patch.applied",
			"patch.rolled_back",
		])
			expect(types).toContain(t);
	});
});

describe("reference §12: the high-risk path", () => {
	test("auth/** at risk high needs Security's vote, a security review and a human approval", async () => {
		const f = await flow({
			"auth/login.ts": "export function login(user: string) {\n\treturn user.length > 0;\n}\n",
		});
		await f.claim("implementer-1", "auth/login.ts");
		const patch = diffOf(
			f.p.root,
			"auth/login.ts",
			"export function login(user: string) {\n\treturn user.trim().length > 0;\n}\n",
		);
		const { id } = await f.propose({ affected_resources: ["file:auth/login.ts"], patch, risk: "high" });
		const review = (await f.call("proposal.request_review", { proposal_id: id })) as {
			review_roles: string[];
			human_approval_required: boolean;
			security_review_required: boolean;
		};
		expect(review.review_roles).toContain("Security");
		expect(review.human_approval_required).toBe(true);
		expect(review.security_review_required).toBe(true);

		await f.vote(id, "architect-1");
		await f.vote(id, "reviewer-1");
		const short = await f.validate(id);
		expect(short.valid).toBe(true);
		expect(short.approvable).toBe(false);
		for (const g of ["roles", "human_approval", "security_review"]) expect(f.gate(short, g).ok).toBe(false);

		await f.vote(id, "security-1");
		const scan = (await f.call("security.review", { proposal_id: id })) as { review: { status: string } };
		expect(scan.review.status).toBe("approved");
		const request = (await f.call("human.request_approval", {
			subject: "Change login check",
			reason_md: "High risk",
			proposal_id: id,
		})) as { approval: { id: string; status: string } };
		expect(request.approval.status).toBe("requested");
		expect(f.gate(await f.validate(id), "human_approval").ok).toBe(false);
		await f.call("human.request_approval", {
			approval_id: request.approval.id,
			subject: "Change login check",
			reason_md: "High risk",
			status: "approved",
			decided_by: "operator",
		});
		const v = await f.validate(id);
		expect(v.gates.filter((g) => !g.ok)).toEqual([]);
		expect(v.approvable).toBe(true);

		// A later rejection revokes the approval.
		await f.call("human.request_approval", {
			approval_id: request.approval.id,
			subject: "Change login check",
			reason_md: "High risk",
			status: "rejected",
		});
		expect((await f.validate(id)).approvable).toBe(false);
	});
});

describe("what does not make quorum", () => {
	test("the author's own vote and a repeated vote count once at most", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const { id } = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.vote(id, "implementer-1");
		await f.vote(id, "reviewer-1");
		await f.vote(id, "reviewer-1", "approve_with_notes");
		const votes = (await f.call("vote.list", { proposal_id: id })) as { votes: unknown[] };
		expect(votes.votes.length).toBe(2);
		const v = await f.validate(id);
		expect(v.policy?.approvals).toBe(1);
		expect(f.gate(v, "quorum")).toMatchObject({ ok: false });
		expect(v.approvable).toBe(false);
		const replaced = (await allEvents(f.p)).filter(
			(e) => e.type === "vote.cast" && e.payload.replaced !== null,
		);
		expect(replaced.length).toBe(1);
	});
});

describe("stale evidence", () => {
	test("a claim whose file changed since it was taken fails validation", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const { id } = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		write(f.p.root, "README.md", "someone else changed it\n");
		const v = await f.validate(id);
		expect(v.valid).toBe(false);
		expect(f.gate(v, "claims").ok).toBe(false);
		expect(v.stale_claims.length).toBe(1);
		expect(f.gate(v, "apply_check").ok).toBe(false);
	});

	test("votes about an older revision stop counting after attach_patch", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const { id } = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		await f.vote(id, "architect-1");
		await f.vote(id, "reviewer-1");
		expect((await f.validate(id)).approvable).toBe(true);
		const revised = (await f.call("proposal.attach_patch", {
			proposal_id: id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		})) as { proposal: { patch_revision: number; status: string } };
		expect(revised.proposal).toMatchObject({ patch_revision: 2, status: "pending" });
		const v = await f.validate(id);
		expect(v.policy?.approvals).toBe(0);
		expect(v.approvable).toBe(false);
		await f.vote(id, "architect-1");
		await f.vote(id, "reviewer-1");
		expect((await f.validate(id)).approvable).toBe(true);
	});
});

describe("security review of a resource", () => {
	test("a resource-only review finds a planted secret, with path and line, and vetoes", async () => {
		const f = await flow({
			"config.ts": "export const region = 'eu';\nexport const key = 'AKIAEXAMPLEEXAMPLE00';\n",
		});
		const out = (await f.call("security.review", { resource_id: "file:config.ts" })) as {
			review: { status: string; mode: string };
			findings: { path: string; line: number; severity: string }[];
		};
		expect(out.review).toMatchObject({ status: "veto", mode: "auto" });
		expect(out.findings[0]).toMatchObject({ path: "config.ts", line: 2, severity: "critical" });
	});
});
