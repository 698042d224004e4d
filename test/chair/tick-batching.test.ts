// What a Chair tick costs, counted rather than timed (issue 22): its transactions do not grow with the
// records it handles (one call per step, each one transaction for all its records), and it reads the
// policy once and each stored patch once, however many proposals there are or share a patch.
// Both are counted with pass-through spies: on the store's withTransaction and on readFileSync. Every
// transaction and every read still happens for real; the spies only count them.
import { afterEach, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import type { TickReport } from "../../src/chair/tick.ts";
import { patchPath } from "../../src/patches.ts";
import { POLICY_PATH } from "../../src/policy/index.ts";
import { chairTick, request } from "../_helpers/chair-helpers.ts";
import { addRun, makeProject, type Project } from "../_helpers/helpers.ts";

const restores: (() => void)[] = [];
afterEach(() => {
	for (const restore of restores.splice(0)) restore();
});

const AUTHOR = "implementer-1";

/** A run R1 with open tasks, pending proposals (one file each, or all on one shared patch) and turns. */
/** The author claims `file` for writing, for the task the proposals belong to. */
const claim = (p: Project, file: string) =>
	p.call("resource.claim", {
		resource_type: "file",
		resource_id: `file:${file}`,
		claim_type: "write",
		task_id: "T-work",
		agent_id: AUTHOR,
	});

/** The author proposes changing `file`'s one line; the patch's sha256. */
async function propose(p: Project, file: string, title: string): Promise<string> {
	const { proposal } = (await p.call("proposal.create", {
		task_id: "T-work",
		agent_id: AUTHOR,
		title,
		summary_md: "why",
		affected_resources: [],
		risk: "normal",
		patch: `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-one\n+two\n`,
	})) as { proposal: { patch_sha256: string } };
	return proposal.patch_sha256;
}

async function seeded(counts: { tasks: number; proposals: number; turns: number; sharedPatch?: boolean }) {
	const p = await makeProject({
		config: `agents:\n  implementers: { count: ${Math.max(2, counts.turns)} }\n`,
	});
	await addRun(p, "R1");
	await p.call("task.create", {
		task_id: "T-work",
		title: "the proposals' task",
		body_md: "b",
		run_id: "R1",
	});
	await p.call("task.update_status", { task_id: "T-work", status: "in_progress" });
	const files = counts.sharedPatch
		? ["shared.txt"]
		: Array.from({ length: counts.proposals }, (_, i) => `f${i}.txt`);
	for (const file of files) {
		fs.writeFileSync(join(p.root, file), "one\n");
		await claim(p, file);
	}
	const shas = new Set<string>();
	for (let i = 0; i < counts.proposals; i++) {
		const file = files[i % files.length] as string;
		shas.add(await propose(p, file, `change ${i}`));
	}
	for (let i = 0; i < counts.tasks; i++)
		await p.call("task.create", { task_id: `T-${i}`, title: `task ${i}`, body_md: "b", run_id: "R1" });
	for (let i = 1; i <= counts.turns; i++) await request(p, "R1", `implementer-${i}`);
	return { p, shas };
}

/** The transactions (by mode) that `fn` opens on the project's store. */
async function transactionsOf(
	p: Project,
	fn: () => Promise<unknown>,
): Promise<{ write: number; read: number }> {
	const spy = spyOn(p.rt.store, "withTransaction");
	restores.push(() => spy.mockRestore());
	await fn();
	const modes = spy.mock.calls.map(([mode]) => mode);
	spy.mockRestore();
	return { write: modes.filter((m) => m === "write").length, read: modes.filter((m) => m === "read").length };
}

/** The files `fn` reads, by path, with how often each. */
async function readsOf(fn: () => Promise<unknown>): Promise<Map<string, number>> {
	const spy = spyOn(fs, "readFileSync");
	restores.push(() => spy.mockRestore());
	await fn();
	const reads = new Map<string, number>();
	for (const [path] of spy.mock.calls) reads.set(String(path), (reads.get(String(path)) ?? 0) + 1);
	spy.mockRestore();
	return reads;
}

test("a tick's transactions do not grow with its records: as many for 30 tasks, 12 proposals and 4 turns as for one of each", async () => {
	const one = await seeded({ tasks: 1, proposals: 1, turns: 1 });
	const many = await seeded({ tasks: 30, proposals: 12, turns: 4 });
	let small: TickReport | undefined;
	let big: TickReport | undefined;
	const few = await transactionsOf(one.p, async () => {
		small = await chairTick(one.p, "R1");
	});
	const same = await transactionsOf(many.p, async () => {
		big = await chairTick(many.p, "R1");
	});
	// Both first ticks did all their work.
	expect(small).toMatchObject({
		errors: [],
		scheduled: expect.any(Number),
		reviews_requested: [expect.any(String)],
	});
	expect(small?.assigned.length).toBe(1);
	expect(big).toMatchObject({ errors: [], scheduled: expect.any(Number) });
	expect(big?.assigned.length).toBe(30);
	expect(big?.reviews_requested.length).toBe(12);
	expect(same).toEqual(few);
	// One write per step (expire, assign, schedule, review, converge), whatever each finds: an idle
	// tick takes as many as one that assigns, schedules and reviews everything.
	expect(same.write).toBeLessThanOrEqual(5);
	const idle = await transactionsOf(many.p, () => chairTick(many.p, "R1"));
	expect(idle).toEqual(same);
});

test("the policy is read once a tick and each stored patch once, however many proposals share it", async () => {
	// Three proposals on one patch and three on files of their own: four distinct patches.
	const shared = await seeded({ tasks: 0, proposals: 3, turns: 0, sharedPatch: true });
	const { p } = shared;
	for (let i = 0; i < 3; i++) {
		const file = `own${i}.txt`;
		fs.writeFileSync(join(p.root, file), "one\n");
		await claim(p, file);
		shared.shas.add(await propose(p, file, `own ${i}`));
	}
	expect(shared.shas.size).toBe(4);
	// No reloader holds the policy here (as in `roundtable run` without an owner): the tick reads it.
	expect(p.rt.policy).toBeUndefined();
	const policyReads = (r: Map<string, number>) => r.get(join(p.root, POLICY_PATH)) ?? 0;
	const patchReads = (r: Map<string, number>) =>
		[...shared.shas].map((sha) => r.get(patchPath(p.root, sha)) ?? 0);

	const first = await readsOf(async () => {
		const report = await chairTick(p, "R1");
		expect(report).toMatchObject({ errors: [] });
		expect(report.reviews_requested.length).toBe(6);
	});
	expect(policyReads(first)).toBe(1);
	expect(patchReads(first)).toEqual([1, 1, 1, 1]);

	// With nothing pending, neither is read at all.
	const idle = await readsOf(() => chairTick(p, "R1"));
	expect(policyReads(idle)).toBe(0);
	expect(patchReads(idle)).toEqual([0, 0, 0, 0]);
});
