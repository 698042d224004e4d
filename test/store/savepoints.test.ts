// Savepoints (src/store/savepoints.ts): inside one transaction, a part that throws leaves none of its
// rows, the parts around it commit, and a part that succeeds keeps all of its rows. Real SQLite.
import { expect, test } from "bun:test";
import { makeProject } from "../_helpers/helpers.ts";

test("a savepoint that throws undoes only its own writes; the transaction around it commits", async () => {
	const p = await makeProject();
	const now = new Date().toISOString();
	const run = (id: string) => ({ id, goal: id, status: "active" as const });
	const caught = await p.rt.store.withTransaction("write", async (tx) => {
		await tx.runs.insert(run("R-before"), now);
		const err = await tx.savepoints
			.atomic(async () => {
				await tx.runs.insert(run("R-undone"), now);
				await tx.events.append({ type: "test.undone", actor_id: "system", payload: {} }, now);
				throw new Error("this record fails");
			})
			.catch((e: Error) => e.message);
		await tx.savepoints.atomic(() => tx.runs.insert(run("R-kept"), now));
		return err;
	});
	expect(caught).toBe("this record fails");
	const { ids, undone } = await p.rt.store.withTransaction("read", async (tx) => ({
		ids: await Promise.all(["R-before", "R-undone", "R-kept"].map(async (id) => (await tx.runs.get(id))?.id)),
		undone: (await tx.events.newest(null, 50)).filter((e) => e.type === "test.undone"),
	}));
	expect(ids).toEqual(["R-before", undefined, "R-kept"]);
	expect(undone).toEqual([]);
});

test("savepoints nest: an inner one that throws leaves the outer one's writes", async () => {
	const p = await makeProject();
	const now = new Date().toISOString();
	await p.rt.store.withTransaction("write", (tx) =>
		tx.savepoints.atomic(async () => {
			await tx.runs.insert({ id: "R-outer", goal: "", status: "active" }, now);
			await tx.savepoints
				.atomic(async () => {
					await tx.runs.insert({ id: "R-inner", goal: "", status: "active" }, now);
					throw new Error("inner");
				})
				.catch(() => {});
		}),
	);
	const found = await p.rt.store.withTransaction("read", async (tx) => [
		(await tx.runs.get("R-outer"))?.id,
		(await tx.runs.get("R-inner"))?.id,
	]);
	expect(found).toEqual(["R-outer", undefined]);
});
