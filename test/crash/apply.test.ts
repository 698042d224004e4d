// Crash safety of patch.apply and patch.rollback, with real processes and a real SIGKILL.
//
// What it proves: a child process (test/fixtures-scripts/apply-once.ts) applying one approved
// proposal of six paths — a pure mode change, a deletion that empties its directory, three
// modifications, a file created in a new directory — is SIGKILLed at every step of
// src/apply/transact.ts (`ROUNDTABLE_TEST_CRASH_AT`): with its scratch copy patched (before any
// journal), before the journal, after it, after k of n files
// for k = 1, 2, n-1 and n, after the files, after the database commit. For each step, on a fresh
// project:
//   1. the child really died by SIGKILL, and the crash landed where the step says: the pending
//      journal and the tree look exactly like that step (after k files, the first k paths in
//      journal order are in their after state and the rest in their before state);
//   2. the next repository reader (repo.read_file through the dispatcher) recovers first: the tree
//      is then wholly before or wholly after — every path's bytes and mode, which files and
//      directories exist — and it matches the database (transaction recorded and proposal accepted
//      ⇔ after), with exactly one `patch.recovered` event of the right outcome (none when the
//      journal was never written), and the journal directory holds nothing but content blobs: no
//      pending journal, no scratch copy, no temp file;
//   3. after a "before" outcome, applying the same proposal again succeeds and gives the after tree.
// Also: recovery by `recoverNow` (the owner's start path) instead of a reader; a retried apply that
// recovers by itself; a retry with the same idempotency key after an after_commit crash gets the
// recorded result; a crash step that never comes lets the apply finish; recovery never removes the
// scratch copy of an apply still running; and a rollback killed at each of its steps recovers to
// wholly applied (or, after its commit, wholly rolled back).
import { afterAll, describe, expect, test } from "bun:test";
import {
	chmodSync,
	existsSync,
	lstatSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { type Journal, pendingJournals } from "../../src/apply/journal.ts";
import { recoverNow } from "../../src/apply/recover.ts";
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { initProject } from "../../src/init/index.ts";
import { openRuntime, type Runtime } from "../../src/runtime.ts";
import { commitAll, git, MAIN, REPO, readyLine, tempDir, until, write } from "../_helpers/helpers.ts";

const CHILD = join(REPO, "test/fixtures-scripts/apply-once.ts");
const TX = "TX-CRASH";

// ---------------------------------------------------------------------------------------------
// The repository: its files before, and what the proposal makes of them.

const BEFORE_FILES: Record<string, string> = {
	"README.md": "# Crash test\n",
	"bin/run.sh": "#!/bin/sh\necho run\n",
	"docs/old.md": "Old notes, about to go.\n",
	"src/a.ts": "export const a = 1;\n",
	"src/b.ts": "export function b(x: number) {\n\treturn x + 1;\n}\n",
	"src/c.ts": Array.from({ length: 40 }, (_, i) => `export const c${i} = ${i};\n`).join(""),
	"src/keep.ts": "export const keep = true;\n",
};

/** The proposal's paths, in the order apply writes them (the journal's and transaction.files'). */
const TOUCHED = ["bin/run.sh", "docs/old.md", "src/a.ts", "src/b.ts", "src/c.ts", "src/new/fresh.ts"];
const N = TOUCHED.length;

/** Makes the proposal's change in the working tree. */
function editTree(root: string) {
	chmodSync(join(root, "bin/run.sh"), 0o755); // a pure mode change
	rmSync(join(root, "docs"), { recursive: true }); // its only file deleted: git leaves no empty docs/
	write(root, "src/a.ts", "export const a = 2;\n");
	write(root, "src/b.ts", "export function b(x: number) {\n\treturn x * 2 + 1;\n}\n");
	const c = (BEFORE_FILES["src/c.ts"] as string).split("\n");
	c[3] = "export const c3 = 300;";
	c[30] = "export const c30 = 3000;";
	write(root, "src/c.ts", c.join("\n"));
	write(root, "src/new/fresh.ts", "export const fresh = 'new';\n"); // in a new directory
}

// ---------------------------------------------------------------------------------------------
// Trees: every directory and file under the root but .git/ and .roundtable/, with bytes and mode.

type Tree = Record<string, string>;

function snapshot(root: string): Tree {
	const out: Tree = {};
	const walk = (rel: string) => {
		for (const name of readdirSync(join(root, rel)).sort()) {
			const path = rel === "" ? name : `${rel}/${name}`;
			if (path === ".git" || path === ".roundtable") continue;
			const st = lstatSync(join(root, path));
			if (st.isDirectory()) {
				out[`${path}/`] = "dir";
				walk(path);
			} else {
				const mode = (st.mode & 0o7777).toString(8);
				out[path] = st.isSymbolicLink()
					? `symlink -> ${readlinkSync(join(root, path))}`
					: `file ${mode} ${JSON.stringify(readFileSync(join(root, path), "utf8"))}`;
			}
		}
	};
	walk("");
	return out;
}

/** Which whole tree this is, or "mixed". */
function whichTree(tree: Tree, before: Tree, after: Tree): "before" | "after" | "mixed" {
	if (Bun.deepEquals(tree, before)) return "before";
	if (Bun.deepEquals(tree, after)) return "after";
	return "mixed";
}

// ---------------------------------------------------------------------------------------------
// A project with one approvable proposal touching all six paths.

interface Fixture {
	root: string;
	proposal: string;
	before: Tree;
	after: Tree;
}

const ctx = operatorContext("internal");
const opened: Runtime[] = [];
afterAll(() => {
	for (const rt of opened) rt.close();
});

function open(root: string): Runtime {
	const rt = openRuntime(root);
	opened.push(rt);
	return rt;
}

const tool = (rt: Runtime, name: string, args: Record<string, unknown> = {}) =>
	call(rt, name, args, ctx) as Promise<Record<string, unknown>>;

async function fixture(): Promise<Fixture> {
	const root = tempDir("rt-crash-");
	await initProject(root);
	for (const [path, text] of Object.entries(BEFORE_FILES)) write(root, path, text);
	chmodSync(join(root, "bin/run.sh"), 0o644);
	commitAll(root);
	const before = snapshot(root);

	editTree(root);
	git(root, "add", "-A");
	const patch = git(root, "diff", "--cached");
	const after = snapshot(root);
	git(root, "reset", "-q", "--hard", "HEAD");
	expect(snapshot(root)).toEqual(before);

	const rt = open(root);
	try {
		const { task } = (await tool(rt, "task.create", { title: "Crash me", body_md: "Six paths." })) as {
			task: { id: string };
		};
		for (const [type, id] of [
			["directory", "directory:src"],
			["file", "file:docs/old.md"],
			["file", "file:bin/run.sh"],
		]) {
			await tool(rt, "resource.claim", {
				resource_type: type,
				resource_id: id,
				claim_type: "write",
				task_id: task.id,
				agent_id: "implementer-1",
			});
		}
		const { proposal } = (await tool(rt, "proposal.create", {
			task_id: task.id,
			agent_id: "implementer-1",
			title: "Six paths at once",
			summary_md: "Mode change, deletion, modifications, creation.",
			affected_resources: [],
			risk: "normal",
			patch,
		})) as { proposal: { id: string; patch_files: string[] } };
		expect(proposal.patch_files).toEqual(TOUCHED);
		await tool(rt, "proposal.request_review", { proposal_id: proposal.id });
		for (const agent of ["architect-1", "reviewer-1"]) {
			await tool(rt, "vote.cast", {
				proposal_id: proposal.id,
				agent_id: agent,
				vote: "approve",
				reason_md: "fine",
			});
		}
		const v = (await tool(rt, "patch.validate", { proposal_id: proposal.id })) as {
			approvable: boolean;
			gates: { ok: boolean }[];
		};
		expect(v.gates.filter((g) => !g.ok)).toEqual([]);
		expect(v.approvable).toBe(true);
		return { root: rt.root, proposal: proposal.id, before, after };
	} finally {
		rt.close(); // the child is the only process using the project while it applies
	}
}

// ---------------------------------------------------------------------------------------------
// The child, and what is left after it.

interface ChildResult {
	signal: string | null;
	code: number | null;
	stdout: string;
	stderr: string;
}

async function runChild(
	root: string,
	name: "patch.apply" | "patch.rollback",
	args: Record<string, unknown>,
	crashAt?: string,
	extraEnv: Record<string, string> = {},
): Promise<ChildResult> {
	const env: Record<string, string | undefined> = {
		...process.env,
		...extraEnv,
		ROUNDTABLE_TEST_CRASH_AT: crashAt,
	};
	if (crashAt === undefined) delete env.ROUNDTABLE_TEST_CRASH_AT;
	const proc = Bun.spawn([process.execPath, CHILD, root, name, JSON.stringify(args)], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
		env,
	});
	const [stdout, stderr] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
	]);
	await proc.exited;
	return {
		signal: proc.signalCode === null ? null : String(proc.signalCode),
		code: proc.exitCode,
		stdout,
		stderr,
	};
}

function expectKilled(r: ChildResult) {
	expect({ signal: r.signal, code: r.code, stdout: r.stdout }).toEqual({
		signal: "SIGKILL",
		code: null,
		stdout: "",
	});
}

function expectSucceeded(r: ChildResult) {
	expect({ signal: r.signal, code: r.code, stderr: r.stderr }).toEqual({ signal: null, code: 0, stderr: "" });
	expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
}

/** The tree state of one path: its entry in a snapshot, or "absent". */
const stateOf = (tree: Tree, path: string) => tree[path] ?? "absent";

interface Table {
	proposals: { id: string; status: string }[];
	transactions: { id: string; kind: string; status: string; proposal_id: string }[];
}

interface Event {
	type: string;
	payload: Record<string, unknown>;
}

async function events(rt: Runtime): Promise<Event[]> {
	const out = (await tool(rt, "table.watch", { after_event_id: 0, limit: 200 })) as {
		events: Event[];
		has_more_events: boolean;
	};
	expect(out.has_more_events).toBe(false);
	return out.events;
}

const recovered = async (rt: Runtime) => (await events(rt)).filter((e) => e.type === "patch.recovered");

const JOURNAL = ".roundtable/journal";
/** Apply scratch copies in the journal directory (src/apply/transact.ts makes them, one per apply). */
const scratches = (root: string) => readdirSync(join(root, JOURNAL)).filter((n) => n.startsWith("scratch-"));

/**
 * What the journal directory holds beyond content blobs (named by their sha256): a settled
 * repository has nothing there, neither pending journals nor scratch copies nor temp files.
 */
function stale(root: string): string[] {
	const top = readdirSync(join(root, JOURNAL)).filter((n) => n !== "blobs");
	const blobs = existsSync(join(root, JOURNAL, "blobs")) ? readdirSync(join(root, JOURNAL, "blobs")) : [];
	return [...top, ...blobs.filter((n) => !/^[0-9a-f]{64}$/.test(n)).map((n) => `blobs/${n}`)];
}

// ---------------------------------------------------------------------------------------------

/** Every crash step of an apply, and the whole tree recovery must leave. */
const STEPS: [step: string, outcome: "before" | "after"][] = [
	["in_scratch", "before"],
	["before_journal", "before"],
	["after_journal", "before"],
	["after_file:1", "before"],
	["after_file:2", "before"],
	[`after_file:${N - 1}`, "before"],
	[`after_file:${N}`, "before"],
	["after_files", "before"],
	["after_commit", "after"],
];

/** k for `after_file:k`. */
const filesWritten = (step: string) => Number(/^after_file:(\d+)$/.exec(step)?.[1] ?? Number.NaN);

const expectTree = (root: string, tree: Tree) => expect(snapshot(root)).toEqual(tree);

/**
 * What a child killed at `step` of a transaction taking the tree `from` → `to` left, before anyone
 * recovers: proof the crash landed there. Returns the pending journal (none before the journal).
 */
function expectCrashedAt(
	root: string,
	step: string,
	kind: Journal["kind"],
	from: Tree,
	to: Tree,
): Journal | undefined {
	const journals = pendingJournals(root);
	if (step === "in_scratch") {
		// The scratch copy of the touched paths, patched, is all there is; the tree is untouched.
		const [scratch] = scratches(root);
		expect(scratches(root)).toHaveLength(1);
		expect(readFileSync(join(root, JOURNAL, String(scratch), "src/a.ts"), "utf8")).toBe(
			"export const a = 2;\n",
		);
	}
	if (step === "before_journal" || step === "in_scratch") {
		expect(journals).toEqual([]);
		expectTree(root, from);
		return undefined;
	}
	expect(journals.map((j) => j.kind)).toEqual([kind]);
	const journal = journals[0] as Journal;
	expect(journal.entries.map((e) => e.path)).toEqual(TOUCHED);
	const k = filesWritten(step);
	if (step === "after_journal") expectTree(root, from);
	else if (Number.isInteger(k)) {
		// Exactly the first k paths are written; the others are untouched.
		const tree = snapshot(root);
		expect(TOUCHED.map((p) => [p, stateOf(tree, p)])).toEqual(
			TOUCHED.map((p, i) => [p, stateOf(i < k ? to : from, p)]),
		);
		if (k < N) expect(whichTree(tree, from, to)).toBe("mixed");
	} else expectTree(root, to); // after_files, after_commit
	return journal;
}

/** One `patch.recovered` event for the journal with this outcome, or none when nothing was pending. */
async function expectRecovered(rt: Runtime, proposal: string, journal: Journal | undefined, outcome: string) {
	expect((await recovered(rt)).map((e) => e.payload)).toEqual(
		journal === undefined
			? []
			: [
					{
						transaction_id: journal.transaction_id,
						kind: journal.kind,
						proposal_id: proposal,
						outcome,
						paths: TOUCHED,
						refused: [],
					},
				],
	);
}

/** The database agrees with an apply that happened (or did not). */
async function expectApplied(rt: Runtime, f: Fixture, applied: boolean) {
	const state = (await tool(rt, "table.get_state")) as unknown as Table;
	expect(state.transactions.map((t) => [t.id, t.kind, t.status, t.proposal_id])).toEqual(
		applied ? [[TX, "apply", "applied", f.proposal]] : [],
	);
	expect(state.proposals.find((p) => p.id === f.proposal)?.status).toBe(applied ? "accepted" : "in_review");
}

/** A clean apply of the same proposal (same transaction id, as a retrying client would) gives the after tree. */
async function expectRetrySucceeds(rt: Runtime, f: Fixture) {
	const out = (await tool(rt, "patch.apply", { proposal_id: f.proposal, transaction_id: TX })) as {
		proposal: { status: string };
		transaction: { files: { path: string }[] };
	};
	expect(out.proposal.status).toBe("accepted");
	expect(out.transaction.files.map((x) => x.path)).toEqual(TOUCHED);
	expectTree(f.root, f.after);
	expect(pendingJournals(f.root)).toEqual([]);
}

const applyArgs = (f: Fixture) => ({ proposal_id: f.proposal, transaction_id: TX });

describe("patch.apply killed by SIGKILL at every step: after recovery, wholly before or wholly after", () => {
	test.each(STEPS)("%s → %s", async (step, outcome) => {
		const committed = outcome === "after";
		const f = await fixture();
		expectKilled(await runChild(f.root, "patch.apply", applyArgs(f), step));
		const journal = expectCrashedAt(f.root, step, "apply", f.before, f.after);
		if (journal) expect(journal.transaction_id).toBe(TX);

		// The next repository reader settles it first, then reads the settled file.
		const rt = open(f.root);
		const read = (await tool(rt, "repo.read_file", { path: "src/a.ts" })) as { content: string };
		expect(read.content).toBe(committed ? "export const a = 2;\n" : "export const a = 1;\n");
		expectTree(f.root, committed ? f.after : f.before);
		expect(stale(f.root)).toEqual([]);
		await expectApplied(rt, f, committed);
		await expectRecovered(rt, f.proposal, journal, committed ? "done" : "undone");

		if (!committed) await expectRetrySucceeds(rt, f);
		expect(stale(f.root)).toEqual([]);
		rt.close();
	});

	test("recovery by recoverNow (the owner's start path) instead of a reader: after_file:2 → before", async () => {
		const f = await fixture();
		expectKilled(await runChild(f.root, "patch.apply", applyArgs(f), "after_file:2"));
		const journal = expectCrashedAt(f.root, "after_file:2", "apply", f.before, f.after);
		const rt = open(f.root);
		expect(await recoverNow(rt)).toEqual([{ transaction_id: TX, outcome: "undone" }]);
		expect(await recoverNow(rt)).toEqual([]); // settled once, not again
		expectTree(f.root, f.before);
		expect(stale(f.root)).toEqual([]);
		await expectApplied(rt, f, false);
		await expectRecovered(rt, f.proposal, journal, "undone");
		await expectRetrySucceeds(rt, f);
		rt.close();
	});

	test("the owner settles the journal at start, before it serves anyone", async () => {
		const f = await fixture();
		expectKilled(await runChild(f.root, "patch.apply", applyArgs(f), "after_file:2"));
		const owner = Bun.spawn([process.execPath, MAIN, "mcp", "serve", "--root", f.root], {
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
		});
		const { ready } = await readyLine(owner); // the ready line comes after recovery
		expect(ready).toStartWith("roundtable ready:");
		expectTree(f.root, f.before);
		expect(stale(f.root)).toEqual([]);
		owner.kill("SIGTERM");
		expect(await owner.exited).toBe(0);
		expect(await new Response(owner.stderr).text()).toContain(`recovered ${TX}: undone`);
	});

	test("recoverNow removes a killed apply's scratch copy and cut-off temp files, with no journal to settle", async () => {
		const f = await fixture();
		expectKilled(await runChild(f.root, "patch.apply", applyArgs(f), "in_scratch"));
		expect(scratches(f.root)).toHaveLength(1);
		// What a kill between writeFileAtomic's write and rename leaves, named as it names its temp
		// files: a journal and a blob that never got their names.
		writeFileSync(join(f.root, JOURNAL, `.${Date.now()}-99999-abc.tmp`), "{");
		writeFileSync(join(f.root, JOURNAL, `blobs/.${Date.now()}-99999-def.tmp`), "half");
		expect(stale(f.root)).toHaveLength(3);
		const rt = open(f.root);
		expect(await recoverNow(rt)).toEqual([]);
		expect(stale(f.root)).toEqual([]);
		expectTree(f.root, f.before);
		await expectRecovered(rt, f.proposal, undefined, "undone");
		await expectRetrySucceeds(rt, f);
		rt.close();
	});

	test("recovery never removes the scratch copy of an apply still running (the repository lock says so)", async () => {
		const f = await fixture();
		const gate = join(tempDir("rt-pause-"), "go");
		const child = runChild(f.root, "patch.apply", applyArgs(f), undefined, {
			ROUNDTABLE_TEST_PAUSE_AT: "in_scratch",
			ROUNDTABLE_TEST_PAUSE_FILE: gate,
		});
		await until(() => existsSync(`${gate}.reached`), 20_000, "the apply to pause in its scratch copy");
		const [scratch] = scratches(f.root);
		expect(scratch).toBeDefined();
		// A reader and the owner's start path both want to recover; the apply holds the lock.
		const rt = open(f.root);
		const done: string[] = [];
		const read = tool(rt, "repo.read_file", { path: "src/a.ts" }).then((r) => {
			done.push("read");
			return r as { content: string };
		});
		const recovering = recoverNow(rt).then((r) => {
			done.push("recoverNow");
			return r;
		});
		await Bun.sleep(300);
		expect(done).toEqual([]);
		expect(scratches(f.root)).toEqual([String(scratch)]);
		writeFileSync(gate, "");
		expectSucceeded(await child);
		expect((await read).content).toBe("export const a = 2;\n");
		expect(await recovering).toEqual([]);
		expectTree(f.root, f.after);
		expect(stale(f.root)).toEqual([]);
		await expectApplied(rt, f, true);
		rt.close();
	});

	test("recovery never writes through a directory swapped for a symlink that leads out", async () => {
		const f = await fixture();
		expectKilled(await runChild(f.root, "patch.apply", applyArgs(f), "after_file:3"));
		// src/a.ts is half-applied; now `src` points outside, at a look-alike tree.
		const outside = tempDir("rt-outside-");
		write(outside, "a.ts", "outside\n");
		rmSync(join(f.root, "src"), { recursive: true });
		symlinkSync(outside, join(f.root, "src"));
		const rt = open(f.root);
		expect(await recoverNow(rt)).toEqual([{ transaction_id: TX, outcome: "undone" }]);
		expect(readFileSync(join(outside, "a.ts"), "utf8")).toBe("outside\n");
		expect(readdirSync(outside)).toEqual(["a.ts"]);
		const [event] = await recovered(rt);
		expect(event?.payload.refused).toEqual(["src/new/fresh.ts", "src/c.ts", "src/b.ts", "src/a.ts"]);
		// Everything outside `src` was put back.
		const tree = snapshot(f.root);
		for (const path of ["bin/run.sh", "docs/old.md"])
			expect(stateOf(tree, path)).toBe(stateOf(f.before, path));
		rt.close();
	});

	test(`the retried patch.apply itself recovers first, with no reader in between: after_file:${N - 1}`, async () => {
		const f = await fixture();
		expectKilled(await runChild(f.root, "patch.apply", applyArgs(f), `after_file:${N - 1}`));
		const rt = open(f.root);
		await expectRetrySucceeds(rt, f);
		await expectApplied(rt, f, true);
		const types = (await events(rt)).map((e) => e.type).filter((t) => t.startsWith("patch."));
		expect(types).toEqual(["patch.recovered", "patch.applied"]);
		rt.close();
	});

	test("after an after_commit crash, a retry with the same idempotency key gets the recorded result", async () => {
		const f = await fixture();
		const args = { ...applyArgs(f), idempotency_key: "apply-once" };
		expectKilled(await runChild(f.root, "patch.apply", args, "after_commit"));
		const rt = open(f.root);
		const again = (await tool(rt, "patch.apply", args)) as {
			proposal: { status: string };
			transaction: { id: string };
		};
		expect([again.transaction.id, again.proposal.status]).toEqual([TX, "accepted"]);
		expectTree(f.root, f.after);
		expect(pendingJournals(f.root)).toEqual([]);
		await expectApplied(rt, f, true);
		const types = (await events(rt)).map((e) => e.type).filter((t) => t.startsWith("patch."));
		expect(types).toEqual(["patch.applied", "patch.recovered"]);
		rt.close();
	});

	test("a crash step that never comes (after_file:99) lets the apply finish", async () => {
		const f = await fixture();
		expectSucceeded(await runChild(f.root, "patch.apply", applyArgs(f), "after_file:99"));
		expectTree(f.root, f.after);
		expect(pendingJournals(f.root)).toEqual([]);
		const rt = open(f.root);
		await expectApplied(rt, f, true);
		expect(await recovered(rt)).toEqual([]);
		rt.close();
	});
});

describe("patch.rollback killed by SIGKILL: after recovery, wholly applied or wholly rolled back", () => {
	/** The rollback's crash steps: only after its commit is the tree rolled back. */
	const ROLLBACK_STEPS = [
		"before_journal",
		"after_journal",
		"after_file:1",
		`after_file:${N - 1}`,
		"after_files",
		"after_commit",
	];

	test.each(ROLLBACK_STEPS)("%s", async (step) => {
		const committed = step === "after_commit";
		const f = await fixture();
		const setup = open(f.root);
		await tool(setup, "patch.apply", applyArgs(f));
		setup.close();
		expectTree(f.root, f.after);

		expectKilled(await runChild(f.root, "patch.rollback", { transaction_id: TX }, step));
		const journal = expectCrashedAt(f.root, step, "rollback", f.after, f.before);

		const rt = open(f.root);
		await tool(rt, "repo.read_file", { path: "src/a.ts" });
		expectTree(f.root, committed ? f.before : f.after);
		expect(stale(f.root)).toEqual([]);
		const state = (await tool(rt, "table.get_state")) as unknown as Table;
		expect(state.transactions.map((t) => [t.id, t.kind, t.status])).toEqual(
			committed
				? [
						[TX, "apply", "rolled_back"],
						[String(journal?.transaction_id), "rollback", "applied"],
					]
				: [[TX, "apply", "applied"]],
		);
		expect(state.proposals.find((p) => p.id === f.proposal)?.status).toBe(
			committed ? "rolled_back" : "accepted",
		);
		await expectRecovered(rt, f.proposal, journal, committed ? "done" : "undone");

		if (!committed) {
			// Nothing half-done blocks a retried rollback: it gives the before tree back.
			const back = (await tool(rt, "patch.rollback", { transaction_id: TX })) as {
				proposal: { status: string };
			};
			expect(back.proposal.status).toBe("rolled_back");
			expectTree(f.root, f.before);
		}
		rt.close();
	});
});
