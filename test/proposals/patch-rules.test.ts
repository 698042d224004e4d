// What a patch may not carry (issue 30's weak points): a symlink out of the project or onto .git or
// .roundtable, a path that is .git or .roundtable to some filesystem (git's verify_path with
// protectHFS and protectNTFS), and more bytes, revisions or open proposals than the limits allow.
// Each refusal names what it refused and records nothing.
import { afterAll, describe, expect, test } from "bun:test";
import { protectedName } from "../../src/proposals/protected-names.ts";
import { flow } from "../_helpers/flow-helpers.ts";
import { allEvents, commitAll, makeProject, removeTempDirs } from "../_helpers/helpers.ts";
import { newFilePatch, symlinkPatch } from "../_helpers/patches.ts";

afterAll(removeTempDirs);

/** A git-style patch that adds `path` with one line. */
const addition = (path: string, line = "x") => newFilePatch(path, `${line}\n`);

/** proposal.create's arguments for implementer-1 on `task`, carrying `patch`. */
const proposing = (task: string, patch: string): Record<string, unknown> => ({
	task_id: task,
	agent_id: "implementer-1",
	title: "t",
	summary_md: "s",
	affected_resources: [],
	risk: "low",
	patch,
});

describe("symlinks in a patch", () => {
	for (const [name, target] of [
		["the operator's token", "../.roundtable/operator.token"],
		["the project's .roundtable from a subfolder", "../.roundtable"],
		["an absolute path", "/etc/passwd"],
		["a path above the project", "../../outside"],
		["the repository's .git", ".git/config"],
		["a .git in another case", "sub/../.GIT/hooks"],
	] as const) {
		test(`one pointing at ${name} is invalid_argument naming the path; nothing is recorded`, async () => {
			const f = await flow({ "src/a.ts": "export const a = 1;\n" });
			await f.claim("implementer-1", "src/link");
			const before = (await allEvents(f.p)).length;
			const err = await f.p.fail("proposal.create", proposing(f.task, symlinkPatch("src/link", target)));
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toContain("'src/link' a symlink to");
			expect(err.details).toMatchObject({ field: "patch", path: "src/link", target });
			expect((await allEvents(f.p)).length).toBe(before);
		});
	}

	test("one that stays inside is accepted, and brings in the security review", async () => {
		const f = await flow({ "src/a.ts": "export const a = 1;\n" });
		await f.claim("implementer-1", "src/alias.ts");
		const proposal = await f.propose({ patch: symlinkPatch("src/alias.ts", "a.ts"), risk: "low" });
		const v = await f.validate(proposal.id);
		expect(v.policy).toMatchObject({ security_review_required: true });
		expect(f.gate(v, "security_review")).toEqual({
			gate: "security_review",
			ok: false,
			reason: "security review required (symlink src/alias.ts): none for revision 1",
		});
		// Only the review: no human approval, no Security vote.
		expect(v.policy).toMatchObject({ human_approval_required: false, missing_roles: [] });
		// The same change as a plain file needs none.
		const g = await flow({ "src/a.ts": "export const a = 1;\n" });
		await g.claim("implementer-1", "src/alias.ts");
		const plain = await g.propose({ patch: addition("src/alias.ts"), risk: "low" });
		expect((await g.validate(plain.id)).policy).toMatchObject({ security_review_required: false });
	});
});

describe("paths that are .git or .roundtable on some filesystem", () => {
	const spellings = [
		".GIT/hooks/pre-commit",
		".Git/config",
		".git./hooks/x",
		".git /hooks/x",
		"GIT~1/hooks/x",
		"git~2/config",
		".g\u200cit/hooks/x",
		"\ufeff.git/hooks/x",
		".git::$INDEX_ALLOCATION/hooks/x",
		"sub\\.git\\hooks\\x",
		".ROUNDTABLE/operator.token",
		"ROUNDT~1/config.yaml",
		"src/.Roundtable./x",
	];
	test("each is invalid_argument naming the path and what it stands for", async () => {
		const p = await makeProject();
		commitAll(p.root, { "README.md": "# r\n" });
		await p.call("task.create", { task_id: "T-p", title: "t", body_md: "b" });
		for (const path of spellings) {
			const err = await p.fail("proposal.create", proposing("T-p", addition(path)));
			expect({ path, code: err.code }).toEqual({ path, code: "invalid_argument" });
			expect(err.details).toMatchObject({ field: "patch", path });
			expect(err.message).toMatch(/is \.(git|roundtable) on some filesystems/);
		}
	});

	test("names that only look alike stay ordinary", () => {
		for (const name of [".gitignore", ".github", "git", ".gitx", "git~", ".roundtable-notes", "roundtable"])
			expect({ name, is: protectedName(name) }).toEqual({ name, is: undefined });
	});
});

describe("limits", () => {
	test("a patch over limits.max_patch_bytes is resource_exhausted naming the key, before it is parsed or stored", async () => {
		const f = await flow({ "src/a.ts": "export const a = 1;\n" });
		await f.claim("implementer-1", "src/big.txt");
		const big = addition("src/big.txt", "y".repeat(14 * 1024 * 1024));
		const err = await f.p.fail("proposal.create", proposing(f.task, big));
		expect(err.code).toBe("resource_exhausted");
		expect(err.message).toContain("limits.max_patch_bytes (2097152)");
		expect(err.details).toMatchObject({ limit: "limits.max_patch_bytes", max: 2097152 });
	});

	test("revisions past limits.max_revisions_per_proposal and open proposals past limits.max_open_proposals_per_task are refused, naming the key", async () => {
		const p = await makeProject({
			config: "limits:\n  max_revisions_per_proposal: 2\n  max_open_proposals_per_task: 2\n",
		});
		commitAll(p.root, { "a.txt": "a\n" });
		const { task } = (await p.call("task.create", { title: "t", body_md: "b" })) as { task: { id: string } };
		for (const path of ["b.txt", "c.txt", "d.txt"])
			await p.call("resource.claim", {
				agent_id: "implementer-1",
				task_id: task.id,
				resource_type: "file",
				resource_id: `file:${path}`,
				claim_type: "write",
			});
		const create = (path: string) => proposing(task.id, addition(path));
		const { proposal } = (await p.call("proposal.create", create("b.txt"))) as { proposal: { id: string } };
		await p.call("proposal.create", create("c.txt"));
		const third = await p.fail("proposal.create", create("d.txt"));
		expect(third.code).toBe("resource_exhausted");
		expect(third.details).toMatchObject({ limit: "limits.max_open_proposals_per_task", max: 2, open: 2 });
		await p.call("proposal.withdraw", { proposal_id: proposal.id, agent_id: "implementer-1" });
		await p.call("proposal.create", create("d.txt"));

		const open = (await p.call("proposal.list", { task_id: task.id, status: "pending" })) as {
			proposals: { id: string; patch_files: string[] }[];
		};
		const id = open.proposals.find((x) => x.patch_files.includes("c.txt"))?.id as string;
		await p.call("proposal.attach_patch", {
			proposal_id: id,
			agent_id: "implementer-1",
			patch: addition("c.txt", "again"),
		});
		const err = await p.fail("proposal.attach_patch", {
			proposal_id: id,
			agent_id: "implementer-1",
			patch: addition("c.txt", "third"),
		});
		expect(err.code).toBe("resource_exhausted");
		expect(err.message).toContain("limits.max_revisions_per_proposal allows (2)");
		expect(err.details).toMatchObject({ limit: "limits.max_revisions_per_proposal", max: 2 });
	});
});
