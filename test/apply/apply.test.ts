// patch.apply and patch.rollback end to end: real repositories (git and plain), real SQLite, real
// files. An apply writes exactly the patch's result (bytes, modes, symlinks, created and emptied
// directories) and records each touched path's before and after; a rollback puts every byte and
// mode back; every refusal changes nothing (files, proposals, claims, transactions, events, journal);
// a retry with the same idempotency key gets the first result.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	renameSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import type { ClaimRecord, ProposalRecord, TransactionRecord } from "../../src/vocabulary/records.ts";
import { taskFlow } from "../_helpers/flow-helpers.ts";
import {
	addRun,
	allEvents,
	commitAll,
	git,
	makeProject,
	type Project,
	tempDir,
} from "../_helpers/helpers.ts";

const UMASK = process.umask();
const RW = 0o666 & ~UMASK;
const RWX = 0o777 & ~UMASK;

type Spec = string | Buffer | { link: string };
type Files = Record<string, Spec>;

interface Applied {
	proposal: ProposalRecord;
	transaction: TransactionRecord;
	released_claims: string[];
}
interface RolledBack {
	transaction: TransactionRecord;
	rolled_back: TransactionRecord;
	proposal: ProposalRecord;
}

function put(root: string, path: string, spec: Spec) {
	const abs = join(root, path);
	mkdirSync(dirname(abs), { recursive: true });
	rmSync(abs, { force: true });
	if (typeof spec === "string" || Buffer.isBuffer(spec)) {
		writeFileSync(abs, spec);
		chmodSync(abs, RW);
	} else symlinkSync(spec.link, abs);
}

const hash = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");
const fileState = (bytes: string | Buffer, mode = RW) => ({
	kind: "file" as const,
	mode,
	sha256: hash(bytes),
});
const read = (root: string, path: string) => readFileSync(join(root, path), "utf8");
const modeOf = (root: string, path: string) => statSync(join(root, path)).mode & 0o777;

/** Every file, symlink and directory under `root` but .git/ and .roundtable/: kind, mode, exact bytes. */
function tree(root: string): Record<string, string> {
	const out: Record<string, string> = {};
	const walk = (rel: string) => {
		for (const name of readdirSync(join(root, rel)).sort()) {
			const path = rel ? `${rel}/${name}` : name;
			if (path === ".git" || path === ".roundtable") continue;
			const abs = join(root, path);
			const st = lstatSync(abs);
			if (st.isSymbolicLink()) out[path] = `link -> ${readlinkSync(abs)}`;
			else if (st.isDirectory()) {
				out[path] = "dir";
				walk(path);
			} else out[path] = `file ${(st.mode & 0o777).toString(8)} ${readFileSync(abs).toString("latin1")}`;
		}
	};
	walk("");
	return out;
}

/** A patch made by real git in a scratch repository holding `files`; also the tree it leads to. */
function gitPatch(
	files: Files,
	change: (dir: string) => void,
): { patch: string; after: Record<string, string> } {
	const dir = tempDir("rt-patch-");
	for (const [path, spec] of Object.entries(files)) put(dir, path, spec);
	git(dir, "init", "-q");
	git(dir, "add", "-A");
	git(dir, "commit", "-qm", "before");
	change(dir);
	git(dir, "add", "-A");
	const patch = git(dir, "diff", "--cached", "-M", "--binary");
	return { patch, after: tree(dir) };
}

/** Journal files a settled transaction must not leave: pending journals and scratch copies. */
const leftovers = (root: string) =>
	readdirSync(join(root, ".roundtable/journal")).filter(
		(n) => n.endsWith(".pending.json") || n.startsWith("scratch-"),
	);

interface Refusal {
	code: string;
	message: string;
	details: { gates?: { gate: string; ok: boolean; reason: string }[]; [key: string]: unknown };
}

interface Table {
	p: Project;
	/** The files the test wrote (init's own files left out). */
	files(): Record<string, string>;
	call<T>(tool: string, args: Record<string, unknown>): Promise<T>;
	claim(path: string): Promise<string>;
	propose(patch: string): Promise<string>;
	/** Proposes, requests review and gets architect-1's and reviewer-1's approvals: every gate passes. */
	approved(patch: string): Promise<string>;
	apply(proposal: string, args?: Record<string, unknown>): Promise<Applied>;
	rollback(transaction: string, args?: Record<string, unknown>): Promise<RolledBack>;
	/** Calls a tool that must fail, and proves the failure changed nothing. */
	refused(tool: string, args: Record<string, unknown>): Promise<Refusal>;
}

async function setup(files: Files, options: { git?: boolean; nested?: boolean } = {}): Promise<Table> {
	const p = options.nested ? await nestedProject() : await makeProject();
	const own = new Set(Object.keys(tree(p.root)));
	for (const [path, spec] of Object.entries(files)) put(p.root, path, spec);
	if (options.git !== false && !options.nested) commitAll(p.root);
	await addRun(p, "RUN-1");
	const f = await taskFlow(p);
	const call = async <T>(tool: string, args: Record<string, unknown>) => (await f.call(tool, args)) as T;
	const snapshot = async () => {
		const { proposals, transactions, last_event_id } = await call<Record<string, unknown>>(
			"table.get_state",
			{},
		);
		const { claims } = await call<{ claims: ClaimRecord[] }>("resource.claim_status", {});
		return { files: tree(p.root), claims, proposals, transactions, last_event_id };
	};
	const t: Table = {
		p,
		files: () => Object.fromEntries(Object.entries(tree(p.root)).filter(([k]) => !own.has(k))),
		call,
		claim: (path) => f.claim("implementer-1", path),
		propose: async (patch) => (await f.propose({ patch })).id,
		async approved(patch) {
			const id = await t.propose(patch);
			await call("proposal.request_review", { proposal_id: id });
			for (const agent of ["architect-1", "reviewer-1"]) await f.vote(id, agent);
			return id;
		},
		apply: (proposal, args = {}) => call<Applied>("patch.apply", { proposal_id: proposal, ...args }),
		rollback: (transaction, args = {}) =>
			call<RolledBack>("patch.rollback", { transaction_id: transaction, ...args }),
		async refused(tool, args) {
			const before = await snapshot();
			const err = await p.fail(tool, args);
			expect(await snapshot()).toEqual(before);
			expect(leftovers(p.root)).toEqual([]);
			return err as Refusal;
		},
	};
	return t;
}

/** A project whose root is `pkg/` inside a git repository that holds it (and nothing else). */
async function nestedProject(): Promise<Project> {
	const outer = tempDir("rt-mono-");
	git(outer, "init", "-q");
	const root = join(outer, "pkg");
	mkdirSync(root);
	return makeProject({ root });
}

/** One file, claimed and changed by an approved proposal. */
async function oneFile(t: Table, path: string, text: string): Promise<string> {
	const original = read(t.p.root, path);
	await t.claim(path);
	return t.approved(gitPatch({ [path]: original }, (dir) => put(dir, path, text)).patch);
}

// ---- the multi-file patch ------------------------------------------------------------------------

const BEFORE: Files = {
	"src/a.ts": "export const a = 1;\n",
	"old.txt": "remove me\n",
	"run.sh": "#!/bin/sh\necho hello\n",
	"docs/from.md": "# Notes\n\nThe same text under a new name.\n",
	"keep.txt": "not part of the patch\n",
};
const TOUCHED = ["docs/from.md", "docs/to.md", "lib/deep/new.ts", "old.txt", "run.sh", "src/a.ts"];

const multiFile = () =>
	gitPatch(BEFORE, (dir) => {
		put(dir, "src/a.ts", "export const a = 2;\n");
		put(dir, "lib/deep/new.ts", "export const created = true;\n");
		rmSync(join(dir, "old.txt"));
		chmodSync(join(dir, "run.sh"), RWX);
		renameSync(join(dir, "docs/from.md"), join(dir, "docs/to.md"));
	});

async function applyMultiFile() {
	const t = await setup(BEFORE);
	const before = t.files();
	const { patch, after } = multiFile();
	const claims: string[] = [];
	for (const path of TOUCHED) claims.push(await t.claim(path));
	const keep = await t.claim("keep.txt");
	const id = await t.approved(patch);
	const applied = await t.apply(id, { run_id: "RUN-1", transaction_id: "TX-multi" });
	return { t, id, before, after, patch, claims, keep, applied };
}

describe("patch.apply of a multi-file patch", () => {
	test("the files become exactly the patch's result", async () => {
		const { t, after, patch } = await applyMultiFile();
		expect(patch).toContain("rename from docs/from.md");
		expect(patch).toContain("new mode 100755");
		expect(t.files()).toEqual(after);
		expect(read(t.p.root, "src/a.ts")).toBe("export const a = 2;\n");
		expect(read(t.p.root, "lib/deep/new.ts")).toBe("export const created = true;\n");
		expect(existsSync(join(t.p.root, "old.txt"))).toBe(false);
		expect(existsSync(join(t.p.root, "docs/from.md"))).toBe(false);
		expect(read(t.p.root, "docs/to.md")).toBe("# Notes\n\nThe same text under a new name.\n");
		expect(modeOf(t.p.root, "run.sh")).toBe(RWX);
		expect(read(t.p.root, "run.sh")).toBe("#!/bin/sh\necho hello\n");
		expect(leftovers(t.p.root)).toEqual([]);
	});

	test("the transaction records every touched path before and after; the proposal is accepted", async () => {
		const { id, applied } = await applyMultiFile();
		expect(applied.proposal).toMatchObject({ id, status: "accepted" });
		expect(applied.transaction).toMatchObject({
			id: "TX-multi",
			kind: "apply",
			status: "applied",
			proposal_id: id,
			run_id: "RUN-1",
			patch_revision: 1,
			rolls_back: null,
			applied_by: "operator",
		});
		const moved = "# Notes\n\nThe same text under a new name.\n";
		expect(applied.transaction.files).toEqual([
			{ path: "docs/from.md", before: fileState(moved), after: null },
			{ path: "docs/to.md", before: null, after: fileState(moved) },
			{ path: "lib/deep/new.ts", before: null, after: fileState("export const created = true;\n") },
			{ path: "old.txt", before: fileState("remove me\n"), after: null },
			{
				path: "run.sh",
				before: fileState("#!/bin/sh\necho hello\n", RW),
				after: fileState("#!/bin/sh\necho hello\n", RWX),
			},
			{
				path: "src/a.ts",
				before: fileState("export const a = 1;\n"),
				after: fileState("export const a = 2;\n"),
			},
		]);
	});

	test("the author's covering claims are released, a claim on an untouched file stays", async () => {
		const { t, id, claims, keep, applied } = await applyMultiFile();
		expect([...applied.released_claims].sort()).toEqual([...claims].sort());
		const { claims: now } = await t.call<{ claims: ClaimRecord[] }>("resource.claim_status", {
			agent_id: "implementer-1",
		});
		const status = Object.fromEntries(now.map((c) => [c.id, c.status]));
		for (const c of claims) expect(status[c]).toBe("released");
		expect(status[keep]).toBe("active");

		const events = await allEvents(t.p);
		const released = events.filter((e) => e.type === "claim.released").map((e) => e.payload.claim_id);
		expect([...released].sort()).toEqual([...claims].sort());
		const done = events.filter((e) => e.type === "patch.applied");
		expect(done.map((e) => e.payload)).toEqual([
			{
				transaction_id: "TX-multi",
				proposal_id: id,
				patch_revision: 1,
				files: TOUCHED,
				released_claims: applied.released_claims,
			},
		]);
	});
});

describe("patch.rollback of the multi-file patch", () => {
	test("every byte and mode comes back; created files and their new directories go", async () => {
		const { t, before } = await applyMultiFile();
		await t.rollback("TX-multi");
		expect(t.files()).toEqual(before);
		expect(existsSync(join(t.p.root, "lib"))).toBe(false);
		expect(existsSync(join(t.p.root, "docs/to.md"))).toBe(false);
		expect(read(t.p.root, "docs/from.md")).toBe("# Notes\n\nThe same text under a new name.\n");
		expect(read(t.p.root, "old.txt")).toBe("remove me\n");
		expect(read(t.p.root, "src/a.ts")).toBe("export const a = 1;\n");
		expect(modeOf(t.p.root, "run.sh")).toBe(RW);
		expect(leftovers(t.p.root)).toEqual([]);
	});

	test("returns the rollback transaction, the rolled-back one and the proposal; patch.rolled_back", async () => {
		const { t, id, applied } = await applyMultiFile();
		const back = await t.rollback("TX-multi", { reason_md: "Broke the build." });
		expect(back.transaction).toMatchObject({
			kind: "rollback",
			status: "applied",
			rolls_back: "TX-multi",
			proposal_id: id,
			run_id: "RUN-1",
			reason_md: "Broke the build.",
		});
		expect(back.transaction.files).toEqual(
			applied.transaction.files.map((f) => ({ path: f.path, before: f.after, after: f.before })),
		);
		expect(back.rolled_back).toMatchObject({ id: "TX-multi", status: "rolled_back" });
		expect(back.proposal).toMatchObject({ id, status: "rolled_back" });
		const events = (await allEvents(t.p)).filter((e) => e.type === "patch.rolled_back");
		expect(events.map((e) => e.payload)).toEqual([
			{
				transaction_id: back.transaction.id,
				rolls_back: "TX-multi",
				proposal_id: id,
				files: TOUCHED,
				forced: false,
				reason_md: "Broke the build.",
			},
		]);
	});
});

describe("what else a patch can change", () => {
	test("a binary file, modified and created, applies and rolls back byte-exact", async () => {
		const old = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));
		const next = Buffer.concat([Buffer.from([0, 255, 0, 13, 10]), old.subarray(100).reverse()]);
		const added = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0xff]);
		const t = await setup({ "img/logo.bin": old });
		const before = t.files();
		const { patch, after } = gitPatch({ "img/logo.bin": old }, (dir) => {
			put(dir, "img/logo.bin", next);
			put(dir, "img/new.bin", added);
		});
		expect(patch).toContain("GIT binary patch");
		await t.claim("img/logo.bin");
		await t.claim("img/new.bin");
		const applied = await t.apply(await t.approved(patch));
		expect(readFileSync(join(t.p.root, "img/logo.bin")).equals(next)).toBe(true);
		expect(readFileSync(join(t.p.root, "img/new.bin")).equals(added)).toBe(true);
		expect(t.files()).toEqual(after);
		await t.rollback(applied.transaction.id);
		expect(readFileSync(join(t.p.root, "img/logo.bin")).equals(old)).toBe(true);
		expect(existsSync(join(t.p.root, "img/new.bin"))).toBe(false);
		expect(t.files()).toEqual(before);
	});

	test("a symlink is retargeted, never followed, and rolled back", async () => {
		const files: Files = { "a.txt": "a\n", "b.txt": "b\n", current: { link: "a.txt" } };
		const t = await setup(files);
		const { patch } = gitPatch(files, (dir) => put(dir, "current", { link: "b.txt" }));
		expect(patch).toContain("120000");
		await t.claim("current");
		const id = await t.approved(patch);
		// A symlink brings in the security review: without one the apply is refused.
		expect((await t.refused("patch.apply", { proposal_id: id })).message).toContain(
			"security review required (symlink current)",
		);
		await t.p.call("security.review", { proposal_id: id, status: "approved", summary_md: "Points inside." });
		const applied = await t.apply(id);
		expect(lstatSync(join(t.p.root, "current")).isSymbolicLink()).toBe(true);
		expect(readlinkSync(join(t.p.root, "current"))).toBe("b.txt");
		expect(read(t.p.root, "a.txt")).toBe("a\n");
		expect(applied.transaction.files).toEqual([
			{
				path: "current",
				before: { kind: "symlink", mode: 0o120000, sha256: hash("a.txt") },
				after: { kind: "symlink", mode: 0o120000, sha256: hash("b.txt") },
			},
		]);
		await t.rollback(applied.transaction.id);
		expect(readlinkSync(join(t.p.root, "current"))).toBe("a.txt");
		expect(read(t.p.root, "b.txt")).toBe("b\n");
	});

	test("a plain directory without .git takes a hand-written unified diff", async () => {
		const t = await setup({ "notes.txt": "first\nsecond\nthird\n" }, { git: false });
		expect(existsSync(join(t.p.root, ".git"))).toBe(false);
		await t.claim("notes.txt");
		const patch =
			"--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n first\n-second\n+second, revised\n third\n";
		const applied = await t.apply(await t.approved(patch));
		expect(read(t.p.root, "notes.txt")).toBe("first\nsecond, revised\nthird\n");
		expect(applied.transaction.files.map((f) => f.path)).toEqual(["notes.txt"]);
		await t.rollback(applied.transaction.id);
		expect(read(t.p.root, "notes.txt")).toBe("first\nsecond\nthird\n");
	});
});

describe("patch.apply refuses, changing nothing", () => {
	test("a proposal already applied", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const id = await oneFile(t, "a.txt", "two\n");
		await t.apply(id);
		const err = await t.refused("patch.apply", { proposal_id: id });
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toContain("accepted");
		expect(err.details).toMatchObject({ proposal_id: id, status: "accepted" });
		expect(read(t.p.root, "a.txt")).toBe("two\n");
	});

	test("a proposal whose gates fail: no votes, no quorum", async () => {
		const t = await setup({ "a.txt": "one\n" });
		await t.claim("a.txt");
		const id = await t.propose(gitPatch({ "a.txt": "one\n" }, (dir) => put(dir, "a.txt", "two\n")).patch);
		const err = await t.refused("patch.apply", { proposal_id: id });
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toContain(`proposal ${id} cannot be applied`);
		expect(err.details.gates).toContainEqual(expect.objectContaining({ gate: "quorum", ok: false }));
		expect(err.message).toContain(err.details.gates?.[0]?.reason ?? "a failing gate");
		expect(read(t.p.root, "a.txt")).toBe("one\n");
	});

	test("a patch that no longer applies: the file was edited after proposing", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const id = await oneFile(t, "a.txt", "two\n");
		writeFileSync(join(t.p.root, "a.txt"), "edited by hand\n");
		const err = await t.refused("patch.apply", { proposal_id: id });
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toContain("cannot be applied");
		expect(err.details.gates).toContainEqual(expect.objectContaining({ gate: "apply_check", ok: false }));
		expect(read(t.p.root, "a.txt")).toBe("edited by hand\n");
	});

	test("an unknown proposal", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const err = await t.refused("patch.apply", { proposal_id: "P-nope" });
		expect(err.code).toBe("not_found");
		expect(err.message).toContain("P-nope");
	});

	test("a transaction id already used", async () => {
		const t = await setup({ "a.txt": "one\n", "b.txt": "one\n" });
		await t.apply(await oneFile(t, "a.txt", "two\n"), { transaction_id: "TX-1" });
		const second = await oneFile(t, "b.txt", "two\n");
		const err = await t.refused("patch.apply", { proposal_id: second, transaction_id: "TX-1" });
		expect(err.code).toBe("already_exists");
		expect(err.details).toEqual({ transaction_id: "TX-1" });
		expect(read(t.p.root, "b.txt")).toBe("one\n");
	});

	test("a proposal no longer at the expected_revision", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const id = await oneFile(t, "a.txt", "two\n");
		const err = await t.refused("patch.apply", { proposal_id: id, expected_revision: 99 });
		expect(err.code).toBe("conflict");
		expect(err.details).toMatchObject({ id, expected_revision: 99 });
		expect(read(t.p.root, "a.txt")).toBe("one\n");
	});

	test("an unknown run", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const id = await oneFile(t, "a.txt", "two\n");
		const err = await t.refused("patch.apply", { proposal_id: id, run_id: "RUN-nope" });
		expect(err.code).toBe("not_found");
		expect(err.message).toContain("RUN-nope");
	});
});

describe("patch.rollback refuses, changing nothing", () => {
	test("an unknown transaction", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const err = await t.refused("patch.rollback", { transaction_id: "TX-nope" });
		expect(err.code).toBe("not_found");
		expect(err.details).toEqual({ transaction_id: "TX-nope" });
	});

	test("a transaction no longer at the expected_revision", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const { transaction } = await t.apply(await oneFile(t, "a.txt", "two\n"));
		const err = await t.refused("patch.rollback", {
			transaction_id: transaction.id,
			expected_revision: transaction.revision + 1,
		});
		expect(err.code).toBe("conflict");
		expect(err.details).toMatchObject({ id: transaction.id, actual_revision: transaction.revision });
		expect(read(t.p.root, "a.txt")).toBe("two\n");
	});

	test("a transaction already rolled back", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const { transaction } = await t.apply(await oneFile(t, "a.txt", "two\n"));
		await t.rollback(transaction.id);
		const err = await t.refused("patch.rollback", { transaction_id: transaction.id });
		expect(err.code).toBe("failed_precondition");
		expect(err.details).toEqual({ transaction_id: transaction.id, status: "rolled_back" });
		expect(read(t.p.root, "a.txt")).toBe("one\n");
	});

	test("a rollback transaction itself", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const { transaction } = await t.apply(await oneFile(t, "a.txt", "two\n"));
		const back = await t.rollback(transaction.id);
		const err = await t.refused("patch.rollback", { transaction_id: back.transaction.id });
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toContain("a rollback");
	});

	test("a file edited after the apply, until force restores it anyway", async () => {
		const files = { "a.txt": "one\n", "b.txt": "one\n" };
		const t = await setup(files);
		await t.claim("a.txt");
		await t.claim("b.txt");
		const { patch } = gitPatch(files, (dir) => {
			put(dir, "a.txt", "two\n");
			put(dir, "b.txt", "two\n");
		});
		const { transaction } = await t.apply(await t.approved(patch));
		writeFileSync(join(t.p.root, "b.txt"), "my own edit\n");
		const err = await t.refused("patch.rollback", { transaction_id: transaction.id });
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toContain("b.txt");
		expect(err.details).toEqual({ transaction_id: transaction.id, changed: ["b.txt"] });
		expect(read(t.p.root, "b.txt")).toBe("my own edit\n");

		const back = await t.rollback(transaction.id, { force: true });
		expect(read(t.p.root, "a.txt")).toBe("one\n");
		expect(read(t.p.root, "b.txt")).toBe("one\n");
		expect(back.rolled_back.status).toBe("rolled_back");
		const event = (await allEvents(t.p)).find((e) => e.type === "patch.rolled_back");
		expect(event?.payload.forced).toBe(true);
	});

	test("a rollback never writes outside the repository through a directory swapped for a symlink", async () => {
		const t = await setup({ "src/a.ts": "one\n" });
		const { transaction } = await t.apply(await oneFile(t, "src/a.ts", "two\n"));
		// `src` now points outside, at a file that looks exactly like the applied one.
		const outside = tempDir("rt-outside-");
		put(outside, "a.ts", "two\n");
		rmSync(join(t.p.root, "src"), { recursive: true });
		symlinkSync(outside, join(t.p.root, "src"));
		const err = await t.refused("patch.rollback", { transaction_id: transaction.id });
		expect(err.code).toBe("permission_denied");
		expect(read(outside, "a.ts")).toBe("two\n");
		// force skips the check that the files are as applied, never the one that they are inside.
		const forced = await t.refused("patch.rollback", { transaction_id: transaction.id, force: true });
		expect(forced.code).toBe("permission_denied");
		expect(read(outside, "a.ts")).toBe("two\n");
	});

	test("a later transaction on the same file must be rolled back first", async () => {
		const t = await setup({ "a.txt": "one\n" });
		await t.apply(await oneFile(t, "a.txt", "two\n"), { transaction_id: "TX-1" });
		await t.apply(await oneFile(t, "a.txt", "three\n"), { transaction_id: "TX-2" });
		expect(read(t.p.root, "a.txt")).toBe("three\n");
		const err = await t.refused("patch.rollback", { transaction_id: "TX-1" });
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toContain("TX-2");
		expect(err.details).toEqual({ transaction_id: "TX-1", later: ["TX-2"] });

		await t.rollback("TX-2");
		expect(read(t.p.root, "a.txt")).toBe("two\n");
		await t.rollback("TX-1");
		expect(read(t.p.root, "a.txt")).toBe("one\n");
	});
});

describe("idempotency of patch.apply", () => {
	test("the same key twice is the first result: one transaction, one patch.applied", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const id = await oneFile(t, "a.txt", "two\n");
		const first = await t.apply(id, { idempotency_key: "apply-once" });
		const again = await t.apply(id, { idempotency_key: "apply-once" });
		expect(again).toEqual(first);
		const state = await t.call<{ transactions: TransactionRecord[] }>("table.get_state", {});
		expect(state.transactions.map((x) => x.id)).toEqual([first.transaction.id]);
		expect((await allEvents(t.p)).filter((e) => e.type === "patch.applied")).toHaveLength(1);
		expect(read(t.p.root, "a.txt")).toBe("two\n");
	});

	test("the same key with other arguments is a conflict", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const id = await oneFile(t, "a.txt", "two\n");
		await t.apply(id, { idempotency_key: "apply-once" });
		const err = await t.refused("patch.apply", {
			proposal_id: id,
			applied_by: "someone-else",
			idempotency_key: "apply-once",
		});
		expect(err.code).toBe("conflict");
		expect(err.message).toContain("apply-once");
	});
});

describe("idempotency of patch.rollback", () => {
	test("the same key twice is the first result, not a refusal to roll back again", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const { transaction } = await t.apply(await oneFile(t, "a.txt", "two\n"));
		const first = await t.rollback(transaction.id, { idempotency_key: "undo-once" });
		expect(await t.rollback(transaction.id, { idempotency_key: "undo-once" })).toEqual(first);
		expect((await allEvents(t.p)).filter((e) => e.type === "patch.rolled_back")).toHaveLength(1);
	});
});

describe("transactions on the table", () => {
	test("get_state lists apply and rollback rows; watch shows the newest `limit`", async () => {
		const t = await setup({ "a.txt": "one\n" });
		await t.apply(await oneFile(t, "a.txt", "two\n"), { transaction_id: "TX-1" });
		const back = await t.rollback("TX-1");
		const state = await t.call<{ transactions: TransactionRecord[] }>("table.get_state", {});
		expect(state.transactions.map((x) => [x.id, x.kind, x.status])).toEqual([
			["TX-1", "apply", "rolled_back"],
			[back.transaction.id, "rollback", "applied"],
		]);
		const one = await t.call<{ transactions: TransactionRecord[] }>("table.watch", { limit: 1 });
		expect(one.transactions.map((x) => x.id)).toEqual([back.transaction.id]);
		const all = await t.call<{ transactions: TransactionRecord[] }>("table.watch", { limit: 10 });
		expect(all.transactions).toEqual(state.transactions);
	});
});

describe("a project nested in a bigger git repository (a monorepo package)", () => {
	// The claim is taken on the edited file, so only the patch itself is stale.
	async function stale() {
		const t = await setup({ "a.txt": "edited by hand\n" }, { nested: true });
		await t.claim("a.txt");
		const id = await t.approved(gitPatch({ "a.txt": "one\n" }, (d) => put(d, "a.txt", "two\n")).patch);
		return { t, id };
	}

	test("apply refuses a patch that no longer applies, changing nothing", async () => {
		const { t, id } = await stale();
		const err = await t.refused("patch.apply", { proposal_id: id });
		expect(err.code).toBe("failed_precondition");
		expect(err.message).toMatch(/no longer applies|git apply --check fails/);
		expect(read(t.p.root, "a.txt")).toBe("edited by hand\n");
	});

	test("patch.validate's apply_check sees that the patch does not apply", async () => {
		const { t, id } = await stale();
		const v = await t.call<{ valid: boolean; gates: { gate: string; ok: boolean }[] }>("patch.validate", {
			proposal_id: id,
		});
		expect(v.gates.find((g) => g.gate === "apply_check")?.ok).toBe(false);
		expect(v.valid).toBe(false);
	});
});

describe("the repository lock", () => {
	test("two applies of the same file at once: one wins, the other changes nothing", async () => {
		const t = await setup({ "a.txt": "one\n" });
		const first = await oneFile(t, "a.txt", "two\n");
		const second = await oneFile(t, "a.txt", "three\n");
		const results = await Promise.allSettled([t.apply(first), t.apply(second)]);
		const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
		const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason as { code: string }] : []));
		expect(won).toHaveLength(1);
		expect(lost.map((e) => e.code)).toEqual(["failed_precondition"]);
		const winner = won[0]?.proposal.id ?? "none";
		expect(read(t.p.root, "a.txt")).toBe(winner === first ? "two\n" : "three\n");
		const state = await t.call<{ transactions: TransactionRecord[]; proposals: ProposalRecord[] }>(
			"table.get_state",
			{},
		);
		expect(state.transactions.map((x) => x.proposal_id)).toEqual([winner]);
		expect(state.proposals.map((x) => x.status).sort()).toEqual(["accepted", "in_review"]);
		expect(leftovers(t.p.root)).toEqual([]);
	});
});
