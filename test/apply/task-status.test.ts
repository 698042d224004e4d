// A task follows its proposals (issue 31): applying one makes it done, or in review while another of
// its proposals is still open; rolling it back makes it in progress again; each change is a
// task.updated event saying why. A cancelled task stays cancelled.
import { afterAll, expect, test } from "bun:test";
import { type Flow, flow } from "../_helpers/flow-helpers.ts";
import { allEvents, diffOf, removeTempDirs } from "../_helpers/helpers.ts";

afterAll(removeTempDirs);

/** A proposal of implementer-1 changing `path`, with the votes the default policy wants. */
async function approved(f: Flow, path: string, text: string): Promise<string> {
	await f.claim("implementer-1", path);
	const proposal = await f.propose({ patch: diffOf(f.p.root, path, text), risk: "low" });
	await f.call("proposal.request_review", { proposal_id: proposal.id });
	for (const agent of ["architect-1", "reviewer-1"]) await f.vote(proposal.id, agent);
	return proposal.id;
}

const statusOf = async (f: Flow) =>
	((await f.call("task.get", { task_id: f.task })) as { task: { status: string } }).task.status;

const statusEvents = async (f: Flow) =>
	(await allEvents(f.p))
		.filter((e) => e.type === "task.updated" && e.task_id === f.task)
		.map((e) => {
			const p = e.payload as { changes: { status?: { from: string; to: string } }; reason_md?: string };
			return `${p.changes.status?.from}→${p.changes.status?.to}: ${p.reason_md}`;
		});

test("applied: done; rolled back: in progress again; each an event naming the proposal and transaction", async () => {
	const f = await flow({ "a.txt": "a\n" });
	await f.call("task.update_status", { task_id: f.task, status: "in_progress" });
	const id = await approved(f, "a.txt", "a, changed\n");
	const { transaction } = (await f.call("patch.apply", { proposal_id: id })) as {
		transaction: { id: string };
	};
	expect(await statusOf(f)).toBe("done");
	const back = (await f.call("patch.rollback", { transaction_id: transaction.id })) as {
		transaction: { id: string };
	};
	expect(await statusOf(f)).toBe("in_progress");
	expect((await statusEvents(f)).slice(-2)).toEqual([
		`in_progress→done: proposal ${id} applied in ${transaction.id}`,
		`done→in_progress: proposal ${id} rolled back in ${back.transaction.id}`,
	]);
});

test("with another proposal of the task still open, applied means review; the last one applied, done", async () => {
	const f = await flow({ "a.txt": "a\n", "b.txt": "b\n" });
	const first = await approved(f, "a.txt", "a2\n");
	const second = await approved(f, "b.txt", "b2\n");
	await f.call("patch.apply", { proposal_id: first });
	expect(await statusOf(f)).toBe("review");
	await f.call("patch.apply", { proposal_id: second });
	expect(await statusOf(f)).toBe("done");
});

test("a cancelled task keeps its status when a proposal of it is applied", async () => {
	const f = await flow({ "a.txt": "a\n" });
	const id = await approved(f, "a.txt", "a2\n");
	await f.call("task.update_status", { task_id: f.task, status: "cancelled" });
	await f.call("patch.apply", { proposal_id: id });
	expect(await statusOf(f)).toBe("cancelled");
});
