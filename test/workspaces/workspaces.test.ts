// An agent's workspace, in process with real git: made as a launch makes it (a copy of what the task
// may read, a git repository of its own), edited as an agent would, then workspace.diff and
// workspace.propose through call(): the proposal holds exactly the change, changed files outside the
// agent's write claims refuse it naming each, and nothing the agent planted in its .git runs.
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { createWorkspace, type Workspace } from "../../src/workspaces/create.ts";
import {
	allEvents,
	commitAll,
	makeProject,
	type Project,
	removeTempDirs,
	tempDir,
	until,
} from "../_helpers/helpers.ts";

afterAll(removeTempDirs);

const made: Workspace[] = [];
afterAll(() => {
	for (const w of made) w.remove();
});

/** A project, a task for implementer-1 reading `readable`, its session and that session's workspace. */
async function setup(readable: string[]) {
	const p = await makeProject();
	commitAll(p.root, {
		"src/a.ts": "export const a = 1;\n",
		"src/b.ts": "export const b = 1;\n",
		"src/gone.ts": "export const gone = 1;\n",
		"private/plans.md": "PRIVATE\n",
	});
	await p.call("task.create", {
		task_id: "T-w",
		title: "t",
		body_md: "b",
		assigned_agent_id: "implementer-1",
		readable_paths: readable,
	});
	const { session } = (await p.call("session.mint", {
		agent_id: "implementer-1",
		capability_sha256: "a".repeat(64),
		task_id: "T-w",
	})) as { session: { id: string; role: string } };
	const ws = await createWorkspace(p.root, session.id, readable);
	made.push(ws);
	const agent: CallContext = {
		...p.ctx,
		transport: "http",
		principal: {
			kind: "agent",
			agent_id: "implementer-1",
			role: session.role,
			session_id: session.id,
			task_id: "T-w",
		},
	};
	const as = <T>(tool: string, args: Record<string, unknown>) => call(p.rt, tool, args, agent) as Promise<T>;
	const fails = (tool: string, args: Record<string, unknown>) =>
		(call(p.rt, tool, args, agent) as Promise<unknown>).then(
			() => {
				throw new Error(`${tool} did not fail`);
			},
			(e) => e as { code: string; message: string; details?: Record<string, unknown> },
		);
	const claim = (path: string) =>
		as("resource.claim", {
			resource_type: "file",
			resource_id: `file:${path}`,
			claim_type: "write",
			task_id: "T-w",
		});
	return { p, ws, session: session.id, as, fails, claim };
}

/** Review asked, and the two votes the default policy wants. */
async function approve(p: Project, proposal: string) {
	await p.call("proposal.request_review", { proposal_id: proposal });
	for (const agent of ["architect-1", "reviewer-1"])
		await p.call("vote.cast", { proposal_id: proposal, agent_id: agent, vote: "approve", reason_md: "ok" });
}

type Diff = { session_id: string; base: string; patch: string; files: { path: string; change: string }[] };

describe("workspace.diff and workspace.propose", () => {
	test("the workspace holds what the task may read; the diff names every kind of change", async () => {
		const t = await setup(["src"]);
		expect(existsSync(join(t.ws.work, "private"))).toBe(false);
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 2;\n");
		writeFileSync(join(t.ws.work, "src/new.ts"), "export const fresh = true;\n");
		unlinkSync(join(t.ws.work, "src/gone.ts"));
		chmodSync(join(t.ws.work, "src/b.ts"), 0o755);
		writeFileSync(join(t.ws.work, "src/logo.bin"), new Uint8Array([0, 1, 2, 255, 0]));
		const d = await t.as<Diff>("workspace.diff", {});
		expect(d.session_id).toBe(t.session);
		expect(d.files).toEqual([
			{ path: "src/a.ts", change: "modified" },
			{ path: "src/b.ts", change: "modified" },
			{ path: "src/gone.ts", change: "deleted" },
			{ path: "src/logo.bin", change: "added" },
			{ path: "src/new.ts", change: "added" },
		]);
		expect(d.patch).toContain("+export const a = 2;");
		expect(d.patch).toContain("new mode 100755");
		expect(d.patch).toContain("GIT binary patch");
	});

	test("propose: refused naming every unclaimed file, nothing stored; once claimed, the proposal holds exactly the change and applies", async () => {
		const t = await setup(["src"]);
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 2;\n");
		writeFileSync(join(t.ws.work, "src/new.ts"), "export const fresh = true;\n");
		await t.claim("src/a.ts");
		const events = (await allEvents(t.p)).length;
		const refused = await t.fails("workspace.propose", { title: "t", summary_md: "s", risk: "low" });
		expect(refused.code).toBe("failed_precondition");
		expect(refused.message).toContain("unclaimed affected resource: file:src/new.ts");
		expect((await allEvents(t.p)).length).toBe(events);
		await t.claim("src/new.ts");
		const { proposal, files } = await t.as<{
			proposal: { id: string; agent_id: string; task_id: string };
			files: string[];
		}>("workspace.propose", { title: "Two", summary_md: "s", risk: "low" });
		expect(proposal).toMatchObject({ agent_id: "implementer-1", task_id: "T-w" });
		expect(files).toEqual(["src/a.ts", "src/new.ts"]);
		const got = (await t.p.call("proposal.get", { proposal_id: proposal.id })) as { patch: string };
		expect(got.patch).toBe((await t.as<Diff>("workspace.diff", {})).patch);
		await approve(t.p, proposal.id);
		await t.p.call("patch.apply", { proposal_id: proposal.id });
		expect(readFileSync(join(t.p.root, "src/a.ts"), "utf8")).toBe("export const a = 2;\n");
		expect(readFileSync(join(t.p.root, "src/new.ts"), "utf8")).toBe("export const fresh = true;\n");
		// With its proposal_id, a later change is the next revision.
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 3;\n");
		const again = await t.fails("workspace.propose", {
			proposal_id: proposal.id,
			title: "t",
			summary_md: "s",
			risk: "low",
		});
		expect(again.message).toContain("accepted"); // applied: no more revisions
	});

	test("the next revision of an open proposal; nothing changed, no workspace, another session: clear errors", async () => {
		const t = await setup(["src"]);
		const nothing = await t.fails("workspace.propose", { title: "t", summary_md: "s", risk: "low" });
		expect(nothing).toMatchObject({ code: "failed_precondition" });
		expect(nothing.message).toContain("nothing changed");
		await t.claim("src/a.ts");
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 2;\n");
		const { proposal } = await t.as<{ proposal: { id: string } }>("workspace.propose", {
			title: "t",
			summary_md: "s",
			risk: "low",
		});
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 5;\n");
		const revised = await t.as<{ proposal: { patch_revision: number } }>("workspace.propose", {
			proposal_id: proposal.id,
			title: "t",
			summary_md: "s",
			risk: "low",
		});
		expect(revised.proposal.patch_revision).toBe(2);
		expect((await t.fails("workspace.diff", { session_id: "S-someone-else" })).code).toBe(
			"permission_denied",
		);
		// The operator names a session; one without a workspace is failed_precondition.
		const { session } = (await t.p.call("session.mint", {
			agent_id: "reviewer-1",
			capability_sha256: "b".repeat(64),
		})) as { session: { id: string } };
		expect((await t.p.fail("workspace.diff", { session_id: session.id })).code).toBe("failed_precondition");
		expect((await t.p.fail("workspace.diff", {})).code).toBe("invalid_argument");
		expect((await t.p.call("workspace.diff", { session_id: t.session })) as Diff).toMatchObject({
			files: [{ path: "src/a.ts", change: "modified" }],
		});
		rmSync(t.ws.dir, { recursive: true, force: true });
		expect((await t.fails("workspace.diff", {})).code).toBe("failed_precondition");
	});

	test("what the agent plants in its .git (fsmonitor, hooks, attribute filters) never runs when the owner reads the workspace", async () => {
		const t = await setup(["src"]);
		const marker = join(tempDir("rt-pwned-"), "ran");
		writeFileSync(
			join(t.ws.work, ".git/config"),
			`[core]\n\tfsmonitor = "touch ${marker}"\n\thooksPath = hooks\n[filter "x"]\n\tclean = "touch ${marker}"\n[diff "x"]\n\ttextconv = "touch ${marker}"\n`,
		);
		writeFileSync(join(t.ws.work, ".gitattributes"), "* filter=x diff=x\n");
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 2;\n");
		const d = await t.as<Diff>("workspace.diff", {});
		expect(d.files.map((f) => f.path)).toEqual([".gitattributes", "src/a.ts"]);
		expect(existsSync(marker)).toBe(false);
		// The plant is live: a git that read the agent's own .git (as `git status` there does) runs it.
		Bun.spawnSync(["git", "status"], {
			cwd: t.ws.work,
			env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
		});
		expect(existsSync(marker)).toBe(true);
	});

	test("what is applied was reviewed: once a file the revision touches moved on in the project, apply_check fails naming it", async () => {
		const t = await setup(["src"]);
		await t.claim("src/a.ts");
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 2;\n");
		const { proposal } = await t.as<{ proposal: { id: string } }>("workspace.propose", {
			title: "t",
			summary_md: "s",
			risk: "low",
		});
		await approve(t.p, proposal.id);
		// A file it does not touch moving on is fine; the one it touches is not, whatever git apply would say.
		writeFileSync(join(t.p.root, "src/b.ts"), "export const b = 2;\n");
		const fine = (await t.p.call("patch.validate", { proposal_id: proposal.id })) as {
			gates: { gate: string; ok: boolean; reason: string }[];
		};
		expect(fine.gates.find((g) => g.gate === "apply_check")?.ok).toBe(true);
		writeFileSync(join(t.p.root, "src/a.ts"), "export const a = 1; // moved on\n");
		const stale = (await t.p.call("patch.validate", { proposal_id: proposal.id })) as typeof fine;
		expect(stale.gates.find((g) => g.gate === "apply_check")).toEqual({
			gate: "apply_check",
			ok: false,
			reason:
				"changed in the project since revision 1's base: src/a.ts (its author runs workspace.sync and proposes again: no merged bytes are applied unreviewed)",
		});
		expect((await t.p.fail("patch.apply", { proposal_id: proposal.id })).code).toBe("failed_precondition");
		expect(readFileSync(join(t.p.root, "src/a.ts"), "utf8")).toBe("export const a = 1; // moved on\n");
	});

	test("sync: the project's changes taken, both sides merged three-way, a conflict marked and listed; undo puts it all back", async () => {
		const t = await setup(["src"]);
		const lines = (n: number, change?: [number, string]) =>
			`${Array.from({ length: n }, (_, i) => (change && change[0] === i ? change[1] : `line ${i}`)).join("\n")}\n`;
		// A longer file, so both sides can change it apart.
		writeFileSync(join(t.p.root, "src/long.ts"), lines(10));
		const w = (p: string) => join(t.ws.work, p);
		writeFileSync(w("src/a.ts"), "export const a = 2; // mine\n"); // the agent's; the project's too: conflict
		writeFileSync(join(t.p.root, "src/a.ts"), "export const a = 3; // theirs\n");
		writeFileSync(join(t.p.root, "src/b.ts"), "export const b = 2;\n"); // only the project's
		writeFileSync(w("src/gone.ts"), "export const gone = 2;\n"); // only the agent's
		const synced = await t.as<{ taken: string[]; merged: string[]; conflicts: string[]; undone: boolean }>(
			"workspace.sync",
			{},
		);
		expect(synced).toMatchObject({
			taken: ["src/b.ts", "src/long.ts"],
			merged: [],
			conflicts: ["src/a.ts"],
			undone: false,
		});
		expect(readFileSync(w("src/b.ts"), "utf8")).toBe("export const b = 2;\n");
		expect(readFileSync(w("src/gone.ts"), "utf8")).toBe("export const gone = 2;\n");
		expect(readFileSync(w("src/a.ts"), "utf8")).toBe(
			"<<<<<<< workspace\nexport const a = 2; // mine\n=======\nexport const a = 3; // theirs\n>>>>>>> project\n",
		);
		// Against the new base, the diff is the agent's own work only; its git agrees.
		const d = await t.as<Diff>("workspace.diff", {});
		expect(d.files.map((f) => f.path)).toEqual(["src/a.ts", "src/gone.ts"]);
		const own = Bun.spawnSync(["git", "status", "--porcelain"], { cwd: t.ws.work }).stdout.toString();
		expect(own).toBe(" M src/a.ts\n M src/gone.ts\n");
		// Both sides changing one file apart merge cleanly.
		writeFileSync(w("src/long.ts"), lines(10, [1, "agent's line"]));
		writeFileSync(join(t.p.root, "src/long.ts"), lines(10, [8, "project's line"]));
		const again = await t.as<{ merged: string[] }>("workspace.sync", {});
		expect(again.merged).toEqual(["src/long.ts"]);
		expect(readFileSync(w("src/long.ts"), "utf8")).toBe(
			lines(10, [1, "agent's line"]).replace("line 8", "project's line"),
		);
		// Undo: the work tree and the base as they were before that sync.
		const undone = await t.as<{ undone: boolean }>("workspace.sync", { undo: true });
		expect(undone.undone).toBe(true);
		expect(readFileSync(w("src/long.ts"), "utf8")).toBe(lines(10, [1, "agent's line"]));
		expect((await t.as<Diff>("workspace.diff", {})).files.map((f) => f.path)).toEqual([
			"src/a.ts",
			"src/gone.ts",
			"src/long.ts",
		]);
		expect((await t.fails("workspace.sync", { undo: true })).message).toContain("no sync to undo");
		expect((await allEvents(t.p)).filter((e) => e.type === "workspace.synced")).toHaveLength(3);
	});

	test("a task with no readable_paths gets an empty workspace with its one commit", async () => {
		const t = await setup([]);
		const list = Bun.spawnSync(["git", "ls-files"], { cwd: t.ws.work }).stdout.toString();
		expect(list).toBe("");
		const log = Bun.spawnSync(["git", "log", "--format=%s"], { cwd: t.ws.work }).stdout.toString();
		expect(log).toBe("The project's files this task may read\n");
	});
});

describe("bad input to a workspace", () => {
	test("a binary file over limits.max_patch_bytes: resource_exhausted naming the key, nothing stored", async () => {
		const t = await setup(["src"]);
		await t.claim("src/blob.bin");
		writeFileSync(join(t.ws.work, "src/blob.bin"), randomBytes(3 * 1024 * 1024));
		const err = await t.fails("workspace.propose", { title: "t", summary_md: "s", risk: "low" });
		expect(err.code).toBe("resource_exhausted");
		expect(err.message).toContain("limits.max_patch_bytes");
		expect(((await t.p.call("proposal.list", {})) as { proposals: unknown[] }).proposals).toEqual([]);
		expect((await allEvents(t.p)).filter((e) => e.type.startsWith("proposal."))).toEqual([]);
	});

	test("a workspace deleted under the owner: propose and sync are failed_precondition, nothing stored", async () => {
		const t = await setup(["src"]);
		await t.claim("src/a.ts");
		writeFileSync(join(t.ws.work, "src/a.ts"), "export const a = 2;\n");
		rmSync(t.ws.work, { recursive: true, force: true });
		for (const tool of ["workspace.propose", "workspace.sync"]) {
			const args = tool === "workspace.sync" ? {} : { title: "t", summary_md: "s", risk: "low" };
			const err = await t.fails(tool, args);
			expect({ tool, code: err.code }).toEqual({ tool, code: "failed_precondition" });
			expect(err.message).toContain("no workspace");
		}
		expect(((await t.p.call("proposal.list", {})) as { proposals: unknown[] }).proposals).toEqual([]);
	});

	test("a sync while the agent is writing: conflict naming the file, nothing synced, nothing of the agent's lost", async () => {
		const t = await setup(["src"]);
		const file = join(t.ws.work, "src/a.ts");
		writeFileSync(join(t.p.root, "src/a.ts"), "export const a = 3; // the project's\n");
		// The agent rewrites the file without pause, each time with new bytes (whole, by rename, as
		// editors save), while the owner syncs.
		const save = `const fs = require("fs"); for (let i = 0; ; i++) { fs.writeFileSync(process.argv[1] + ".new", "mine " + i + "\\n"); fs.renameSync(process.argv[1] + ".new", process.argv[1]); }`;
		const writer = Bun.spawn([process.execPath, "-e", save, file]);
		try {
			// Writing already (a loaded machine may take a while to start it), not about to.
			await until(() => readFileSync(file, "utf8").startsWith("mine "), 10_000, "the agent's first save");
			const err = await t.fails("workspace.sync", {});
			expect(err.code).toBe("conflict");
			expect(err.message).toMatch(
				/^the workspace (changed while it was being synced \(src\/a.ts\)|kept changing while it was being read)/,
			);
		} finally {
			writer.kill("SIGKILL");
			await writer.exited;
		}
		// Nothing was synced: the base is the old one, there is nothing to undo, b.ts untouched.
		const last = readFileSync(file, "utf8");
		expect(last).toMatch(/^mine \d+\n$/);
		expect((await t.fails("workspace.sync", { undo: true })).message).toContain("no sync to undo");
		expect(Bun.spawnSync(["git", "log", "--format=%s"], { cwd: t.ws.work }).stdout.toString()).toBe(
			"The project's files this task may read\n",
		);
		// Once the writes are done, the sync goes through and lists the file as a conflict.
		writeFileSync(file, "mine, finished\n");
		const synced = await t.as<{ conflicts: string[] }>("workspace.sync", {});
		expect(synced.conflicts).toEqual(["src/a.ts"]);
		expect(readFileSync(file, "utf8")).toContain("mine, finished");
	});
});

test("a workspace never holds a credential file, even where readable_paths name it", async () => {
	const p: Project = await makeProject();
	commitAll(p.root, { "src/a.ts": "x\n", ".env": "SECRET=1\n" });
	const ws = await createWorkspace(p.root, "S-x", ["src", ".env"]);
	made.push(ws);
	expect(existsSync(join(ws.work, ".env"))).toBe(false);
	expect(existsSync(join(ws.work, "src/a.ts"))).toBe(true);
});
